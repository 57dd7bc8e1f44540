"""Latency of `icarus check` for a three-claim post against a large local corpus (offline judge, SQLite).

The corpus is the sample corpus plus N synthetic documents (100k by default; `--quick` uses 10k). The
baseline is the same check against the sample corpus alone, measured in the same run. A third run adds one
long page dense with figures that the post's searches all find (``LONG_PAGE_CHARS``): the work done per
character of a retrieved page must stay linear (search snippets, excerpts, the judges' figure parsing).
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.icc import SYLLABLES
from icarus.capture import capture_text
from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.pipeline.check import CheckServices, run_check
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from icarus.store import Store

EXAMPLES = Path(__file__).parents[1] / "examples" / "sample-corpus"
POST = (
    "Container traffic at Halden harbor fell 12% in October. "
    "The Halden council voted on Monday to extend library opening hours to 9 pm. "
    "Halden port handled 41,200 containers in October 2026."
)
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
RUNS = 5
# Real words mixed into the synthetic text so searches for the post's terms hit many decoys.
DECOYS = "harbor traffic container october council library port carriers services weekly fell hours".split()
LONG_PAGE_CHARS = 800_000
LONG_PAGE_LINE = "In October 2026 Halden port handled 41,200 containers, 3,400 more than the 37,800 of 2025. "


def _synthetic_corpus(folder: Path, count: int, seed: int = 11) -> Path:
    rng = random.Random(seed)
    path = folder / "synthetic.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            words = [
                rng.choice(DECOYS)
                if rng.random() < 0.05
                else "".join(rng.choices(SYLLABLES, k=rng.randint(2, 4)))
                for _ in range(80)
            ]
            record = {
                "url": f"https://site{n % 5000}.example/doc/{n}",
                "title": " ".join(words[:6]),
                "text": " ".join(words) + ".",
                "publisher": f"Site {n % 5000}",
                "published": f"2026-{1 + n % 11:02d}-{1 + n % 27:02d}",
            }
            out.write(json.dumps(record) + "\n")
    return path


def _long_page(folder: Path) -> Path:
    path = folder / "long-page.txt"
    path.write_text(LONG_PAGE_LINE * (LONG_PAGE_CHARS // len(LONG_PAGE_LINE)), encoding="utf-8")
    return path


def _services(corpus: LocalCorpus, folder: Path) -> CheckServices:
    folder.mkdir(parents=True, exist_ok=True)
    store = Store(f"sqlite:///{folder / 'icarus.db'}")
    store.open()
    return CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[LocalCorpusProvider(corpus)],
        registry=load_registry(EXAMPLES / "reputation.json"),
        snapshots=SnapshotStore(folder / "snapshots"),
        policy=load_policy("icarus@1.1"),
        store=store,
    )


def _median_check(services: CheckServices) -> tuple[float, str, int]:
    times = []
    label, claims = "", 0
    for _ in range(RUNS):
        start = time.perf_counter()
        output = run_check(capture_text(POST, NOW), services, NOW)
        times.append(time.perf_counter() - start)
        label, claims = output.result["overall"]["label"], len(output.result["claims"])
    return statistics.median(times), label, claims


def main(argv: list[str]) -> dict[str, Any]:
    count = 10_000 if "--quick" in argv else 100_000
    runs = []
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        small = LocalCorpus(folder / "small.db")
        small.add(sorted(EXAMPLES.glob("*.html")))
        base_s, base_label, claims = _median_check(_services(small, folder / "small"))
        runs.append(
            {
                "corpus_documents": len(small),
                "index_s": None,
                "median_check_s": round(base_s, 3),
                "x_baseline": 1.0,
                "label": base_label,
                "claims": claims,
            }
        )

        synthetic = _synthetic_corpus(folder, count)
        large = LocalCorpus(folder / "large.db")
        start = time.perf_counter()
        large.add([*sorted(EXAMPLES.glob("*.html")), synthetic])
        index_s = time.perf_counter() - start
        large_s, large_label, claims = _median_check(_services(large, folder / "large"))
        runs.append(
            {
                "corpus_documents": len(large),
                "index_s": round(index_s, 1),
                "median_check_s": round(large_s, 3),
                "x_baseline": round(large_s / base_s, 1),
                "label": large_label,
                "claims": claims,
            }
        )

        with_long = LocalCorpus(folder / "long.db")
        with_long.add([*sorted(EXAMPLES.glob("*.html")), _long_page(folder)])
        long_s, long_label, claims = _median_check(_services(with_long, folder / "long"))
        runs.append(
            {
                "corpus_documents": len(with_long),
                "long_page_chars": LONG_PAGE_CHARS,
                "index_s": None,
                "median_check_s": round(long_s, 3),
                "x_baseline": round(long_s / base_s, 1),
                "label": long_label,
                "claims": claims,
            }
        )
    return {"runs": runs, "runs_per_median": RUNS, "target_median_s_below": 5}
