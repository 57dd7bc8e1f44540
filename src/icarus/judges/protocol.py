"""The typed questions judges answer, their typed answers, and how answers enter the ledger.

A judge answers two narrow questions about one evidence item: what stance it takes toward one claim
(with confidence, inference distance and scope), and whom it credits for its information (H3). It never
decides a verdict. Evidence is named by its server-assigned ``evidence_id`` only; an answer that names any
other id, or that cannot be read, is kept verbatim and fails closed (neutral, confidence 0, a reason).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from icarus.ledger.evidence import Attribution, AttributionOrigin
from icarus.ledger.judgments import (
    ClaimJudgment,
    JudgeProvenance,
    ScopeAnswer,
    ScopeDimension,
    Stance,
    StanceAnswer,
)

__all__ = [
    "FAILED_HOPS",
    "AttributionVerdict",
    "FailureReason",
    "Judge",
    "JudgeCall",
    "JudgeRequest",
    "Recorder",
    "StanceVerdict",
    "component_answer",
    "failed_stance",
    "parsed_raw_answer",
    "restamped",
    "to_attribution",
    "to_claim_judgment",
    "to_confidence",
]

FAILED_HOPS = 4
"""Inference hops recorded on a failed answer: more than 3, so nothing rests on it (reading 4)."""

_CONFIDENCE_STEP = Decimal("0.01")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeRequest(_Frozen):
    """One question: how does evidence item ``evidence_id`` bear on claim ``claim_id``?

    ``excerpt`` is the passage the research step anchored; ``evidence_text`` the item's whole text. A judge
    reads the excerpt when there is one and the text otherwise. Both are untrusted and are quarantined
    (H30) before any model sees them.
    """

    claim_id: str
    claim_text: str
    evidence_id: str
    excerpt: str = ""
    evidence_text: str = ""


class FailureReason(StrEnum):
    """Why an answer failed closed.

    - ``invalid_answer``: the reply was not valid JSON, broke the schema, or cited an evidence id that was
      not asked about.
    - ``judge_unavailable``: the judge could not be reached or answered with an error.
    """

    INVALID_ANSWER = "invalid_answer"
    UNAVAILABLE = "judge_unavailable"


class StanceVerdict(_Frozen):
    """A stance judge's answer, with everything needed to audit it."""

    claim_id: str
    evidence_id: str
    stance: Stance
    confidence: Decimal = Field(ge=0, le=1, description="Probability the stance is right, in hundredths.")
    inference_hops: int = Field(ge=0)
    scope_matches: bool = True
    mismatched: tuple[ScopeDimension, ...] = ()
    raw_answer: str = Field(description="The judge's answer exactly as received (or its features, offline).")
    provider: str
    version: str
    calibration_id: str
    prompt_hash: str = Field(description="SHA-256 (hex) of what the judge was shown.")
    quarantined: bool = Field(default=False, description="Instruction-like or hidden text was removed (H30).")
    failure: FailureReason | None = None
    failure_detail: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> StanceVerdict:
        if self.mismatched and self.scope_matches:
            raise ValueError("scope cannot match while listing mismatched dimensions")
        if self.failure is not None and (self.stance is not Stance.NEUTRAL or self.confidence != 0):
            raise ValueError("a failed answer must be neutral with confidence 0")
        return self

    @property
    def provenance(self) -> JudgeProvenance:
        return JudgeProvenance(
            provider=self.provider,
            version=self.version,
            calibration_id=self.calibration_id,
            prompt_hash=self.prompt_hash,
        )


class AttributionVerdict(_Frozen):
    """One credit the judge found in an evidence item: a named source, an address, or both (H3)."""

    evidence_id: str
    target_name: str | None = None
    target_url: str | None = None
    phrase: str = Field(description="The words that carry the attribution, as they appear in the text.")
    provider: str
    version: str
    calibration_id: str
    prompt_hash: str

    @model_validator(mode="after")
    def _has_target(self) -> AttributionVerdict:
        if not self.target_name and not self.target_url:
            raise ValueError("an attribution needs a target name or a target url")
        return self

    @property
    def provenance(self) -> JudgeProvenance:
        return JudgeProvenance(
            provider=self.provider, version=self.version, calibration_id=self.calibration_id
        )


@dataclass(frozen=True, slots=True)
class JudgeCall:
    """One exchange with a judge, kept whatever came back: the audit record for answers that failed
    closed, where no verdict survives to carry the raw reply (attribution answers in particular)."""

    kind: str  # "stance" or "attribution"
    claim_id: str | None
    evidence_id: str
    prompt_hash: str
    raw_answer: str
    failure: FailureReason | None
    failure_detail: str = ""


