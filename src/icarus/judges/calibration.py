"""Turning a trained head's raw scores into probabilities a reader can take at their word.

Two steps, both fitted on held-out pairs the head never trained on and stored with the judge's weights:

1. temperature scaling: ``softmax(logits / T)``, one number that makes the class probabilities less (or
   more) sure without changing which class wins;
2. an isotonic map of the winning probability onto the share of held-out answers that were right at that
   probability (``np.interp`` over the stored knots: monotone, so a surer answer never reads less sure).

The result is the verdict's confidence: the probability that the stance is right. Expected calibration
error (ECE) measures how far stated confidence sits from accuracy, over ``ECE_BINS`` equal-width bins.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "ECE_BINS",
    "Calibration",
    "ReliabilityBin",
    "bin_index",
    "expected_calibration_error",
    "reliability",
    "softmax",
]

ECE_BINS = 10

FloatArray = npt.NDArray[np.float64]


def softmax(logits: npt.ArrayLike) -> FloatArray:
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    result: FloatArray = e / e.sum(axis=-1, keepdims=True)
    return result


@dataclass(frozen=True, slots=True)
class Calibration:
    """A fitted temperature and isotonic knots; ``calibration_id`` names them for the ledger."""

    name: str
    temperature: float
    knots_x: tuple[float, ...]
    knots_y: tuple[float, ...]

    def __post_init__(self) -> None:
        if self.temperature <= 0:
            raise ValueError("temperature must be positive")
        if len(self.knots_x) != len(self.knots_y) or not self.knots_x:
            raise ValueError("isotonic knots must pair up and not be empty")
        if any(b < a for a, b in zip(self.knots_x, self.knots_x[1:], strict=False)) or any(
            b < a for a, b in zip(self.knots_y, self.knots_y[1:], strict=False)
        ):
            raise ValueError("isotonic knots must be non-decreasing")

    @property
    def calibration_id(self) -> str:
        payload = json.dumps(
            {"t": self.temperature, "x": self.knots_x, "y": self.knots_y}, sort_keys=True
        ).encode()
        return f"{self.name}-ts-iso-{hashlib.sha256(payload).hexdigest()[:12]}"

    def probabilities(self, logits: npt.ArrayLike) -> FloatArray:
        """Class probabilities after temperature scaling."""
        return softmax(np.asarray(logits, dtype=np.float64) / self.temperature)

    def confidence(self, top_probability: npt.ArrayLike) -> FloatArray:
        """The calibrated probability that the winning class is right."""
        values = np.interp(np.asarray(top_probability, dtype=np.float64), self.knots_x, self.knots_y)
        result: FloatArray = np.clip(values, 0.0, 1.0)
        return result

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "temperature": self.temperature,
            "knots_x": list(self.knots_x),
            "knots_y": list(self.knots_y),
            "calibration_id": self.calibration_id,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Calibration:
        knots_x, knots_y = data["knots_x"], data["knots_y"]
        assert isinstance(knots_x, list) and isinstance(knots_y, list)
        calibration = cls(
            name=str(data["name"]),
            temperature=float(str(data["temperature"])),
            knots_x=tuple(float(v) for v in knots_x),
            knots_y=tuple(float(v) for v in knots_y),
        )
        if data.get("calibration_id") not in (None, calibration.calibration_id):
            raise ValueError("stored calibration id does not match its parameters")
        return calibration


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    mean_confidence: float
    accuracy: float


def bin_index(values: npt.ArrayLike, bins: int = ECE_BINS) -> npt.NDArray[np.intp]:
    """The equal-width bin of each value in [0, 1]: ``floor(value × bins)``, with 1.0 in the last bin.

    Bin ``b`` holds ``[b / bins, (b + 1) / bins)``, so a value on an edge goes to the bin that starts there
    (0.7 to [0.7, 0.8), not [0.6, 0.7)). The product is rounded to nine decimals before the floor, so that
    floating-point error in it cannot move an edge value down a bin. NaN, a value outside [0, 1] or fewer
    than one bin is a ValueError.
    """
    if bins < 1:
        raise ValueError(f"need at least one bin, not {bins}")
    scaled = np.asarray(values, dtype=np.float64)
    if np.isnan(scaled).any():
        raise ValueError("a confidence is NaN; confidences must be numbers in [0, 1]")
    outside = (scaled < 0.0) | (scaled > 1.0)
    if outside.any():
        raise ValueError(f"confidence {scaled[outside][0]} is outside [0, 1]")
    index: npt.NDArray[np.intp] = np.minimum(np.floor(np.round(scaled * bins, 9)), bins - 1).astype(np.intp)
    return index


def reliability(
    confidences: npt.ArrayLike, correct: npt.ArrayLike, bins: int = ECE_BINS
) -> list[ReliabilityBin]:
    """Answers grouped by stated confidence in ``bins`` equal-width bins (the last one closed; see
    ``bin_index``). Confidences and correct flags must pair up."""
    conf = np.asarray(confidences, dtype=np.float64).reshape(-1)
    right = np.asarray(correct, dtype=np.float64).reshape(-1)
    if len(conf) != len(right):
        raise ValueError(f"{len(conf)} confidences but {len(right)} correct flags")
    index = bin_index(conf, bins)
    out = []
    for b in range(bins):
        mask = index == b
        count = int(mask.sum())
        out.append(
            ReliabilityBin(
                low=b / bins,
                high=(b + 1) / bins,
                count=count,
                mean_confidence=float(conf[mask].mean()) if count else 0.0,
                accuracy=float(right[mask].mean()) if count else 0.0,
            )
        )
    return out


def expected_calibration_error(
    confidences: npt.ArrayLike, correct: npt.ArrayLike, bins: int = ECE_BINS
) -> float:
    """Σ over bins of (share of answers in the bin) × |accuracy − mean confidence|; 0 with no answers."""
    table = reliability(confidences, correct, bins)
    total = sum(b.count for b in table)
    if total == 0:
        return 0.0
    return sum(b.count / total * abs(b.accuracy - b.mean_confidence) for b in table)
