"""The debate vocabulary: research methods, verdicts, citations, panels and the one answer per claim.

Every part of the debates front door (transcripts, detection, the six research methods, the elector,
escalation, adjudication, the store, the API and the pages) speaks in these types, so each can be built
and tested on its own. The JSON names are the ones the RTFC API publishes (``docs/debates.md``).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_RESEARCH_MODES",
    "ESCALATION_LADDER",
    "RESEARCH_MODE_NAMES",
    "AdjudicationReason",
    "Basis",
    "Citation",
    "ClaimVerdict",
    "Corroboration",
    "DebateSettings",
    "DetectedClaim",
    "FigureEntry",
    "OutOfScopeSource",
    "Panel",
    "PrimaryKind",
    "ResearchDelay",
    "ResearchMode",
    "ScopeDecision",
    "Segment",
    "SourceOrigin",
    "StoredPanel",
    "SubQuestion",
    "Verdict",
]


class ResearchMode(StrEnum):
    """The six research methods. Each is a distinct strategy with its own budgets."""

    TWO_STEP = "two_step"
    DECOMPOSE = "decompose"
    DECOMPOSE_INVEST = "decompose_invest"
    LOCAL = "local"
    AGENTIC = "agentic"
    RICOCHET = "ricochet"


DEFAULT_RESEARCH_MODES: Final = (ResearchMode.AGENTIC, ResearchMode.DECOMPOSE)
"""What a debate researches when ``research_modes`` is omitted."""

ESCALATION_LADDER: Final = (
    ResearchMode.TWO_STEP,
    ResearchMode.DECOMPOSE,
    ResearchMode.DECOMPOSE_INVEST,
    ResearchMode.RICOCHET,
    ResearchMode.AGENTIC,
)
"""Weakest to strongest. ``local`` is not on it: it reads only the local corpus."""

RESEARCH_MODE_NAMES: Final[dict[ResearchMode, str]] = {
    ResearchMode.TWO_STEP: "quick search",
    ResearchMode.DECOMPOSE: "claim split into questions",
    ResearchMode.DECOMPOSE_INVEST: "split into questions, each followed up",
    ResearchMode.LOCAL: "own document collection",
    ResearchMode.AGENTIC: "step-by-step investigation",
    ResearchMode.RICOCHET: "link following",
}
"""Each method in words, for people: pages and messages say these, never the ids."""


class Verdict(StrEnum):
    TRUE = "true"
    FALSE = "false"
    PARTIALLY_TRUE = "partially_true"
    MISLEADING = "misleading"
    UNVERIFIABLE = "unverifiable"
    PENDING = "pending"


class Basis(StrEnum):
    """Where a claim's one answer came from."""

    AGREEMENT = "agreement"
    ADJUDICATED = "adjudicated"
    OPERATOR = "operator"
    FALLBACK = "fallback"


class AdjudicationReason(StrEnum):
    RECONCILED_PANELS = "reconciled_panels"
    RECONCILABLE_PANELS_FALLBACK = "reconcilable_panels_fallback"
    IRRECONCILABLE_EVIDENCE = "irreconcilable_evidence"


class ResearchDelay(StrEnum):
    SEARCH_UNAVAILABLE = "search_unavailable"


class ScopeDecision(StrEnum):
    """``same_scope`` and ``unclear`` documents are kept; the ``different_*`` ones are context only
    (``different_subject``: not about the claim's subject at all, ``icarus.debates.relevance``)."""

    SAME_SCOPE = "same_scope"
    UNCLEAR = "unclear"
    DIFFERENT_QUANTITY = "different_quantity"
    DIFFERENT_GEOGRAPHY = "different_geography"
    DIFFERENT_PERIOD = "different_period"
    DIFFERENT_SUBJECT = "different_subject"


class SourceOrigin(StrEnum):
    CURATED = "curated"
    FACT_CHECKER = "fact_checker"
    OFFICIAL_SITE = "official_site"


class PrimaryKind(StrEnum):
    OFFICIAL_SITE = "official_site"
    OFFICIAL_DATA = "official_data"
    OFFICIAL_TEXT = "official_text"
    OWN_STATEMENT = "own_statement"
    FIRST_PUBLISHER = "first_publisher"
    OTHER = "other"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Citation(_Model):
    """One source a panel cites. ``published_at`` is the recorded publication time or null: the time a
    page was crawled is never put in its place."""

    url: str
    domain: str
    title: str = ""
    excerpt: str = ""
    stance: str = Field(default="neutral", description="supports | refutes | neutral, as the judge read it")
    trust: float = Field(default=0.0, ge=0.0, le=1.0, description="the source's reputation score")
    published_at: datetime | None = None
    source_origin: SourceOrigin | None = None
    official_entity_label: str | None = None
    is_primary: bool = False
    primary_kind: PrimaryKind | None = None
    scope_decision: ScopeDecision | None = Field(
        default=None, description="same_scope | unclear, or null when the scope was not checked"
    )
    diagnostics: dict[str, Any] | None = Field(
        default=None, description="admin-only provenance diagnostics; stripped for every other reader"
    )