Recorder = Callable[[JudgeCall], None]
"""Receives every ``JudgeCall``; a judge built without one keeps nothing beyond its verdicts."""


@runtime_checkable
class Judge(Protocol):
    """Answers typed questions about one evidence item. Implementations never raise for a bad answer or
    an unreachable model: they fail closed."""

    def stance(self, request: JudgeRequest) -> StanceVerdict: ...

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]: ...


def to_confidence(value: float | Decimal) -> Decimal:
    """Clamp to [0, 1] and keep hundredths, rounding down: a model's 0.499 must not become 0.50 and cross
    the neutral threshold."""
    number = value if isinstance(value, Decimal) else Decimal(repr(float(value)))
    if not number.is_finite():
        return Decimal("0.00")
    number = min(max(number, Decimal(0)), Decimal(1))
    return number.quantize(_CONFIDENCE_STEP, rounding=ROUND_FLOOR)


def parsed_raw_answer(verdict: StanceVerdict) -> Any:
    """A verdict's raw answer as a judge wrapped around it records it: the JSON it holds, else the text."""
    try:
        return json.loads(verdict.raw_answer)
    except json.JSONDecodeError:
        return verdict.raw_answer


def component_answer(verdict: StanceVerdict, confidence: Callable[[Decimal], Any]) -> dict[str, Any]:
    """A component judge's answer as the judge wrapped around it records it: who, what, how sure (written
    by ``confidence``) and its own raw answer."""
    return {
        "judge": f"{verdict.provider}@{verdict.version}",
        "stance": verdict.stance.value,
        "confidence": confidence(verdict.confidence),
        "answer": parsed_raw_answer(verdict),
    }


def restamped(
    verdict: StanceVerdict, provenance: JudgeProvenance, raw: dict[str, Any], *, neutral: bool
) -> StanceVerdict:
    """``verdict`` as a judge wrapped around it answers: under that judge's provider, version and calibration,
    with ``raw`` as its raw answer and, when ``neutral``, turned neutral with confidence 1 - its confidence
    in the side it took."""
    update: dict[str, Any] = {
        "provider": provenance.provider,
        "version": provenance.version,
        "calibration_id": provenance.calibration_id,
    }
    if neutral:
        update["stance"] = Stance.NEUTRAL
        update["confidence"] = to_confidence(Decimal(1) - verdict.confidence)
    update["raw_answer"] = json.dumps(raw, sort_keys=True, ensure_ascii=False)
    return verdict.model_copy(update=update)


def failed_stance(
    request: JudgeRequest,
    *,
    reason: FailureReason,
    detail: str,
    raw_answer: str,
    provenance: JudgeProvenance,
    prompt_sha256: str,
    quarantined: bool = False,
) -> StanceVerdict:
    """The fail-closed answer: neutral, confidence 0, the raw reply and the reason kept."""
    return StanceVerdict(
        claim_id=request.claim_id,
        evidence_id=request.evidence_id,
        stance=Stance.NEUTRAL,
        confidence=Decimal("0.00"),
        inference_hops=FAILED_HOPS,
        raw_answer=raw_answer,
        provider=provenance.provider,
        version=provenance.version,
        calibration_id=provenance.calibration_id,
        prompt_hash=prompt_sha256,
        quarantined=quarantined,
        failure=reason,
        failure_detail=detail,
    )


def to_claim_judgment(verdict: StanceVerdict) -> ClaimJudgment:
    """The ledger's record of a stance verdict. A failed verdict says nothing about scope."""
    provenance = verdict.provenance
    if verdict.failure is not None:
        scope = ScopeAnswer()
    else:
        scope = ScopeAnswer(
            matches=verdict.scope_matches, mismatched=list(verdict.mismatched), judge=provenance
        )
    return ClaimJudgment(
        claim_id=verdict.claim_id,
        stance=StanceAnswer(
            stance=verdict.stance,
            confidence=verdict.confidence,
            judge=provenance,
            raw_answer=verdict.raw_answer,
            failure=verdict.failure.value if verdict.failure is not None else None,
            quarantined=verdict.quarantined,
        ),
        inference_hops=verdict.inference_hops,
        scope=scope,
    )


def to_attribution(verdict: AttributionVerdict) -> Attribution:
    """The ledger's record of a judged credit: origin ``judge``, so it can only make an item derivative (H3)."""
    return Attribution(
        target_url=verdict.target_url,
        target_name=verdict.target_name,
        phrase=verdict.phrase,
        origin=AttributionOrigin.JUDGE,
        judge=verdict.provenance,
    )
