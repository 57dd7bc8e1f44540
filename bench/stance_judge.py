"""Stance-judge throughput: pairs judged per second, one request at a time and many at once.

One at a time is how a lone request is answered; many at once (``icarus.judges.parallel.judge_all``) is how
a check judges its evidence items and an evaluation its pairs. Judges that do not opt in to parallel
requests run the same loop both ways, so their ratio reads the machine's noise.

Target for a default offline judge: at least 200 pairs/s on this 2-core machine (docs/evaluation.md,
"Stance judges"). Pairs are Climate-FEVER claim–sentence pairs when the dataset is present (``ICARUS_DATASETS``
or ``../shared/datasets``), otherwise built-in sentences; the first pair of each judge is a warm-up (model
load) and is not timed. Also reported: the size of what each judge ships.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import wordllama

from icarus.evaluation.stancesets import Split, StanceSetError, load_pairs
from icarus.judges.cascade import OfflineCascadeJudge, parameters_file
from icarus.judges.cross_encoder import OfflineMiniLMJudge, load_weights, usable_cores, weight_files
from icarus.judges.parallel import judge_all
from icarus.judges.protocol import Judge, JudgeRequest
from icarus.judges.registry import (
    CASCADE_JUDGE,
    DEFAULT_OFFLINE_JUDGE,
    LEXICAL_JUDGE,
    MINILM_AGREEMENT_JUDGE,
    MINILM_FEVER_JUDGE,
    MINILM_FIGURES_JUDGE,
    MINILM_JUDGE,
    MINILM_RELEVANCE_JUDGE,
    MINILM_THRESHOLDED_JUDGE,
    WORDLLAMA_JUDGE,
    create_judge,
)

TARGET_PAIRS_PER_SECOND = 200
UNSIGNED_LABEL = "(unsigned bytes)"
PAIRS = 600
ROUNDS = 2
_DATASETS = Path(
    os.environ.get("ICARUS_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)
_FALLBACK = [
    ("Arctic sea ice extent has declined since 1979.", "Satellite records show Arctic sea ice has shrunk since 1979."),
    ("Global temperatures have not risen since 1998.", "The decade after 1998 was warmer than the one before it."),
    ("CO2 is a trace gas with no effect on climate.", "Carbon dioxide absorbs infrared radiation emitted by the surface."),
]  # fmt: skip


def _pairs() -> tuple[list[tuple[str, str]], str]:
    try:
        pairs = load_pairs("climate-fever", _DATASETS, Split.TEST)
        return [(p.claim, p.passage) for p in pairs][:PAIRS], "climate-fever test split"
    except StanceSetError:
        return (_FALLBACK * (PAIRS // len(_FALLBACK) + 1))[:PAIRS], "built-in sentences"


def _shipped_bytes(name: str) -> int:
    """What the judge needs on disk beyond code: its weight files and any embedding table it reads (the
    screened judge needs both of its components')."""
    if name in (MINILM_JUDGE, MINILM_FIGURES_JUDGE):
        return sum(path.stat().st_size for path in weight_files())
    if name in (MINILM_THRESHOLDED_JUDGE, MINILM_RELEVANCE_JUDGE):
        # A floor (and a gate) over the cross-encoder: its small record and the model. The gate's similarity
        # reads the WordLlama table the cross-encoder already reads to choose passages (in the wordllama
        # package, counted as for offline-minilm@2: not at all).
        weights = Path(__file__).resolve().parents[1] / "src" / "icarus" / "judges" / "weights"
        record = weights / f"{name.replace('@', '-')}.json"
        return record.stat().st_size + _shipped_bytes(MINILM_FIGURES_JUDGE)
    if name == MINILM_AGREEMENT_JUDGE:  # both components' files, the embedding table counted once
        return _shipped_bytes(MINILM_RELEVANCE_JUDGE) + _shipped_bytes(WORDLLAMA_JUDGE)
    if name == CASCADE_JUDGE:
        parameters = parameters_file().stat().st_size
        return parameters + _shipped_bytes(MINILM_FIGURES_JUDGE) + _shipped_bytes(WORDLLAMA_JUDGE)
    if name != WORDLLAMA_JUDGE:
        return 0
    weights = Path(__file__).resolve().parents[1] / "src" / "icarus" / "judges" / "weights"
    own = [p for p in weights.iterdir() if p.name.startswith("offline-wordllama-")]
    return sum(p.stat().st_size for p in own) + _embedding_table().stat().st_size


def _embedding_table() -> Path:
    return Path(wordllama.__file__).parent / "weights" / "l2_supercat_256.safetensors"


def _stance(judge: Judge, request: JudgeRequest) -> object:
    return judge.stance(request)


def _rate(judge: Judge, requests: list[JudgeRequest], many_at_once: bool) -> float:
    started = time.perf_counter()
    if many_at_once:
        judge_all(judge, _stance, requests)
    else:
        for request in requests:
            judge.stance(request)
    return len(requests) / (time.perf_counter() - started)


def _judges() -> list[tuple[str, Judge]]:
    """Every offline judge, plus the default cross-encoder on its unsigned weight bytes: the baseline, in
    the same run, for what running them as signed bytes gains on CPUs with VNNI (judges.signed_products)."""
    judges = [
        (name, create_judge(name))
        for name in (
            LEXICAL_JUDGE,
            WORDLLAMA_JUDGE,
            MINILM_JUDGE,
            MINILM_FIGURES_JUDGE,
            MINILM_THRESHOLDED_JUDGE,
            MINILM_RELEVANCE_JUDGE,
            MINILM_AGREEMENT_JUDGE,
            MINILM_FEVER_JUDGE,
            CASCADE_JUDGE,
        )
    ]
    unsigned = OfflineMiniLMJudge(load_weights(signed=False), read_figures=True)
    return [*judges, (f"{MINILM_FIGURES_JUDGE} {UNSIGNED_LABEL}", unsigned)]


def _signed_products(judge: Judge) -> bool:
    if isinstance(judge, OfflineCascadeJudge):
        return _signed_products(judge.decider)
    base = getattr(judge, "base", None) or getattr(judge, "first", None)  # a floor, gate or pair over a judge
    if base is not None:
        return _signed_products(base)
    return isinstance(judge, OfflineMiniLMJudge) and judge.weights.scorer.signed_products


def main(argv: list[str]) -> dict[str, Any]:
    pairs, source = _pairs()
    runs = []
    for name, judge in _judges():
        requests = [
            JudgeRequest(claim_id=f"c{i}", claim_text=claim, evidence_id=f"e{i}", excerpt=passage)
            for i, (claim, passage) in enumerate(pairs)
        ]
        judge.stance(requests[0])  # warm-up: loads the model
        judge_all(judge, _stance, requests[:60])  # and any twin
        # Interleaved rounds, best of each: the machine's load changes from one second to the next.
        best = {False: 0.0, True: 0.0}
        for round_ in range(ROUNDS):
            for many_at_once in (False, True) if round_ % 2 == 0 else (True, False):
                best[many_at_once] = max(best[many_at_once], _rate(judge, requests, many_at_once))
        one, many = best[False], best[True]
        runs.append(
            {
                "judge": name,
                "pairs": len(requests),
                "one_at_a_time_per_s": round(one, 1),
                "many_at_once_per_s": round(many, 1),
                "many_x_one": round(many / one, 2),
                "default": name == DEFAULT_OFFLINE_JUDGE,
                "meets_200": max(one, many) >= TARGET_PAIRS_PER_SECOND,
                "signed_products": _signed_products(judge),
                "shipped_mb": round(_shipped_bytes(name.removesuffix(f" {UNSIGNED_LABEL}")) / 2**20, 2),
            }
        )
    return {"runs": runs, "pairs_from": source, "cpus": os.cpu_count(), "usable_cores": usable_cores()}