class OutOfScopeSource(_Model):
    """A document about the right topic that measures something else: shown as context, never cited."""

    url: str
    domain: str
    title: str = ""
    scope_decision: ScopeDecision
    measures: str = Field(default="", description="what the document measures instead, in words")


class FigureEntry(_Model):
    """A confirming or contradicting document: provenance-safe metadata only."""

    url: str
    domain: str
    value: str
    published: datetime | None = None


class Corroboration(_Model):
    element: str = Field(description="the claim's load-bearing figure or named fact")
    independent_confirmations: int = Field(ge=0)
    official_source: bool = False
    sufficient: bool = False
    confirming: list[FigureEntry] = Field(default_factory=list)
    contradicting: list[FigureEntry] = Field(default_factory=list)
    searched: bool = Field(default=False, description="whether the extra corroboration search ran")
    capped: bool = Field(default=False, description="whether the panel's confidence was capped for it")


class SubQuestion(_Model):
    """One part of a decomposed claim and what its own research found."""

    question: str
    verdict: Verdict
    confidence: float = Field(ge=0.0, le=1.0)
    sources: list[Citation] = Field(default_factory=list)
    follow_up: str | None = Field(default=None, description="decompose_invest's follow-up investigation")


class Panel(_Model):
    """One research method's answer about one claim."""

    research_mode: ResearchMode
    verdict: Verdict
    confidence: float = Field(ge=0.0, le=1.0)
    explanation: str = ""
    sources: list[Citation] = Field(default_factory=list)
    out_of_scope_sources: list[OutOfScopeSource] = Field(default_factory=list)
    corroboration: Corroboration | None = None
    sub_questions: list[SubQuestion] = Field(default_factory=list)
    research_delay_reason: ResearchDelay | None = None
    language_label: str | None = Field(
        default=None, description='"English/Spanish research" on a strong-language rerun, else null'
    )
    figures_found: list[FigureEntry] = Field(
        default_factory=list, description="FIGURES FOUND: values that differ between sources"
    )
    cost: float = Field(default=0.0, ge=0.0, description="research cost units billed for this panel")
    trace: dict[str, Any] = Field(
        default_factory=dict,
        description="budgets used, queries run, the policy and ledger label the verdict was mapped from",
    )


class ClaimVerdict(_Model):
    """The one answer for a claim occurrence; absent (null) while research is pending."""

    verdict: Verdict
    confidence: float = Field(ge=0.0, le=1.0)
    explanation: str = ""
    sources: list[Citation] = Field(default_factory=list)
    basis: Basis
    adjudication_reason: AdjudicationReason | None = None
    panel_ids: list[int] = Field(default_factory=list, description="the panels this answer considered")
    selected_panel_id: int | None = None
    provisional: bool = False
    panel_fingerprints: dict[int, str] = Field(
        default_factory=dict,
        description="each considered panel's fingerprint when this answer was made: what a rebuild compares",
    )


class StoredPanel(_Model):
    """A panel as the elector, escalation and adjudication see it: with its id and how it came to be."""

    panel_id: int
    panel: Panel
    manual: bool = Field(
        default=False, description="added by POST /v1/claim with manually_added; never votes"
    )
    escalated: bool = Field(default=False, description="added by escalation; votes like a configured one")
    fingerprint: str = Field(
        default="", description="hash of verdict, sources and dates: what a rebuild compares"
    )


class Segment(_Model):
    """One stretch of speech: from a caption file, a plain-text transcript or the live stream."""

    segment_id: str = Field(min_length=1, max_length=128)
    speaker_label: str | None = Field(default=None, max_length=128, description="the diarization label")
    start_s: float | None = Field(default=None, ge=0.0)
    end_s: float | None = Field(default=None, ge=0.0)
    text: str = Field(max_length=20_000)


class DetectedClaim(_Model):
    """A checkable claim found in what one speaker said."""

    text: str = Field(description="verbatim from the segments it came from")
    speaker_label: str | None = None
    speaker_name: str | None = None
    segment_ids: list[str] = Field(default_factory=list)
    checkworthiness: float = Field(ge=0.0, le=1.0)
    claim_type: str = ""
    needs_speaker: bool = Field(
        default=False, description="it depends on who said it and that speaker is not yet named"
    )


class DebateSettings(_Model):
    """What a debate was created with (``POST /v1/debates``); ``PATCH`` replaces the fields it names."""

    research_modes: list[ResearchMode] = Field(default_factory=lambda: list(DEFAULT_RESEARCH_MODES))
    escalate_enabled: bool = False
    escalate_max_steps: int = Field(default=2, ge=0, le=len(ESCALATION_LADDER))
    speaker_gate_enabled: bool = False
    provisional_claim_verdict: bool = False
    elector_enabled: bool = False
    primary_source_policy: bool = Field(
        default=False, description="escalation stops before ricochet for such a debate"
    )
    cost_weight: float | None = Field(default=None, ge=0.0, le=1.0)
    latency_weight: float | None = Field(default=None, ge=0.0, le=1.0)
    quality_weight: float | None = Field(default=None, ge=0.0, le=1.0)
    language: str = Field(default="en", max_length=16, description="research stays in this language")
    country: str | None = Field(default=None, max_length=8, description="the country filter research keeps")
