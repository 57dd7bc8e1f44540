"""A screened judge: the fast embedding judge answers the pairs it calls unrelated, the cross-encoder the rest.

Most passages a check or an evaluation puts to a judge do not bear on the claim. The WordLlama judge
(``offline-wordllama@1``, numpy only) reads a pair about five times faster than the cross-encoder
(``offline-minilm@2``) and is at least as good at telling that a passage is beside the point. So each request
goes to the WordLlama judge first (the *screen*); when it answers neutral with a calibrated confidence of at
least the fitted threshold, and no figure in any candidate passage settles a side (``figures.figure_side``,
which the cross-encoder's version would act on), that answer stands. Every other request goes to the
cross-encoder (the *decider*) as if the screen had not been asked.

The threshold and one isotonic confidence map per branch are fitted on the validation split by
``icarus_training.cascade`` and stored in ``weights/offline-cascade-1.json`` with the calibration ids
of the two judges they were fitted against. Loading refuses a record whose components have since changed:
a threshold chosen for other confidences would mean nothing. The maps are needed because a branch answers a
selected share of the pairs, on which its own calibration (fitted on all pairs) no longer holds.

The verdict keeps the branch's stance, hops, scope and prompt hash; its confidence is the branch's map of
the branch judge's stated confidence (capped again where the figure rule capped it), and its raw answer
records both judges' raw answers and which one stands.
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

from icarus.judges.calibration import Calibration
from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.figures import figure_side
from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.packaged import WeightsError
from icarus.judges.parallel import WrappedTwin
from icarus.judges.protocol import (
    AttributionVerdict,
    Judge,
    JudgeRequest,
    StanceVerdict,
    component_answer,
    to_confidence,
)
from icarus.judges.trained import OfflineWordLlamaJudge, candidate_passages
from icarus.ledger.judgments import JudgeProvenance, Stance
from icarus.llm.quarantine import quarantine

__all__ = [
    "BRANCHES",
    "PROVIDER",
    "VERSION",
    "CascadeParameters",
    "OfflineCascadeJudge",
    "figures_settle_a_side",
    "load_parameters",
    "parameters_file",
    "screens_out",
]

PROVIDER = "offline-cascade"
VERSION = "1"
PARAMETERS_NAME = "offline-cascade-1"
SCREENED, DECIDED = BRANCHES = ("screened", "decided")
SCREEN_JUDGE = "offline-wordllama@1"
DECIDER_JUDGE = "offline-minilm@2"


@dataclass(frozen=True, slots=True)
class CascadeParameters:
    """The fitted threshold, one confidence map per branch, and the component calibrations they belong to."""

    threshold: float
    maps: dict[str, Calibration]
    screen_calibration_id: str
    decider_calibration_id: str
    metadata: dict[str, Any]

    @property
    def calibration_id(self) -> str:
        payload = json.dumps(
            {
                "threshold": self.threshold,
                "maps": {branch: self.maps[branch].calibration_id for branch in BRANCHES},
                "screen": self.screen_calibration_id,
                "decider": self.decider_calibration_id,
            },
            sort_keys=True,
        ).encode()
        return f"{PARAMETERS_NAME}-iso-{hashlib.sha256(payload).hexdigest()[:12]}"

    def confidence(self, branch: str, stated: float) -> float:
        return float(self.maps[branch].confidence(stated))


def parameters_file(folder: Path | None = None) -> Path:
    base = folder if folder is not None else Path(str(resources.files("icarus.judges") / "weights"))
    return base / f"{PARAMETERS_NAME}.json"


def load_parameters(path: Path | None = None) -> CascadeParameters:
    """The record written by ``icarus_training.cascade``; a ``WeightsError`` if it is missing or
    unreadable. Whether its components still match is checked by the judge, which has them loaded."""
    path = path if path is not None else parameters_file()
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
        threshold = float(metadata["threshold"])
        maps = {branch: Calibration.from_json(metadata["calibration"][branch]) for branch in BRANCHES}
        screen_id = str(metadata["components"]["screen"]["calibration_id"])
        decider_id = str(metadata["components"]["decider"]["calibration_id"])
    except FileNotFoundError as exc:
        raise WeightsError(f"cascade parameters not found: {path}") from exc
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, AssertionError) as exc:
        raise WeightsError(f"{path.name} holds no usable cascade parameters: {exc}") from exc
    if not 0.0 <= threshold <= 1.0:
        raise WeightsError(f"{path.name}: threshold {threshold} is not a probability")
    return CascadeParameters(threshold, maps, screen_id, decider_id, metadata)


def figures_settle_a_side(claim: str, passages: list[str]) -> bool:
    """Whether the figure rule would side any of ``passages`` with or against ``claim``."""
    return any(figure_side(claim, passage)[0] for passage in passages)


def screens_out(stance: Stance, confidence: float, threshold: float, figures_settle: bool) -> bool:
    """The screen's answer stands: it calls the pair unrelated, surely enough, and no figure says otherwise."""
    return stance is Stance.NEUTRAL and confidence >= threshold and not figures_settle


