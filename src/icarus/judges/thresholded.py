"""The cross-encoder with side-call thresholds: ``offline-minilm@3``.

The policy needs side calls that are right more than it needs many of them: a wrong confident refute makes a
false ⚠️ or ❌. ``offline-minilm@3`` is ``offline-minilm@2`` (the same model, the same figure rule) whose
support and refute answers below a per-side confidence floor are answered neutral instead. The floors are
chosen for verdict precision at the widest coverage, not for macro-F1: ``icarus_training.thresholds``
scores AVeriTeC's ``tune`` half (gold evidence) under every pair of floors on a grid and keeps the pair that
decides the most claims with decided precision at least the target (``make select-judge-thresholds``). No
shipped judge was trained on AVeriTeC, and the ``dev`` half measures the choice.

The floors, how they were chosen and the base judge's calibration id are stored in
``weights/offline-minilm-3.json``. Loading refuses a record made for another calibration: floors chosen
for other confidences would mean nothing.

A demoted answer keeps the base answer's hops, scope and prompt hash; its stance is neutral and its
confidence is what the base answer left for "not that side" (one minus its confidence), and its raw answer
records the base answer and the floor it fell under. An answer at or over its floor is the base answer,
restamped with this judge's name and calibration id.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.packaged import WeightsError
from icarus.judges.parallel import WrappedTwin
from icarus.judges.protocol import (
    AttributionVerdict,
    Judge,
    JudgeRequest,
    StanceVerdict,
    component_answer,
    restamped,
)
from icarus.ledger.judgments import JudgeProvenance, Stance

__all__ = [
    "BASE_JUDGE",
    "PROVIDER",
    "RECORD_NAME",
    "VERSION",
    "SideThresholds",
    "ThresholdedJudge",
    "below_floor",
    "load_thresholds",
    "thresholds_file",
]

PROVIDER = "offline-minilm"
VERSION = "3"
RECORD_NAME = "offline-minilm-3"
BASE_JUDGE = "offline-minilm@2"
_SIDES = (Stance.SUPPORT, Stance.REFUTE)


@dataclass(frozen=True, slots=True)
class SideThresholds:
    """The confidence floor of each side, and the calibration of the base judge they were chosen for."""

    support: Decimal
    refute: Decimal
    base_calibration_id: str
    metadata: dict[str, Any]

    def floor(self, stance: Stance) -> Decimal:
        return self.support if stance is Stance.SUPPORT else self.refute

    @property
    def calibration_id(self) -> str:
        payload = json.dumps(
            {"support": str(self.support), "refute": str(self.refute), "base": self.base_calibration_id},
            sort_keys=True,
        ).encode()
        return f"{RECORD_NAME}-{hashlib.sha256(payload).hexdigest()[:12]}"


def thresholds_file(folder: Path | None = None) -> Path:
    base = folder if folder is not None else Path(str(resources.files("icarus.judges") / "weights"))
    return base / f"{RECORD_NAME}.json"


def _floor(value: object, side: str, name: str) -> Decimal:
    if not isinstance(value, str):
        raise WeightsError(f"{name}: the {side} floor must be a decimal written as a string, not {value!r}")
    floor = Decimal(value)
    if not Decimal(0) <= floor <= Decimal(1):
        raise WeightsError(f"{name}: the {side} floor {value} is not a probability")
    return floor


def load_thresholds(path: Path | None = None) -> SideThresholds:
    """The record ``icarus_training.thresholds`` writes; a ``WeightsError`` if it is missing or
    unreadable. Whether the base judge still has the recorded calibration is checked by the judge."""
    path = path if path is not None else thresholds_file()
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
        floors = metadata["thresholds"]
        support = _floor(floors["support"], "support", path.name)
        refute = _floor(floors["refute"], "refute", path.name)
        base_id = str(metadata["base_calibration_id"])
    except FileNotFoundError as exc:
        raise WeightsError(f"side-call thresholds not found: {path}") from exc
    except WeightsError:
        raise
    except (OSError, ArithmeticError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise WeightsError(f"{path.name} holds no usable side-call thresholds: {exc}") from exc
    return SideThresholds(support, refute, base_id, metadata)


def below_floor(verdict: StanceVerdict, thresholds: SideThresholds) -> bool:
    """Whether ``verdict`` takes a side with less confidence than that side's floor (equal is enough)."""
    return verdict.stance in _SIDES and verdict.confidence < thresholds.floor(verdict.stance)


@cache
def _shared_thresholds() -> SideThresholds:
    return load_thresholds()


class ThresholdedJudge:
    """A ``Judge`` that answers as ``offline-minilm@2`` but neutral for side calls under their floor (module
    docstring). Deterministic, offline."""

    def __init__(self, base: Judge | None = None, thresholds: SideThresholds | None = None) -> None:
        self.base: Judge = base if base is not None else OfflineMiniLMJudge(read_figures=True)
        self.thresholds = thresholds if thresholds is not None else _shared_thresholds()
        base_id = str(getattr(self.base, "calibration_id", ""))
        if base_id != self.thresholds.base_calibration_id:
            raise WeightsError(
                f"the side-call thresholds were chosen for a base judge calibrated as "
                f"{self.thresholds.base_calibration_id}, but it now is {base_id}: choose them again "
                "(make select-judge-thresholds)"
            )
        self.calibration_id = self.thresholds.calibration_id
        self.provenance = JudgeProvenance(
            provider=PROVIDER, version=VERSION, calibration_id=self.calibration_id
        )
        self._twin = WrappedTwin(lambda worker: ThresholdedJudge(worker, self.thresholds))

    def __repr__(self) -> str:
        return (
            f"ThresholdedJudge({PROVIDER}@{VERSION}, support>={self.thresholds.support}, "
            f"refute>={self.thresholds.refute})"
        )

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """The base judge's twin (``judges.parallel``) behind the same floors, which hold no state."""
        return self._twin.plan(self, self.base, requests)

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        verdict = self.base.stance(request)
        raw: dict[str, Any] = {"base": component_answer(verdict, str)}
        neutral = verdict.failure is None and below_floor(verdict, self.thresholds)
        if neutral:
            raw["below_floor"] = {
                "side": verdict.stance.value,
                "floor": str(self.thresholds.floor(verdict.stance)),
            }
        return restamped(verdict, self.provenance, raw, neutral=neutral)

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, self.calibration_id)
