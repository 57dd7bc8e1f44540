"""Scoring throughput: 20-item ledgers scored per second under icarus@1.1.

Measured in one run, on the same ledgers:
- baseline: validating the ledger JSON with pydantic (work every caller pays before scoring);
- policy scoring with the provenance graph already built (the rubric's arithmetic, rules, gates, trace);
- end to end (provenance graph + scoring), in one process and in a pool of one process per core;
- the floor: what every scored ledger costs before any graph or rule is worked out, whatever the design
  (validating it, hashing it, hashing its trace, and reading each text's words once for H2).
Ratios are reported against the baseline because absolute times on shared machines are noisy.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.icc import SYLLABLES
from icarus.ledger import Ledger
from icarus.provenance.shingles import words_of
from icarus.scoring.canonical import canonical_json, ledger_hash, sha256_hex
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import provenance_graph, score_ledger

ITEMS_PER_LEDGER = 20
AS_OF = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _text(rng: random.Random, words: int) -> str:
    """Pseudo-words built from the ICC benchmark's syllables, so unrelated texts barely overlap."""
    return (
        " ".join("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(words)) + "."
    )


def synthetic_ledger(seed: int) -> dict[str, Any]:
    """A 20-item ledger shaped like coverage: two wire stories with verbatim pickups, rewrites that
    attribute, independent reports on both sides, and a few zero-weight items."""
    rng = random.Random(seed)
    stories = [f"HALDEN (AP) \u2014 {_text(rng, 220)}", f"Halden (Reuters) - {_text(rng, 220)}"]
    evidence = []
    for index in range(ITEMS_PER_LEDGER):
        kind = index % 5
        if kind in (0, 1):
            text = stories[kind]
        elif kind == 2:
            text = _text(rng, 200) + " The figures were first reported by Reuters."
        else:
            text = _text(rng, 200)
        domain = f"site{seed}-{index}.example"
        evidence.append(
            {
                "evidence_id": f"e{index}",
                "url": f"https://{domain}/story/{index}",
                "publisher": f"Site {index}",
                "domain": domain,
                "published_at": (AS_OF - timedelta(hours=rng.randint(1, 90))).isoformat(),
                "retrieved_at": (AS_OF - timedelta(minutes=30)).isoformat(),
                "content_sha256": f"{index:064x}",
                "text": text,
                "excerpt": {"span": {"start": 0, "end": 30}, "text": text[:30]},
                "reputation": {
                    "domain": domain,
                    "score": rng.choice(["0.60", "0.85", "0.95"]),
                    "tier": rng.choice(["national_news", "wire", "regional_news"]),
                    "method": rng.choice(["manual", "dataset", "heuristic"]),
                    "produced_by": "bench",
                    "version": "1",
                },
                "source_class": "aggregator" if index == 19 else "news",
                "judgments": [
                    {
                        "claim_id": "c1",
                        "inference_hops": rng.randint(0, 2),
                        "stance": {
                            "stance": rng.choice(["support", "support", "support", "refute", "neutral"]),
                            "confidence": rng.choice(["0.55", "0.75", "0.95"]),
                            "judge": {"provider": "bench", "version": "1", "calibration_id": "identity"},
                        },
                    }
                ],
            }
        )
    post = "Container traffic at Halden harbor fell 12% in October."
    return {
        "ledger_id": f"bench-{seed}",
        "as_of": AS_OF.isoformat(),
        "subject": {
            "kind": "text",
            "subject_id": f"s{seed}",
            "captured_at": AS_OF.isoformat(),
            "fields": [{"name": "plain_text", "text": post, "artifact_id": "t"}],
        },
        "claims": [
            {
                "claim_id": "c1",
                "source_field": "plain_text",
                "span": {"start": 0, "end": len(post)},
                "text": post,
            }
        ],
        "evidence": evidence,
    }


def _rate(count: int, seconds: float) -> float:
    return round(count / seconds, 1) if seconds > 0 else float("inf")


def _score_chunk(raws: list[dict[str, Any]]) -> int:
    policy = load_policy("icarus@1.1")
    for raw in raws:
        score_ledger(Ledger.model_validate(raw), policy)
    return len(raws)


def main(argv: list[str]) -> dict[str, Any]:
    count = 400 if "--quick" not in argv else 60
    policy = load_policy("icarus@1.1")
    raws = [synthetic_ledger(seed) for seed in range(count)]

    start = time.perf_counter()
    ledgers = [Ledger.model_validate(raw) for raw in raws]
    parse_s = time.perf_counter() - start

    graphs = [provenance_graph(ledger, policy) for ledger in ledgers[:20]]  # warm caches
    start = time.perf_counter()
    graphs = [provenance_graph(ledger, policy) for ledger in ledgers]
    graph_s = time.perf_counter() - start

    start = time.perf_counter()
    for ledger, graph in zip(ledgers, graphs, strict=True):
        score_ledger(ledger, policy, graph)
    scoring_s = time.perf_counter() - start

    start = time.perf_counter()
    results = [score_ledger(ledger, policy) for ledger in ledgers]
    end_to_end_s = time.perf_counter() - start

    start = time.perf_counter()
    for raw, result in zip(raws, results, strict=True):
        ledger = Ledger.model_validate(raw)
        ledger_hash(ledger)
        sha256_hex(canonical_json(result["trace"]))
    hashes_s = time.perf_counter() - start
    start = time.perf_counter()
    for ledger in ledgers:
        words_of([item.text for item in ledger.evidence])
    words_s = time.perf_counter() - start
    floor_s = hashes_s + words_s

    workers = os.cpu_count() or 1
    chunks = [raws[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_score_chunk, [chunk[:5] for chunk in chunks]))  # start and warm the workers
        start = time.perf_counter()
        done = sum(pool.map(_score_chunk, chunks))
        pool_s = time.perf_counter() - start

    def row(stage: str, ledgers: int, seconds: float) -> dict[str, Any]:
        return {
            "stage": stage,
            "ledgers": ledgers,
            "seconds": round(seconds, 3),
            "ledgers_per_s": _rate(ledgers, seconds),
            "x_baseline_time": round(seconds / parse_s, 1),
        }

    runs = [
        row("baseline: pydantic validation", count, parse_s),
        row("provenance graph", count, graph_s),
        row("policy scoring (graph built)", count, scoring_s),
        row("floor: validation, ledger hash, trace hash", count, hashes_s),
        row("floor, and each text's words read once", count, floor_s),
        row("end to end, 1 process", count, end_to_end_s),
        row(f"end to end incl. validation, {workers} processes", done, pool_s),
    ]
    return {"runs": runs, "items_per_ledger": ITEMS_PER_LEDGER, "target_ledgers_per_s": 2000}
