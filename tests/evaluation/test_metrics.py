"""The metric functions, checked against scikit-learn and at their boundaries."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

from icarus.evaluation import metrics

LABELS = list(metrics.CLAIM_LABEL_ORDER)
label_lists = st.integers(min_value=1, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(LABELS), min_size=n, max_size=n),
        st.lists(st.sampled_from(LABELS), min_size=n, max_size=n),
    )
)


@settings(max_examples=150, deadline=None)
@given(label_lists)
def test_accuracy_macro_f1_and_confusion_match_scikit_learn(pair: tuple[list[str], list[str]]) -> None:
    gold, predicted = pair
    assert metrics.accuracy(gold, predicted) == pytest.approx(accuracy_score(gold, predicted))
    expected_f1 = f1_score(gold, predicted, labels=sorted(set(gold)), average="macro", zero_division=0)
    assert metrics.macro_f1(gold, predicted) == pytest.approx(expected_f1)
    matrix = confusion_matrix(gold, predicted, labels=LABELS)
    ours = metrics.confusion(gold, predicted)
    assert [[ours[g][p] for p in LABELS] for g in LABELS] == matrix.tolist()


@settings(max_examples=100, deadline=None)
@given(label_lists)
def test_coverage_and_unverifiable_rate_partition_the_claims(pair: tuple[list[str], list[str]]) -> None:
    gold, predicted = pair
    coverage, unverifiable = metrics.coverage(predicted), metrics.unverifiable_rate(predicted)
    assert coverage is not None and unverifiable is not None
    assert coverage + unverifiable == pytest.approx(1.0)
    decided = [(g, p) for g, p in zip(gold, predicted, strict=True) if p != "unverifiable"]
    precision = metrics.decided_precision(gold, predicted)
    if decided:
        assert precision == pytest.approx(accuracy_score(*zip(*decided, strict=True)))
    else:
        assert precision is None


def test_decided_precision_ignores_unverifiable_predictions() -> None:
    gold = ["supported", "not_supported", "unverifiable", "supported"]
    predicted = ["supported", "supported", "unverifiable", "unverifiable"]
    assert metrics.decided_precision(gold, predicted) == 0.5
    assert metrics.coverage(predicted) == 0.5
    assert metrics.accuracy(gold, predicted) == 0.5


def test_ratios_over_nothing_are_none_not_zero() -> None:
    assert metrics.accuracy([], []) is None
    assert metrics.macro_f1([], []) is None
    assert metrics.coverage([]) is None
    assert metrics.unverifiable_rate([]) is None
    assert metrics.decided_precision(["supported"], ["unverifiable"]) is None


def test_macro_f1_averages_over_gold_labels_only() -> None:
    # No gold ⚠️: a set without that class is not marked down for it; the wrong ⚠️ still costs ✅ its recall.
    gold = ["supported", "supported", "not_supported"]
    predicted = ["supported", "misleading", "not_supported"]
    assert metrics.macro_f1(gold, predicted) == pytest.approx((2 / 3 + 1.0) / 2)


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError, match="2 gold labels but 1 predictions"):
        metrics.accuracy(["supported", "supported"], ["supported"])


def test_per_band_counts_accuracy_and_decided_precision() -> None:
    gold = ["supported", "not_supported", "unverifiable", "supported"]
    predicted = ["supported", "supported", "unverifiable", "unverifiable"]
    bands = ["high", "high", "low", "low"]
    result = metrics.per_band(gold, predicted, bands)
    assert result["high"] == {"n": 2, "accuracy": 0.5, "decided": 2, "decided_precision": 0.5}
    assert result["medium"] == {"n": 0, "accuracy": None, "decided": 0, "decided_precision": None}
    assert result["low"] == {"n": 2, "accuracy": 0.5, "decided": 0, "decided_precision": None}


def test_reliability_bins_decided_claims_by_score_with_one_in_the_last_bin() -> None:
    gold = ["supported", "supported", "not_supported", "supported"]
    predicted = ["supported", "not_supported", "not_supported", "unverifiable"]
    scores = [1.0, 0.95, 0.1, 0.5]
    bins = metrics.reliability(gold, predicted, scores)
    assert len(bins) == metrics.RELIABILITY_BINS
    assert (bins[1].low, bins[1].n, bins[1].accuracy) == (0.1, 1, 1.0)  # 0.1 opens the second bin
    assert bins[5].n == 0  # the unverifiable claim at 0.5 is not plotted
    assert (bins[-1].n, bins[-1].accuracy, bins[-1].mean_confidence) == (2, 0.5, pytest.approx(0.975))


def test_reliability_puts_a_score_on_an_edge_in_the_bin_that_starts_there() -> None:
    gold = ["supported"] * 3
    bins = metrics.reliability(gold, gold, [0.3, 0.7, 0.2999])
    assert [(b.low, b.n) for b in bins if b.n] == [(0.2, 1), (0.3, 1), (0.7, 1)]
    with pytest.raises(ValueError, match="outside"):
        metrics.reliability(gold, gold, [0.3, 0.7, 1.5])


def test_firing_counts_count_each_code_once_per_claim() -> None:
    counts = metrics.firing_counts([("H4", "rule-6", "H4"), ("G3", "H4"), ()])
    assert counts == {"H4": 2, "G3": 1, "rule-6": 1}
    assert list(counts) == ["H4", "G3", "rule-6"]  # most frequent first, then by code


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_matches_scipy(counts: tuple[int, int]) -> None:
    from scipy.stats import binomtest

    successes, n = counts
    expected = binomtest(successes, n).proportion_ci(confidence_level=0.90, method="wilson")
    low, high = metrics.wilson_interval(successes, n)  # type: ignore[misc]
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)
    assert low <= successes / n <= high


def test_wilson_interval_boundaries() -> None:
    assert metrics.wilson_interval(0, 0) is None
    low, high = metrics.wilson_interval(0, 10, z=1.96)  # type: ignore[misc]
    assert low == 0.0 and high == pytest.approx(3.8416 / 13.8416)
    # Two right of two says little: the interval reaches well below 0.5.
    assert metrics.wilson_interval(2, 2)[0] < 0.45  # type: ignore[index]
    with pytest.raises(ValueError):
        metrics.wilson_interval(3, 2)


def test_decided_counts_are_the_counts_behind_the_shares() -> None:
    gold = ["supported", "not_supported", "supported", "misleading"]
    predicted = ["supported", "supported", "unverifiable", "misleading"]
    assert metrics.decided_counts(gold, predicted) == (3, 2)
    assert metrics.coverage(predicted) == 3 / 4
    assert metrics.decided_precision(gold, predicted) == 2 / 3
