"""Measure any judge on labelled stance pairs: stance, calibration, inference hops and scope.

Every judge is asked the same question the pipeline asks (a ``JudgeRequest`` with the passage as its
excerpt), so the offline judges and an LLM behind an OpenAI-compatible endpoint are measured alike.

* Stance: macro-F1 over the labels the set uses, accuracy, per-label F1, the confusion table.
* Calibration: the verdict's confidence against whether its stance was right: expected calibration error
  and the reliability table (``calibration.reliability``).
* Side calls: for support and refute separately, the calls made, their precision and their recall at each
  confidence floor (``metrics.side_calls``): what a policy that reads low-confidence calls as neutral gets.
* Inference hops, two checks the labels allow. (1) On pairs labelled support or refute the passage does
  bear on the claim, so a count over the policy's limit (``max_hops``) throws out good evidence: the share
  of such pairs over the limit should be small. (2) On WiCE, a claim against the sentences that fully
  support it should need fewer hops than a partially supported claim against the sentences that support
  part of it: the mean hops of each group are reported.
* Scope: CovidFact's refuted claims are made from a supported claim by swapping words; where the swap
  replaced a figure, a year or a place that the evidence states, the claim now differs from the evidence
  in that dimension and the judge should say so (detection rate). On pairs labelled support, any mismatch is a false alarm
  (false-mismatch rate).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from icarus.evaluation.stancesets import EVIDENCE_TEXT, LabelledPair
from icarus.judges.calibration import expected_calibration_error, reliability
from icarus.judges.metrics import accuracy, confusion, f1_by_label, macro_f1, side_calls
from icarus.judges.parallel import judge_all
from icarus.judges.protocol import Judge, JudgeRequest
from icarus.ledger.judgments import ScopeDimension
from icarus.scoring.icarus.config import DEFAULT_POLICY, load_policy
from icarus.text import words as tx

__all__ = ["JudgedPair", "evaluate", "judge_pairs", "max_hops", "scope_expectation"]


def max_hops() -> int:
    """The current policy's limit on unsupported inference hops."""
    return load_policy(DEFAULT_POLICY).decision.max_inference_hops


@dataclass(frozen=True, slots=True)
class JudgedPair:
    pair: LabelledPair
    stance: str
    confidence: float
    hops: int
    mismatched: tuple[str, ...]
    failed: bool

    @property
    def decimal_confidence(self) -> Decimal:
        """The stated confidence as the verdict gave it, in hundredths."""
        return Decimal(repr(self.confidence))


def judge_pairs(
    judge: Judge, pairs: Sequence[LabelledPair], advance: Callable[[], None] | None = None
) -> tuple[list[JudgedPair], float]:
    """Every pair put to ``judge`` (several at once where the judge opts in: ``judges.parallel``); returns
    the answers, in the order of ``pairs``, and the seconds they took."""

    def ask(worker: Judge, numbered: tuple[int, LabelledPair]) -> JudgedPair:
        n, pair = numbered
        verdict = worker.stance(
            JudgeRequest(
                claim_id=f"c{n}",
                claim_text=pair.claim,
                evidence_id=f"e{n}",
                excerpt=pair.passage,
                evidence_text=pair.extra.get(EVIDENCE_TEXT, pair.passage),
            )
        )
        return JudgedPair(
            pair,
            verdict.stance.value,
            float(verdict.confidence),
            verdict.inference_hops,
            tuple(d.value for d in verdict.mismatched),
            verdict.failure is not None,
        )

    started = time.perf_counter()
    judged = judge_all(judge, ask, list(enumerate(pairs)), advance)
    return judged, time.perf_counter() - started


def scope_expectation(pair: LabelledPair) -> ScopeDimension | None:
    """The dimension a CovidFact counter-claim changed, when the evidence states the original's value that
    the swap replaced (a figure, a year or a place); None otherwise."""
    original = pair.extra.get("counterpart")
    if original is None:
        return None
    claimed = tx.quantities(pair.claim)
    replaced = [
        q for q in tx.quantities(original) if not any(tx.same_value(q.value, c.value) for c in claimed)
    ]
    stated = tx.quantities(pair.passage)
    if claimed and any(tx.same_value(q.value, s.value) for q in replaced for s in stated):
        return ScopeDimension.QUANTITY
    claim_years = tx.years(pair.claim)
    if claim_years and (tx.years(original) - claim_years) & tx.years(pair.passage):
        return ScopeDimension.PERIOD
    claim_places = tx.places(pair.claim)
    if claim_places and (tx.places(original) - claim_places) & tx.places(pair.passage):
        return ScopeDimension.GEOGRAPHY
    return None


