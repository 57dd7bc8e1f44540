"""Claims: atomic, verbatim spans of a captured field, with what makes them checkable."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Span, UtcDatetime
from icarus.ledger.figures import Figure
from icarus.ledger.links import LedgerClaim
from icarus.ledger.subject import FieldName


class Disposition(StrEnum):
    """Whether a claim is eligible for a factual verdict (G0). Only CHECKABLE is scored.

    Every other value makes the claim ❔ with an ineligible-disposition reason: ``opinion`` (non-literal
    opinion), ``prediction``, ``satire``, ``joke``, ``personal_advice``, ``private_individual`` (concerns a
    named private person), ``implied_needs_intent`` (an implied claim that would need a guess at intent).
    """

    CHECKABLE = "checkable"
    OPINION = "opinion"
    PREDICTION = "prediction"
    SATIRE = "satire"
    JOKE = "joke"
    PERSONAL_ADVICE = "personal_advice"
    PRIVATE_INDIVIDUAL = "private_individual"
    IMPLIED_NEEDS_INTENT = "implied_needs_intent"


class TemporalScope(StrEnum):
    """When the facts a claim asserts are set.

    - ``historical``: a settled past fact; freshness is 1 (H27).
    - ``current``: a present state; freshness decays with the age of the newest decisive evidence (H27).
    - ``ongoing``: a situation still unfolding; freshness decays as for current, and G6 may hold the label.
    """

    HISTORICAL = "historical"
    CURRENT = "current"
    ONGOING = "ongoing"


class ClaimType(StrEnum):
    """What sort of assertion the claim is. ``image_context`` ("this image shows E") enables H23."""

    EVENT = "event"
    STATISTIC = "statistic"
    QUOTE = "quote"
    SCIENTIFIC = "scientific"
    IMAGE_CONTEXT = "image_context"
    OTHER = "other"


class NotAssessedReason(StrEnum):
    """Why a claim that was found is listed as not assessed instead of being scored.

    - ``opinion``, ``prediction``, ``satire``, ``joke``, ``personal_advice``, ``private_individual``: the
      claim's disposition (G0 gives none of these a factual verdict); ``implied_needs_intent``: an implied
      claim that fails the necessity test (it would need a guess at what the author meant).
    - ``scope``: outside what the check covers whatever the wording: a subject not in English, or words
      spoken in a video or audio. Ledgers written before the dispositions had reasons of their own use it
      for those too.
    - ``relevance``: too little to check (checkworthiness below the threshold).
    - ``budget``: checkable, but beyond the number of claims one check researches.
    """

    OPINION = "opinion"
    PREDICTION = "prediction"
    SATIRE = "satire"
    JOKE = "joke"
    PERSONAL_ADVICE = "personal_advice"
    PRIVATE_INDIVIDUAL = "private_individual"
    IMPLIED_NEEDS_INTENT = "implied_needs_intent"
    RELEVANCE = "relevance"
    SCOPE = "scope"
    BUDGET = "budget"


DISPOSITION_NOT_ASSESSED: dict[Disposition, NotAssessedReason] = {
    Disposition.OPINION: NotAssessedReason.OPINION,
    Disposition.PREDICTION: NotAssessedReason.PREDICTION,
    Disposition.SATIRE: NotAssessedReason.SATIRE,
    Disposition.JOKE: NotAssessedReason.JOKE,
    Disposition.PERSONAL_ADVICE: NotAssessedReason.PERSONAL_ADVICE,
    Disposition.PRIVATE_INDIVIDUAL: NotAssessedReason.PRIVATE_INDIVIDUAL,
    Disposition.IMPLIED_NEEDS_INTENT: NotAssessedReason.IMPLIED_NEEDS_INTENT,
}
"""The not-assessed reason each ineligible disposition is listed with."""


class Implication(LedgerModel):
    """What an implied claim asserts. The claim's ``span`` and ``text`` are the author's words it is implied
    by (verbatim, as for every claim); ``statement`` is what is checked, and is never shown as the author's
    words. It is checked only when it passed the necessity test (docs/checking.md, "Implied claims")."""

    statement: str = Field(description="The implied claim, in the checker's words: searched and judged.")
    necessity: str = Field(
        description="Why the implication is necessary: which part of the test it passed, in plain words."
    )
    proposed_by: str = Field(description="Who stated it: model:<name> or rule:<name>.")


class MisrepresentationKind(StrEnum):
    """Ways a subject can misstate the material it cites (H20, rule 1).

    - ``overstatement``: says more, or more firmly, than the source does.
    - ``reversal``: states the opposite of the source, or a figure turned around.
    - ``dropped_qualifier``: leaves out a condition the source attaches ("in mice", "at least once").
    - ``changed_population``: applies a finding to a different group than the one studied.
    - ``cherry_picked``: picks one figure that the rest of the source contradicts.
    - ``incomplete_quote``: quotes the source in part, changing its sense.
    - ``undisclosed_retraction``: relies on retracted work without saying so (see also H16).
    """

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

    kind: MisrepresentationKind = Field(description="Which kind of misstatement the judge proposes.")
    evidence_id: str = Field(
        description=(
            "The cited evidence item the claim misstates: role cited_by_subject, or linked from "
            "subject.cited_links. A paywalled or partial item cannot anchor a finding (H28)."
        )
    )
    span: Span = Field(description="Offsets of the excerpt in that evidence item's text.")
    excerpt: str = Field(
        description="The cited item's text sliced at span, verbatim: the words readers are shown (H20)."
    )
    note: str = Field(
        default="", description="Optional free-text remark by the judge or reviewer; no rule reads it."
    )


class Claim(LedgerModel):
    """One atomic claim: a verbatim span of one captured field, plus what scoring needs to know about it.

    Models may propose the span and the search text; the displayed ``text`` is always the exact slice of
    the source field (G0). A claim with ``not_assessed`` set is listed in the result but not scored.
    """

    claim_id: str = Field(description="Ledger-unique claim id; judgments, drafts and prior runs refer to it.")
    source_field: FieldName = Field(description="The captured field the claim text is sliced from.")
    span: Span = Field(description="Offsets of the claim in the source field's text.")
    text: str = Field(description="Displayed claim: must equal the source field sliced at span (G0).")
    normalized: str | None = Field(default=None, description="Search text proposed by a model; never shown.")
    disposition: Disposition = Field(
        default=Disposition.CHECKABLE,
        description="Eligibility for a factual verdict; anything but checkable makes the claim ❔ (G0).",
    )
    not_assessed: NotAssessedReason | None = Field(
        default=None, description="Set when the claim was found but not selected for checking."
    )
    temporal_scope: TemporalScope = Field(
        default=TemporalScope.HISTORICAL,
        description="Settled past, present state or unfolding situation: drives freshness (H27) and G6.",
    )
    claim_type: ClaimType = Field(
        default=ClaimType.OTHER,
        description="Kind of assertion; image_context turns on the recycled-media rule (H23).",
    )
    event_date: date | None = Field(default=None, description="Date of the event the claim is about (H9).")
    event_started_at: UtcDatetime | None = Field(
        default=None,
        description="For ongoing situations: when the event began (G6); H23 dates image copies against it.",
    )
    event_concluded: bool = Field(default=False, description="An official concluding statement exists (G6).")
    figures: list[Figure] = Field(
        default_factory=list, description="Numbers the claim states, in recomputable form (H12, H13, H15)."
    )
    self_evidence: list[SelfEvidenceFinding] = Field(
        default_factory=list,
        description="Proposed misstatements of material the subject cites; verified ones fire rule 1 (H20).",
    )
    implication: Implication | None = Field(
        default=None,
        description="Set on an implied claim: text is the words it is implied by, the statement is checked.",
    )
    ledger_claim: LedgerClaim | None = Field(
        default=None,
        description="Claim fields for the ledger models (type, evaluability, author, review checks); the icarus policies ignore it.",
    )
