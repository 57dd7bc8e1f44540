"""Scores for three-way stance answers: macro-F1, accuracy, per-class F1, the confusion table, and the
precision and recall of side calls by confidence (``side_calls``)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

__all__ = [
    "LABELS",
    "SIDES",
    "SIDE_CALL_THRESHOLDS",
    "accuracy",
    "confusion",
    "f1_by_label",
    "macro_f1",
    "side_calls",
]

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


SIDES = ("support", "refute")
SIDE_CALL_THRESHOLDS: tuple[Decimal, ...] = (
    Decimal("0.00"),
    *(Decimal(f"0.{n}") for n in range(50, 100, 5)),
)
"""The confidence floors a side-call table has rows for: every call (0.00), then 0.50, 0.55, … 0.95."""


def side_calls(
    gold: Sequence[str],
    predicted: Sequence[str],
    confidence: Sequence[Decimal | float],
    thresholds: Sequence[Decimal] = SIDE_CALL_THRESHOLDS,
) -> dict[str, Any]:
    """Precision and recall of the judge's side calls, each side on its own, at each confidence floor.

    A side call is an answer of ``support`` or ``refute``; at floor ``t`` only the calls whose confidence
    is at least ``t`` count (a policy that treats the rest as neutral). For each side and floor: ``calls``
    (answers of that side at or over the floor), ``right`` (those whose gold stance is that side),
    ``precision`` = right / calls and ``recall`` = right / the pairs whose gold stance is that side; a
    ratio with nothing to divide by is None. Confidences are compared exactly, as decimals.
    """
    if not len(gold) == len(predicted) == len(confidence):
        raise ValueError("gold, predicted and confidence must pair up")
    stated = [c if isinstance(c, Decimal) else Decimal(repr(c)) for c in confidence]
    table: dict[str, Any] = {"gold": {side: sum(g == side for g in gold) for side in SIDES}}
    for side in SIDES:
        rows = []
        for floor in thresholds:
            made = [g for g, p, c in zip(gold, predicted, stated, strict=True) if p == side and c >= floor]
            right = sum(g == side for g in made)
            rows.append(
                {
                    "threshold": float(floor),
                    "calls": len(made),
                    "right": right,
                    "precision": round(right / len(made), 4) if made else None,
                    "recall": round(right / table["gold"][side], 4) if table["gold"][side] else None,
                }
            )
        table[side] = rows
    return table
