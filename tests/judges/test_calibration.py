"""Calibration maps and the measures of it: temperature, isotonic knots, ECE and reliability bins."""

from __future__ import annotations

import numpy as np
import pytest

from icarus.judges.calibration import (
    Calibration,
    bin_index,
    expected_calibration_error,
    reliability,
    softmax,
)
from icarus.judges.metrics import accuracy, confusion, f1_by_label, macro_f1


def test_temperature_softens_without_changing_the_winner() -> None:
    logits = np.array([[2.0, 0.5, -1.0]])
    sharp = Calibration("x", 1.0, (0.0, 1.0), (0.0, 1.0)).probabilities(logits)
    soft = Calibration("x", 3.0, (0.0, 1.0), (0.0, 1.0)).probabilities(logits)
    assert np.allclose(sharp, softmax(logits))
    assert soft.argmax() == sharp.argmax() == 0 and soft.max() < sharp.max()


def test_isotonic_knots_interpolate_and_clamp() -> None:
    c = Calibration("x", 1.0, (0.4, 0.6, 0.9), (0.3, 0.5, 0.8))
    assert c.confidence(0.5) == pytest.approx(0.4)
    assert c.confidence(0.1) == pytest.approx(0.3)  # below the first knot: the first value
    assert c.confidence(1.0) == pytest.approx(0.8)


def test_bad_calibrations_are_refused_and_ids_follow_parameters() -> None:
    with pytest.raises(ValueError):
        Calibration("x", 0.0, (0.0,), (0.0,))
    with pytest.raises(ValueError):
        Calibration("x", 1.0, (0.0, 1.0), (0.9, 0.1))
    a = Calibration("x", 1.0, (0.0, 1.0), (0.0, 1.0))
    assert a.calibration_id.startswith("x-ts-iso-")
    assert a.calibration_id != Calibration("x", 1.5, (0.0, 1.0), (0.0, 1.0)).calibration_id
    assert Calibration.from_json(a.to_json()) == a
    tampered = {**a.to_json(), "temperature": 2.0}
    with pytest.raises(ValueError, match="does not match"):
        Calibration.from_json(tampered)


def test_ece_is_zero_when_confidence_equals_accuracy_and_one_when_sure_and_wrong() -> None:
    assert expected_calibration_error([0.75] * 4, [True, True, True, False]) == pytest.approx(0.0)
    assert expected_calibration_error([1.0, 1.0], [False, False]) == pytest.approx(1.0)
    assert expected_calibration_error([], []) == 0.0


def test_reliability_bins_are_half_open_with_the_last_closed() -> None:
    bins = reliability([0.0, 0.1, 0.999, 1.0], [True, True, True, True], bins=10)
    assert [b.count for b in bins] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 2]


def test_confidences_on_an_edge_go_to_the_bin_that_starts_there() -> None:
    # np.linspace(0, 1, 11) gives 0.30000000000000004, 0.6000000000000001 and 0.7000000000000001 as
    # edges, which once put 0.3, 0.6 and 0.7 one bin too low
    bins = reliability([0.3, 0.6, 0.7], [True, True, True], bins=10)
    assert [(b.low, b.count) for b in bins if b.count] == [(0.3, 1), (0.6, 1), (0.7, 1)]
    assert list(bin_index([0.3, 0.6, 0.7], 10)) == [3, 6, 7]


def test_a_confidence_just_under_an_edge_stays_below_it_and_one_is_in_the_last_bin() -> None:
    assert list(bin_index([0.2999, 0.0, 0.05, 0.99, 1.0], 10)) == [2, 0, 0, 9, 9]
    last = reliability([1.0], [True], bins=10)[-1]
    assert (last.low, last.high, last.count) == (0.9, 1.0, 1)


def test_bin_edges_are_exact_fractions() -> None:
    edges = [(b.low, b.high) for b in reliability([], [], bins=10)]
    assert edges == [(b / 10, (b + 1) / 10) for b in range(10)]


def test_nan_or_out_of_range_confidences_and_unpaired_flags_are_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        expected_calibration_error([0.5, float("nan")], [True, False])
    with pytest.raises(ValueError, match="outside"):
        expected_calibration_error([0.5, 1.5], [True, False])
    with pytest.raises(ValueError, match="outside"):
        reliability([-0.1], [True])
    with pytest.raises(ValueError, match="2 confidences but 1 correct"):
        reliability([0.5, 0.6], [True])


def test_ece_by_hand_on_a_tiny_example() -> None:
    # bin [0.3, 0.4): 0.3 right, 0.35 wrong -> mean confidence 0.325, accuracy 0.5, |gap| 0.175, share 2/4
    # bin [0.7, 0.8): 0.7 right -> |gap| 0.3, share 1/4;  bin [0.9, 1.0]: 0.9 right -> |gap| 0.1, share 1/4
    expected = 2 / 4 * 0.175 + 1 / 4 * 0.3 + 1 / 4 * 0.1  # 0.1875
    ece = expected_calibration_error([0.3, 0.35, 0.7, 0.9], [True, False, True, True])
    assert ece == pytest.approx(expected, abs=1e-12)
    # with 0.3 and 0.7 one bin too low, as before the fix, it would have read 0.3625


def test_stance_metrics_match_scikit_learn() -> None:
    from sklearn.metrics import accuracy_score, f1_score

    gold = ["support", "refute", "neutral", "neutral", "support", "refute", "neutral"]
    predicted = ["support", "neutral", "neutral", "support", "support", "refute", "refute"]
    labels = ["support", "refute", "neutral"]
    assert macro_f1(gold, predicted) == pytest.approx(
        f1_score(gold, predicted, labels=labels, average="macro")
    )
    assert accuracy(gold, predicted) == pytest.approx(accuracy_score(gold, predicted))
    assert f1_by_label(gold, predicted)["refute"] == pytest.approx(0.5)
    assert confusion(gold, predicted)["neutral"] == {"support": 1, "refute": 1, "neutral": 1}


def test_macro_f1_averages_only_the_labels_the_gold_side_uses() -> None:
    assert macro_f1(["support", "refute"], ["support", "refute"]) == 1.0
    assert macro_f1(
        ["support", "refute"], ["support", "refute"], labels=["support", "refute", "neutral"]
    ) == (pytest.approx(2 / 3))
