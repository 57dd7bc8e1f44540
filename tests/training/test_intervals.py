"""Bootstrap intervals: the vectorised macro-F1 agrees with the metric, intervals hold their estimate, the
pooled precision counts claims together, and a paired difference of a judge with itself is zero."""

from __future__ import annotations

import random

import numpy as np

from icarus.judges.metrics import macro_f1
from icarus_training.intervals import (
    REPLICATES,
    ClaimOutcome,
    _coded,
    _macro_f1_rows,
    macro_f1_interval,
    paired_macro_f1_difference,
    verdict_intervals,
)

LABELS = ("support", "refute", "neutral")


def _answers(n: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    gold = [rng.choice(LABELS) for _ in range(n)]
    return gold, [g if rng.random() < 0.6 else rng.choice(LABELS) for g in gold]


def test_vectorised_macro_f1_matches_the_metric_on_every_row() -> None:
    rng = np.random.default_rng(0)
    gold, predicted = _answers(200, 1)
    (g, p), labels = _coded(gold, predicted)
    draws = rng.integers(0, len(g), size=(25, len(g)))
    rows = _macro_f1_rows(g[draws], p[draws], labels)
    names = sorted(set(gold) | set(predicted))
    for row, draw in zip(rows, draws, strict=True):
        expected = macro_f1([names[i] for i in g[draw]], [names[i] for i in p[draw]], sorted(set(gold)))
        assert abs(row - expected) < 1e-12


def test_macro_f1_interval_holds_its_estimate_and_is_repeatable() -> None:
    gold, predicted = _answers(600, 2)
    interval = macro_f1_interval(gold, predicted)
    assert interval.low is not None and interval.high is not None and interval.value is not None
    assert interval.low <= interval.value <= interval.high
    assert interval == macro_f1_interval(gold, predicted)
    assert macro_f1_interval([], []).value is None


def test_a_judge_compared_with_itself_differs_by_exactly_zero() -> None:
    gold, predicted = _answers(300, 3)
    same = paired_macro_f1_difference(gold, predicted, predicted)
    assert (same.value, same.low, same.high) == (0.0, 0.0, 0.0)
    better = paired_macro_f1_difference(gold, gold, predicted)
    assert better.low is not None and better.low > 0


def test_pooled_precision_counts_claims_together_with_its_interval() -> None:
    right, wrong, undecided = ClaimOutcome(True, True), ClaimOutcome(True, False), ClaimOutcome(False, False)
    figures = verdict_intervals(
        {"a": [right] * 9 + [wrong], "b": [right] * 27 + [wrong] * 3 + [undecided] * 60}
    )
    precision, coverage = figures["decided_precision"], figures["coverage"]
    assert precision.value == 36 / 40  # pooled, not the mean of 0.9 and 0.9 by accident: see below
    assert coverage.value == 40 / 100
    assert precision.low is not None and precision.high is not None
    assert precision.low < 0.9 < precision.high and precision.replicates == REPLICATES
    skewed = verdict_intervals({"a": [right], "b": [wrong] * 3})
    assert skewed["decided_precision"].value == 0.25  # a mean of the sets' precisions would say 0.5


def test_no_decision_means_no_precision() -> None:
    figures = verdict_intervals({"a": [ClaimOutcome(False, False)] * 5})
    assert figures["decided_precision"].value is None and figures["decided_precision"].replicates == 0
    assert figures["coverage"].value == 0.0
