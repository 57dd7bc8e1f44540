"""Reputation records: a versioned prior about a source's editorial and correction practice."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from icarus.ledger.base import LedgerModel, Unit, UtcDatetime


class SourceTier(StrEnum):
    """The diversity tiers; the diversity term counts distinct tiers among counted clusters.

    A valid ClaimReview from an IFCN signatory (H8) counts in the ``fact_checker`` tier whatever the record
    says. ``other`` covers blogs and anything without a better tier.
    """

    PRIMARY_OFFICIAL = "primary_official"
    WIRE = "wire"
    FACT_CHECKER = "fact_checker"
    NATIONAL_NEWS = "national_news"
    REGIONAL_NEWS = "regional_news"
    SCHOLARLY = "scholarly"
    NGO_THINK_TANK = "ngo_think_tank"
    OTHER = "other"


class RiskRating(StrEnum):
    """A risk-list rating (Wikipedia perennial sources style). Deprecated sources are excluded (H5)."""

    GENERALLY_RELIABLE = "generally_reliable"
    NO_CONSENSUS = "no_consensus"
    GENERALLY_UNRELIABLE = "generally_unreliable"
    DEPRECATED = "deprecated"


class ReputationMethod(StrEnum):
    """How a record was produced.

    - ``manual``: a reviewed classification (primary official sources, wires, IFCN signatories, satire…).
    - ``dataset``: taken from a named, versioned dataset (e.g. the Wikipedia perennial-sources list).
    - ``heuristic``: estimated from deterministic features because the domain is not on file. Such a record
      is an estimate: the policy's estimate discount P and the caveat "reputation estimated, not on file" (H4).
    """

    MANUAL = "manual"
    DATASET = "dataset"
    HEURISTIC = "heuristic"


class ReputationRecord(LedgerModel):
    """One version of one domain's reputation record, as it stood when the evidence was scored.

    The reputation registry fills it. Reputation is a prior about editorial and correction practice, not
    evidence about a particular claim; political viewpoint never enters it.
    """

    domain: str = Field(description="Registered domain the record describes, e.g. 'apnews.com'.")
    score: Unit = Field(
        description="R, the reputation prior in [0, 1]; a heuristic estimate lies in the policy's heuristic range."
    )
    tier: SourceTier = Field(
        description="Diversity tier of the source (the confidence formula's diversity term)."
    )
    method: ReputationMethod = Field(
        description="manual review, a named dataset, or a heuristic estimate (heuristic: estimate discount P, H4)."
    )
    produced_by: str = Field(description="Dataset name@version, reviewer role, or heuristic name@version.")
    version: str = Field(description="Record version; a change to a record is a new version.")
    recorded_at: UtcDatetime | None = Field(default=None, description="When this version was recorded.")
    risk_rating: RiskRating | None = Field(
        default=None,
        description="Risk-list rating, if listed (H5): deprecated excludes, generally unreliable caps R.",
    )
    on_iffy_index: bool = Field(default=False, description="The domain is on the Iffy Index (H5).")
    bias_label: str | None = Field(
        default=None, description="Display only. Never read by any scoring code (H29)."
    )
    without_lin: ReputationRecord | None = Field(
        default=None,
        description="The record the registry gives without Lin et al.'s domain rating (another source's "
        "baseline, else the heuristic estimate), set only where that rating gave the score. A policy version "
        "that publishes the rating as not yet live scores the item with this record instead.",
    )

    @model_serializer(mode="wrap")
    def _omit_absent_fallback(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A record without the fallback is written as before the field existed, so the ledgers stored then
        keep their bytes and their hashes."""
        data = handler(self)
        if isinstance(data, dict) and data.get("without_lin") is None:
            data.pop("without_lin", None)
        return data

    @property
    def estimated(self) -> bool:
        """A heuristic record is an estimate: it carries the provenance discount and a caveat (H4)."""
        return self.method is ReputationMethod.HEURISTIC
