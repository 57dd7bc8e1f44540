"""A small trained classifier over pair features, run with numpy alone.

``standardise → (dense → ReLU)* → dense`` gives one logit per class in ``CLASSES`` order. A logistic
regression is the case with no hidden layer. Weights live in one ``.npz`` file: ``mean``, ``scale``, and
``w0, b0, w1, b1, …`` in layer order. Products use ``np.einsum`` rather than BLAS: one pair at a time is
the judge's usual load, and BLAS threads only contend for a small, busy CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["CLASSES", "StanceHead"]

CLASSES = ("support", "refute", "neutral")

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class StanceHead:
    mean: Array
    scale: Array
    layers: tuple[tuple[Array, Array], ...]

    def __post_init__(self) -> None:
        if not self.layers:
            raise ValueError("a head needs at least one layer")
        width = self.mean.shape[0]
        for weights, bias in self.layers:
            if weights.shape[0] != width or bias.shape != (weights.shape[1],):
                raise ValueError("layer shapes do not chain")
            width = weights.shape[1]
        if width != len(CLASSES):
            raise ValueError(f"the last layer must give {len(CLASSES)} logits")

    @property
    def input_width(self) -> int:
        return int(self.mean.shape[0])

    def logits(self, features: npt.ArrayLike) -> npt.NDArray[np.float64]:
        x = (np.asarray(features, dtype=np.float32) - self.mean) / self.scale
        squeeze = x.ndim == 1
        x = np.atleast_2d(x)
        for i, (weights, bias) in enumerate(self.layers):
            x = np.einsum("nd,dh->nh", x, weights) + bias
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        out = x.astype(np.float64)
        return out[0] if squeeze else out

    def save(self, path: Path) -> None:
        arrays: dict[str, Array] = {"mean": self.mean, "scale": self.scale}
        for i, (weights, bias) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = weights, bias
        with path.open("wb") as handle:
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> StanceHead:
        with np.load(path, allow_pickle=False) as data:
            layers: list[tuple[Array, Array]] = []
            while f"w{len(layers)}" in data:
                i = len(layers)
                layers.append((data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32)))
            return cls(data["mean"].astype(np.float32), data["scale"].astype(np.float32), tuple(layers))