@cache
def _shared_parameters() -> CascadeParameters:
    return load_parameters()


class OfflineCascadeJudge:
    """A ``Judge`` that screens each request with the WordLlama judge before the cross-encoder (module
    docstring). Deterministic, offline, no torch."""

    def __init__(
        self,
        screen: OfflineWordLlamaJudge | None = None,
        decider: OfflineMiniLMJudge | None = None,
        parameters: CascadeParameters | None = None,
    ) -> None:
        self.screen = screen if screen is not None else OfflineWordLlamaJudge()
        self.decider = decider if decider is not None else OfflineMiniLMJudge(read_figures=True)
        self.parameters = parameters if parameters is not None else _shared_parameters()
        for role, judge, recorded in (
            ("screen", self.screen, self.parameters.screen_calibration_id),
            ("decider", self.decider, self.parameters.decider_calibration_id),
        ):
            if judge.calibration_id != recorded:
                raise WeightsError(
                    f"the cascade was fitted against a {role} calibrated as {recorded}, "
                    f"but the {role} now is {judge.calibration_id}: refit it "
                    "(python -m icarus_training.cascade)"
                )
        self.calibration_id = self.parameters.calibration_id
        self.provenance = JudgeProvenance(
            provider=PROVIDER, version=VERSION, calibration_id=self.calibration_id
        )
        self._twin = WrappedTwin(self._with_decider)

    def __repr__(self) -> str:
        return f"OfflineCascadeJudge({PROVIDER}@{VERSION}, threshold={self.parameters.threshold})"

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """The decider's twin (``judges.parallel``) behind the same screen, which keeps no state between
        requests and so may be shared by threads."""
        return self._twin.plan(self, self.decider, requests)

    def _with_decider(self, decider: Judge) -> OfflineCascadeJudge:
        assert isinstance(decider, OfflineMiniLMJudge)
        return OfflineCascadeJudge(self.screen, decider, self.parameters)

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        screened = self.screen.stance(request)
        settle = False
        if screened.failure is None and screened.stance is Stance.NEUTRAL:
            claim = quarantine(request.claim_text).text
            passages = candidate_passages(
                claim, quarantine(request.excerpt).text, quarantine(request.evidence_text).text
            )
            settle = figures_settle_a_side(claim, passages)
        if screened.failure is None and screens_out(
            screened.stance, float(screened.confidence), self.parameters.threshold, settle
        ):
            return self._restamped(screened, SCREENED, screened, None)
        decided = self.decider.stance(request)
        return self._restamped(decided, DECIDED, screened, decided)

    def _restamped(
        self, verdict: StanceVerdict, branch: str, screened: StanceVerdict, decided: StanceVerdict | None
    ) -> StanceVerdict:
        raw: dict[str, Any] = {
            "branch": branch,
            "threshold": self.parameters.threshold,
            "screen": component_answer(screened, float),
            "stated_confidence": float(verdict.confidence),
        }
        if decided is not None:
            raw["decider"] = component_answer(decided, float)
        if verdict.failure is not None:
            confidence = Decimal(0)
        else:
            value = self.parameters.confidence(branch, float(verdict.confidence))
            cap = raw.get("decider", {}).get("answer", {}).get("confidence_cap")
            if isinstance(cap, (int, float)):
                value = min(value, float(cap))
            confidence = to_confidence(value)
        return verdict.model_copy(
            update={
                "confidence": confidence,
                "provider": PROVIDER,
                "version": VERSION,
                "calibration_id": self.calibration_id,
                "raw_answer": json.dumps(raw, sort_keys=True, ensure_ascii=False),
            }
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, self.calibration_id)
