"""Scores for three-way stance answers: macro-F1, accuracy, per-class F1 and the confusion table."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["LABELS", "accuracy", "confusion", "f1_by_label", "macro_f1"]

LABELS = ("support", "refute", "neutral")


def f1_by_label(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    """F1 of each label; a label never predicted and never gold scores 0 (``macro_f1`` leaves such a label
    out of its mean unless asked for it by ``labels``)."""
    if len(gold) != len(predicted):
        raise ValueError("gold and predicted must pair up")
    scores = {}
    for label in LABELS:
        tp = sum(g == p == label for g, p in zip(gold, predicted, strict=True))
        fp = sum(p == label != g for g, p in zip(gold, predicted, strict=True))
        fn = sum(g == label != p for g, p in zip(gold, predicted, strict=True))
        scores[label] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return scores


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str] | None = None) -> float:
    """Unweighted mean of the per-label F1 over ``labels``; by default the labels that occur in ``gold``
    (a set with no neutral pairs, like CovidFact, is not marked down for a class it cannot have)."""
    scores = f1_by_label(gold, predicted)
    chosen = labels if labels is not None else [label for label in LABELS if label in set(gold)]
    return sum(scores[label] for label in chosen) / len(chosen) if chosen else 0.0


def accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float:
    if len(gold) != len(predicted):
        raise ValueError("gold and predicted must pair up")
    return sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold) if gold else 0.0


def confusion(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, dict[str, int]]:
    """``table[gold][predicted]`` counts over the three labels."""
    table = {g: dict.fromkeys(LABELS, 0) for g in LABELS}
    for g, p in zip(gold, predicted, strict=True):
        table[g][p] += 1
    return table
