"""The numbers an evaluation reports, as pure functions of gold and predicted labels.

Labels are plain strings (the published label values, or stance values). Macro-F1 averages per-label F1
over the labels the gold side uses, so a set without, say, gold ⚠️ claims is not marked down for a class it
does not contain; a wrong prediction still costs the gold class its recall. A ratio with nothing to divide
by is ``None`` (JSON null), never 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from icarus.judges.calibration import bin_index

__all__ = [
    "CLAIM_LABEL_ORDER",
    "RELIABILITY_BINS",
    "UNVERIFIABLE",
    "ReliabilityBin",
    "accuracy",
    "confusion",
    "coverage",
    "decided_counts",
    "decided_precision",
    "firing_counts",
    "macro_f1",
    "per_band",
    "per_label_f1",
    "reliability",
    "unverifiable_rate",
    "wilson_interval",
]

UNVERIFIABLE = "unverifiable"
CLAIM_LABEL_ORDER = ("supported", "misleading", "not_supported", "unverifiable")
BAND_ORDER = ("high", "medium", "low")
RELIABILITY_BINS = 10
# Two-sided 90 % intervals, the level every evaluation figure in the docs is stated at.
Z_90 = 1.6448536269514722


def _pairs(gold: Sequence[str], predicted: Sequence[str]) -> list[tuple[str, str]]:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    return list(zip(gold, predicted, strict=True))


def accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float | None:
    pairs = _pairs(gold, predicted)
    return sum(g == p for g, p in pairs) / len(pairs) if pairs else None


def per_label_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, float]:
    """F1 of each label; 0 where the label has no true positives (as scikit-learn's zero_division=0)."""
    pairs = _pairs(gold, predicted)
    scores: dict[str, float] = {}
    for label in labels:
        tp = sum(g == p == label for g, p in pairs)
        fp = sum(p == label != g for g, p in pairs)
        fn = sum(g == label != p for g, p in pairs)
        scores[label] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return scores


def macro_f1(gold: Sequence[str], predicted: Sequence[str]) -> float | None:
    """Unweighted mean of per-label F1 over the labels that occur in ``gold``."""
    labels = sorted(set(gold))
    if not labels:
        return None
    scores = per_label_f1(gold, predicted, labels)
    return sum(scores.values()) / len(scores)


def confusion(
    gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str] = CLAIM_LABEL_ORDER
) -> dict[str, dict[str, int]]:
    """gold label → predicted label → count, every listed label present (zeros included)."""
    counts = Counter(_pairs(gold, predicted))
    return {g: {p: counts[(g, p)] for p in labels} for g in labels}


def coverage(predicted: Sequence[str]) -> float | None:
    """Share of claims given a decided label (anything but ❔)."""
    return sum(p != UNVERIFIABLE for p in predicted) / len(predicted) if predicted else None


def unverifiable_rate(predicted: Sequence[str]) -> float | None:
    return sum(p == UNVERIFIABLE for p in predicted) / len(predicted) if predicted else None


def decided_precision(gold: Sequence[str], predicted: Sequence[str]) -> float | None:
    """Of the claims given a decided label, the share whose label is right."""
    decided = [(g, p) for g, p in _pairs(gold, predicted) if p != UNVERIFIABLE]
    return sum(g == p for g, p in decided) / len(decided) if decided else None


def decided_counts(gold: Sequence[str], predicted: Sequence[str]) -> tuple[int, int]:
    """(decided claims, right ones among them): the counts behind coverage and decided precision."""
    decided = [(g, p) for g, p in _pairs(gold, predicted) if p != UNVERIFIABLE]
    return len(decided), sum(g == p for g, p in decided)


def wilson_interval(successes: int, n: int, z: float = Z_90) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (90 % by default); ``None`` when there is nothing to count.

    Chosen over a percentile bootstrap because the counts here are often tiny: 2 right of 2 bootstraps to
    the single point 1.0, while Wilson gives [0.43, 1.00], which says how little two decisions show.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n}")
    if n == 0:
        return None
    share = successes / n
    spread = z * z / n
    centre = (share + spread / 2) / (1 + spread)
    half = z * ((share * (1 - share) + spread / 4) / n) ** 0.5 / (1 + spread)
    # At 0 or n the bound is exactly 0 or 1; the closed form leaves float noise there.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def per_band(
    gold: Sequence[str], predicted: Sequence[str], bands: Sequence[str]
) -> dict[str, dict[str, float | int | None]]:
    """For each confidence band: how many claims, their accuracy, how many were decided and how precise."""
    rows = _pairs(gold, predicted)
    if len(bands) != len(rows):
        raise ValueError(f"{len(bands)} bands for {len(rows)} claims")
    result: dict[str, dict[str, float | int | None]] = {}
    for band in BAND_ORDER:
        in_band = [(g, p) for (g, p), b in zip(rows, bands, strict=True) if b == band]
        golds = [g for g, _ in in_band]
        preds = [p for _, p in in_band]
        result[band] = {
            "n": len(in_band),
            "accuracy": accuracy(golds, preds),
            "decided": sum(p != UNVERIFIABLE for p in preds),
            "decided_precision": decided_precision(golds, preds),
        }
    return result


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    n: int
    mean_confidence: float | None
    accuracy: float | None


def reliability(
    gold: Sequence[str], predicted: Sequence[str], scores: Sequence[float], bins: int = RELIABILITY_BINS
) -> list[ReliabilityBin]:
    """Accuracy of the decided claims grouped by the policy's confidence score (equal-width bins on
    [0, 1], as ``icarus.judges.calibration.bin_index`` assigns them: a score on an edge opens the bin that
    starts there, and a score of exactly 1 falls in the last bin). A calibrated score lies on the diagonal."""
    rows = [
        (g == p, s) for (g, p), s in zip(_pairs(gold, predicted), scores, strict=True) if p != UNVERIFIABLE
    ]
    where = bin_index([s for _, s in rows], bins).tolist()
    result: list[ReliabilityBin] = []
    for index in range(bins):
        low, high = index / bins, (index + 1) / bins
        inside = [row for row, b in zip(rows, where, strict=True) if b == index]
        result.append(
            ReliabilityBin(
                low=low,
                high=high,
                n=len(inside),
                mean_confidence=sum(s for _, s in inside) / len(inside) if inside else None,
                accuracy=sum(ok for ok, _ in inside) / len(inside) if inside else None,
            )
        )
    return result


def firing_counts(fired: Sequence[Sequence[str]]) -> dict[str, int]:
    """For each rule or gate code, on how many claims it fired (once per claim), most frequent first."""
    counts = Counter(code for codes in fired for code in set(codes))
    return dict(sorted(counts.items(), key=lambda pair: (-pair[1], pair[0])))
