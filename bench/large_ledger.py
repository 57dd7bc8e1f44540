"""A ledger with one huge evidence text: time and peak memory of `icarus score`, in a fresh process each.

A hostile or merely enormous page must not take the machine down. The bench scores the ordinary 20-item
ledger of ``bench.scoring`` (the baseline: the interpreter, the imports and a normal ledger) and the same
ledger with one item's text replaced by tens of megabytes of words, drawn from a 20,000-word vocabulary
or each one new, each in its own process so that each peak is that ledger's alone (``os.wait4`` reads the child's peak
resident memory). Ledger files are capped at 64 MiB, so the default text (48 MB) is near the largest a
ledger can hold.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.scoring import _text, synthetic_ledger

VOCABULARY = 20_000
HUGE_ITEM = 3  # an independent report in the synthetic ledger, so the text is no wire copy


def huge_ledger(words: int, distinct: bool, seed: int = 0) -> dict[str, Any]:
    """The synthetic ledger with one text of ``words`` words: drawn from a fixed vocabulary, or (with
    ``distinct``) each one new, the worst case for tables keyed by word."""
    raw = synthetic_ledger(seed)
    rng = random.Random(seed)
    if distinct:
        text = " ".join(f"w{rng.getrandbits(40):x}" for _ in range(words))
    else:
        vocabulary = [_text(rng, 1)[:-1] for _ in range(VOCABULARY)]
        text = " ".join(rng.choice(vocabulary) for _ in range(words))
    raw["evidence"][HUGE_ITEM]["text"] = text
    return raw


def _score_in_child(path: Path) -> tuple[float, float]:
    """Wall seconds and peak resident MB of ``icarus score PATH --json`` in a new process."""
    command = [sys.executable, "-m", "icarus.cli", "score", str(path), "--json"]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(
            f"icarus score failed on {path}: {child.stderr.read().decode() if child.stderr else ''}"
        )
    return seconds, usage.ru_maxrss / 1024  # Linux reports kilobytes


def main(argv: list[str]) -> dict[str, Any]:
    words = 1_000_000 if "--quick" in argv else 6_000_000
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        base_path = Path(folder) / "ordinary.json"
        base_path.write_text(json.dumps(synthetic_ledger(0)), encoding="utf-8")
        base_s, base_mb = _score_in_child(base_path)
        runs.append(
            {
                "ledger": "ordinary 20 items",
                "text_mb": 0,
                "seconds": round(base_s, 2),
                "peak_mb": round(base_mb),
            }
        )
        for distinct, count, name in (
            (False, words, "one text huge"),
            (True, words * 3 // 4, "one text huge, every word new"),
        ):
            huge = huge_ledger(count, distinct)
            path = Path(folder) / "huge.json"
            path.write_text(json.dumps(huge), encoding="utf-8")
            text_mb = len(huge["evidence"][HUGE_ITEM]["text"].encode()) / 1e6
            seconds, peak_mb = _score_in_child(path)
            runs.append(
                {
                    "ledger": name,
                    "text_mb": round(text_mb, 1),
                    "seconds": round(seconds, 2),
                    "peak_mb": round(peak_mb),
                    "extra_peak_mb_per_text_mb": round((peak_mb - base_mb) / text_mb, 1),
                    "x_baseline_time": round(seconds / base_s, 1),
                }
            )
    return {"runs": runs}
