"""Typed judge answers. A judge proposes; versioned code decides what the answer is worth."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Unit


class Stance(StrEnum):
    SUPPORT = "support"
    REFUTE = "refute"
    NEUTRAL = "neutral"


class ScopeDimension(StrEnum):
    QUANTITY = "quantity"
    GEOGRAPHY = "geography"
    PERIOD = "period"


class JudgeProvenance(LedgerModel):
    """Who answered: every judge answer records its provider, version and calibration."""

    provider: str = Field(description="Judge provider, e.g. 'offline-lexical', 'openai-compatible'.")
    version: str = Field(description="Provider or model version.")
    calibration_id: str = Field(description="Identifier of the calibration map applied to the raw score.")


class StanceAnswer(LedgerModel):
    stance: Stance
    confidence: Unit = Field(description="Calibrated probability that the stance is right (C).")
    judge: JudgeProvenance


class ScopeAnswer(LedgerModel):
    """Whether quantity/definition, place and period of the evidence match the claim (H26)."""

    matches: bool = True
    mismatched: list[ScopeDimension] = Field(default_factory=list)
    judge: JudgeProvenance | None = None


class ClaimJudgment(LedgerModel):
    """Everything the judges said about one evidence item against one claim."""

    claim_id: str
    stance: StanceAnswer
    inference_hops: int = Field(
        default=0, ge=0, description="Unsupported inference steps between the excerpt and the claim."
    )
    scope: ScopeAnswer = Field(default_factory=ScopeAnswer)
    claim_is_about_source: bool = Field(
        default=False, description="The claim concerns this source itself (a satire piece's own content; H6)."
    )
