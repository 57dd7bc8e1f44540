"""Typed judge answers. A judge proposes; versioned code decides what the answer is worth."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Unit
from icarus.ledger.links import LedgerLink


class Stance(StrEnum):
    """What an evidence item says about a claim: ``support``, ``refute`` or ``neutral`` (neither).

    A support or refute answer with confidence below the policy's neutral threshold is read as neutral.
    """

    SUPPORT = "support"
    REFUTE = "refute"
    NEUTRAL = "neutral"


class ScopeDimension(StrEnum):
    """Where evidence can fail to match a claim (H26): the ``quantity`` or its definition, the
    ``geography``, or the time ``period``."""

    QUANTITY = "quantity"
    GEOGRAPHY = "geography"
    PERIOD = "period"


class JudgeProvenance(LedgerModel):
    """Who answered: every judge answer records its provider, version and calibration."""

    provider: str = Field(description="Judge provider, e.g. 'offline-lexical', 'openai-compatible'.")
    version: str = Field(description="Provider or model version.")
    calibration_id: str = Field(description="Identifier of the calibration map applied to the raw score.")
    prompt_hash: str | None = Field(
        default=None,
        description="SHA-256 (hex) of exactly what the judge was shown; None for hand-made ledgers.",
    )


class StanceAnswer(LedgerModel):
    """A stance judge's typed answer for one (evidence item, claim) pair."""

    stance: Stance = Field(description="The stance the judge reads in the item's excerpt toward the claim.")
    confidence: Unit = Field(description="Calibrated probability that the stance is right (C).")
    judge: JudgeProvenance = Field(description="The judge that answered.")
    raw_answer: str | None = Field(
        default=None, description="The answer exactly as the judge gave it (or the offline judge's features)."
    )
    failure: str | None = Field(
        default=None,
        description="Why the answer was unusable (invalid answer, judge unavailable); the stance then fails "
        "closed: neutral with confidence 0.",
    )
    quarantined: bool = Field(
        default=False,
        description="Instruction-like or hidden text was removed before the judge saw it (H30).",
    )


class ScopeAnswer(LedgerModel):
    """Whether quantity/definition, place and period of the evidence match the claim (H26)."""

    matches: bool = Field(
        default=True,
        description="The evidence is about the same quantity, place and period; false: D = 0 (H26).",
    )
    mismatched: list[ScopeDimension] = Field(
        default_factory=list,
        description="Which dimensions differ, when matches is false (shown in the trace).",
    )
    judge: JudgeProvenance | None = Field(
        default=None,
        description="The judge that answered; absent when scope was not asked (the default match).",
    )


class ClaimJudgment(LedgerModel):
    """Everything the judges said about one evidence item against one claim."""

    claim_id: str = Field(description="The claim judged; must be a claim_id in the same ledger.")
    stance: StanceAnswer = Field(description="Support, refute or neutral, with calibrated confidence (C).")
    inference_hops: int = Field(
        default=0,
        ge=0,
        description=(
            "Unsupported inference steps between the excerpt and the claim. Above 3 on the strongest item "
            "of a counted cluster, rules 4 and 5 cannot fire."
        ),
    )
    scope: ScopeAnswer = Field(
        default_factory=ScopeAnswer, description="Whether the evidence's scope matches the claim (H26)."
    )
    claim_is_about_source: bool = Field(
        default=False, description="The claim concerns this source itself (a satire piece's own content; H6)."
    )
    link: LedgerLink | None = Field(
        default=None,
        description="Ledger-link fields for the ledger models, overriding what they derive; the icarus policies ignore it.",
    )
