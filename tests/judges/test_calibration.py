"""Calibration maps and the measures of it: temperature, isotonic knots, ECE and reliability bins."""

from __future__ import annotations

import numpy as np
import pytest

from icarus.judges.calibration import Calibration, expected_calibration_error, reliability, softmax
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
