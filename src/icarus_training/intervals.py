"""Bootstrap intervals for the figures a judge is chosen and reported by.

A precision read off a few dozen decisions is a guess; these functions say how wide the guess is. Every
interval is a percentile bootstrap at ``LEVEL`` (90 %: the 5th and 95th percentiles of ``REPLICATES``
resamples, ``SEED`` fixed, so the same outcomes always give the same interval):

* ``verdict_intervals``: per-claim outcomes (decided or not, right or not) of several sets, resampled
  within each set (each set keeps its size, so the pool keeps its mix), for pooled decided precision and
  coverage;
* ``macro_f1_interval``: labelled pairs resampled whole, for macro-F1;
* ``paired_macro_f1_difference``: two judges' answers on the same pairs, resampled together, for the
  difference of their macro-F1 (an interval that excludes zero says one is better on these pairs).

A resample with no decision has no precision; it is left out of that interval, and the count of resamples
that had one is returned beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from icarus.judges.metrics import macro_f1

__all__ = [
    "LEVEL",
    "REPLICATES",
    "SEED",
    "ClaimOutcome",
    "Interval",
    "macro_f1_interval",
    "paired_macro_f1_difference",
    "verdict_intervals",
]

LEVEL = 0.90
REPLICATES = 2000
SEED = 20_261_202


@dataclass(frozen=True, slots=True)
class ClaimOutcome:
    decided: bool
    right: bool


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with its bootstrap interval; ``None`` where there is nothing to estimate."""

    value: float | None
    low: float | None
    high: float | None
    replicates: int  # resamples that had the statistic

    def to_json(self) -> dict[str, float | int | None]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "value": r(self.value),
            "low": r(self.low),
            "high": r(self.high),
            "replicates": self.replicates,
        }


def _bounds(samples: npt.NDArray[np.float64]) -> tuple[float | None, float | None]:
    if samples.size == 0:
        return None, None
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def verdict_intervals(outcomes: Mapping[str, Sequence[ClaimOutcome]]) -> dict[str, Interval]:
    """Pooled ``decided_precision`` and ``coverage`` over the sets of ``outcomes``, with intervals."""
    rng = np.random.default_rng(SEED)
    decided_sum = np.zeros(REPLICATES)
    right_sum = np.zeros(REPLICATES)
    claims = 0
    for rows in outcomes.values():
        if not rows:
            continue
        decided = np.array([o.decided for o in rows], dtype=np.float64)
        right = np.array([o.decided and o.right for o in rows], dtype=np.float64)
        draws = rng.integers(0, len(rows), size=(REPLICATES, len(rows)))
        decided_sum += decided[draws].sum(axis=1)
        right_sum += right[draws].sum(axis=1)
        claims += len(rows)
    all_rows = [o for rows in outcomes.values() for o in rows]
    decided_total = sum(o.decided for o in all_rows)
    right_total = sum(o.decided and o.right for o in all_rows)
    has = decided_sum > 0
    precision = np.divide(right_sum, decided_sum, out=np.zeros(REPLICATES), where=has)[has]
    p_low, p_high = _bounds(precision)
    c_low, c_high = _bounds(decided_sum / claims) if claims else (None, None)
    return {
        "decided_precision": Interval(
            right_total / decided_total if decided_total else None, p_low, p_high, int(has.sum())
        ),
        "coverage": Interval(
            decided_total / claims if claims else None, c_low, c_high, REPLICATES if claims else 0
        ),
    }


def _macro_f1_rows(
    gold: npt.NDArray[np.int64], predicted: npt.NDArray[np.int64], labels: Sequence[int]
) -> npt.NDArray[np.float64]:
    """Macro-F1 of each row of index-coded answers, as ``metrics.macro_f1`` computes it (a label's F1 is 0
    without a true positive), over ``labels``."""
    scores = np.zeros(gold.shape[0])
    for label in labels:
        tp = ((gold == label) & (predicted == label)).sum(axis=1)
        fp = ((gold != label) & (predicted == label)).sum(axis=1)
        fn = ((gold == label) & (predicted != label)).sum(axis=1)
        scores += np.divide(2 * tp, 2 * tp + fp + fn, out=np.zeros(len(tp)), where=tp > 0)
    return scores / len(labels)


def _coded(*answers: Sequence[str]) -> tuple[list[npt.NDArray[np.int64]], list[int]]:
    names = sorted({a for rows in answers for a in rows})
    index = {name: i for i, name in enumerate(names)}
    labels = sorted({index[a] for a in answers[0]})
    return [np.array([index[a] for a in rows], dtype=np.int64) for rows in answers], labels


def macro_f1_interval(gold: Sequence[str], predicted: Sequence[str]) -> Interval:
    """Macro-F1 of ``predicted`` against ``gold`` (over the labels ``gold`` uses) with its interval (pairs
    resampled whole)."""
    if not gold:
        return Interval(None, None, None, 0)
    (g, p), labels = _coded(gold, predicted)
    draws = np.random.default_rng(SEED).integers(0, len(g), size=(REPLICATES, len(g)))
    low, high = _bounds(_macro_f1_rows(g[draws], p[draws], labels))
    return Interval(macro_f1(list(gold), list(predicted)), low, high, REPLICATES)


def paired_macro_f1_difference(gold: Sequence[str], first: Sequence[str], second: Sequence[str]) -> Interval:
    """Macro-F1 of ``first`` minus that of ``second`` on the same pairs, with its paired interval."""
    if not gold:
        return Interval(None, None, None, 0)
    (g, a, b), labels = _coded(gold, first, second)
    draws = np.random.default_rng(SEED).integers(0, len(g), size=(REPLICATES, len(g)))
    samples = _macro_f1_rows(g[draws], a[draws], labels) - _macro_f1_rows(g[draws], b[draws], labels)
    low, high = _bounds(samples)
    return Interval(
        macro_f1(list(gold), list(first)) - macro_f1(list(gold), list(second)), low, high, REPLICATES
    )
