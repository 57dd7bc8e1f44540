"""Claims: atomic, verbatim spans of a captured field, with what makes them checkable."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Span, UtcDatetime
from icarus.ledger.figures import Figure
from icarus.ledger.subject import FieldName


class Disposition(StrEnum):
    """Whether a claim is eligible for a factual verdict (G0). Only CHECKABLE is scored."""

    CHECKABLE = "checkable"
    OPINION = "opinion"
    PREDICTION = "prediction"
    SATIRE = "satire"
    JOKE = "joke"
    PERSONAL_ADVICE = "personal_advice"
    PRIVATE_INDIVIDUAL = "private_individual"
    IMPLIED_NEEDS_INTENT = "implied_needs_intent"


class TemporalScope(StrEnum):
    HISTORICAL = "historical"
    CURRENT = "current"
    ONGOING = "ongoing"


class ClaimType(StrEnum):
    EVENT = "event"
    STATISTIC = "statistic"
    QUOTE = "quote"
    SCIENTIFIC = "scientific"
    IMAGE_CONTEXT = "image_context"
    OTHER = "other"


class NotAssessedReason(StrEnum):
    RELEVANCE = "relevance"
    SCOPE = "scope"
    BUDGET = "budget"


class MisrepresentationKind(StrEnum):
    """Ways a subject can misstate the material it cites (H20, rule 1)."""

    OVERSTATEMENT = "overstatement"
    REVERSAL = "reversal"
    DROPPED_QUALIFIER = "dropped_qualifier"
    CHANGED_POPULATION = "changed_population"
    CHERRY_PICKED = "cherry_picked"
    INCOMPLETE_QUOTE = "incomplete_quote"
    UNDISCLOSED_RETRACTION = "undisclosed_retraction"


class SelfEvidenceFinding(LedgerModel):
    """A proposed mismatch between the claim and the material the subject itself cites.

    Code verifies it (H20): the evidence item must be one the subject cites, and ``excerpt`` must be a
    verbatim substring of that item's snapshot text at ``span``. Unverified findings do not fire rule 1.
    """

    kind: MisrepresentationKind
    evidence_id: str
    span: Span
    excerpt: str
    note: str = ""


class Claim(LedgerModel):
    claim_id: str
    source_field: FieldName = Field(description="The captured field the claim text is sliced from.")
    span: Span
    text: str = Field(description="Displayed claim: must equal the source field sliced at span (G0).")
    normalized: str | None = Field(default=None, description="Search text proposed by a model; never shown.")
    disposition: Disposition = Disposition.CHECKABLE
    not_assessed: NotAssessedReason | None = Field(
        default=None, description="Set when the claim was found but not selected for checking."
    )
    temporal_scope: TemporalScope = TemporalScope.HISTORICAL
    claim_type: ClaimType = ClaimType.OTHER
    event_date: date | None = Field(default=None, description="Date of the event the claim is about (H9).")
    event_started_at: UtcDatetime | None = Field(
        default=None, description="For ongoing situations: when the event began (G6)."
    )
    event_concluded: bool = Field(default=False, description="An official concluding statement exists (G6).")
    figures: list[Figure] = Field(default_factory=list)
    self_evidence: list[SelfEvidenceFinding] = Field(default_factory=list)