def _stance_scores(judged: Sequence[JudgedPair]) -> dict[str, Any]:
    gold = [j.pair.label for j in judged]
    predicted = [j.stance for j in judged]
    correct = [g == p for g, p in zip(gold, predicted, strict=True)]
    confidences = [j.confidence for j in judged]
    return {
        "n": len(judged),
        "macro_f1": round(macro_f1(gold, predicted), 4),
        "accuracy": round(accuracy(gold, predicted), 4),
        "f1_by_label": {k: round(v, 4) for k, v in f1_by_label(gold, predicted).items()},
        "ece": round(expected_calibration_error(confidences, correct), 4),
        "mean_confidence": round(sum(confidences) / len(confidences), 4) if judged else None,
        "failures": sum(j.failed for j in judged),
        "confusion": confusion(gold, predicted),
        "side_calls": side_calls(gold, predicted, [j.decimal_confidence for j in judged]),
    }


def _hops(judged: Sequence[JudgedPair]) -> dict[str, Any]:
    sided = [j for j in judged if j.pair.label in ("support", "refute")]
    limit = max_hops()
    by_wice: dict[str, list[int]] = defaultdict(list)
    for j in judged:
        if j.pair.dataset == "wice" and j.pair.extra.get("wice") in ("supported", "partially_supported"):
            by_wice[j.pair.extra["wice"]].append(j.hops)
    return {
        "labelled_sided_pairs": len(sided),
        "sided_over_limit_rate": round(sum(j.hops > limit for j in sided) / len(sided), 4) if sided else None,
        "mean_hops_by_label": {
            label: round(sum(hops) / len(hops), 3)
            for label in ("support", "refute", "neutral")
            if (hops := [j.hops for j in judged if j.pair.label == label])
        },
        "wice_mean_hops": {k: round(sum(v) / len(v), 3) for k, v in sorted(by_wice.items())},
        "wice_pairs": {k: len(v) for k, v in sorted(by_wice.items())},
    }


def _scope(judged: Sequence[JudgedPair]) -> dict[str, Any]:
    expected = [(j, e) for j in judged if (e := scope_expectation(j.pair)) is not None]
    supported = [j for j in judged if j.pair.label == "support"]
    by_dimension: dict[str, list[bool]] = defaultdict(list)
    for j, dimension in expected:
        by_dimension[dimension.value].append(dimension.value in j.mismatched)
    return {
        "swapped_pairs": len(expected),
        "detection_rate": round(sum(sum(v) for v in by_dimension.values()) / len(expected), 4)
        if expected
        else None,
        "detection_by_dimension": {
            k: {"n": len(v), "detected": sum(v)} for k, v in sorted(by_dimension.items())
        },
        "supported_pairs": len(supported),
        "false_mismatch_rate": round(sum(bool(j.mismatched) for j in supported) / len(supported), 4)
        if supported
        else None,
    }


@dataclass
class JudgeReport:
    judge: str
    sets: dict[str, dict[str, Any]] = field(default_factory=dict)
    overall: dict[str, Any] = field(default_factory=dict)
    hops: dict[str, Any] = field(default_factory=dict)
    scope: dict[str, Any] = field(default_factory=dict)
    reliability: list[dict[str, float]] = field(default_factory=list)
    pairs_per_second: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "sets": self.sets,
            "overall": self.overall,
            "hops": self.hops,
            "scope": self.scope,
            "reliability": self.reliability,
            "pairs_per_second": self.pairs_per_second,
        }


def evaluate(
    name: str, judge: Judge, pairs: Sequence[LabelledPair], advance: Callable[[], None] | None = None
) -> JudgeReport:
    """Judge every pair and score the answers per set and overall."""
    judged, seconds = judge_pairs(judge, pairs, advance)
    report = JudgeReport(name)
    for dataset in dict.fromkeys(j.pair.dataset for j in judged):
        report.sets[dataset] = _stance_scores([j for j in judged if j.pair.dataset == dataset])
    report.overall = _stance_scores(judged) if judged else {}
    report.hops = _hops(judged)
    report.scope = _scope(judged)
    report.reliability = [
        {
            "low": b.low,
            "high": b.high,
            "n": b.count,
            "confidence": round(b.mean_confidence, 4),
            "accuracy": round(b.accuracy, 4),
        }
        for b in reliability([j.confidence for j in judged], [j.pair.label == j.stance for j in judged])
    ]
    report.pairs_per_second = round(len(judged) / seconds, 1) if seconds > 0 else 0.0
    return report
