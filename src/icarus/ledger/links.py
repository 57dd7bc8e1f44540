"""Ledger-link fields: what the ledger models (ledger-strict, ledger-default) read about a claim and its evidence.

The ledger models weigh each (claim, evidence) *link* by its relevance, the kind of observation the evidence
is, the interpretive steps between passage and claim, and a few checks. Icarus derives every one of these
from the ordinary ledger fields (stance strength and directness, source class, inference hops, provenance
clusters; see docs/ledger-models.md). A ledger may also carry them directly: a judgment's ``link`` and a
claim's ``ledger_claim`` override the derived values field by field, and an omitted field is derived.
The Icarus policies never read these fields.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel

MAX_INTERPRETIVE_STEPS = 5


class LinkDirection(StrEnum):
    """Which way a link bears on its claim. ``qualify`` and ``neutral`` links weigh nothing (non-directional)
    but stay in the trace."""

    SUPPORT = "SUPPORT"
    CONTRADICT = "CONTRADICT"
    QUALIFY = "QUALIFY"
    NEUTRAL = "NEUTRAL"


class Relevance(StrEnum):
    """How directly the passage bears on the claim, from stating it outright (``DIRECT``) to context only."""

    DIRECT = "DIRECT"
    STRONG = "STRONG"
    MODERATE = "MODERATE"
    WEAK = "WEAK"
    CONTEXT_ONLY = "CONTEXT_ONLY"


class ObservationKind(StrEnum):
    """What kind of thing the evidence is: a measurement, a dataset's result, the text itself, an
    archaeological find, a calculation, an eyewitness account, expert analysis, hearsay, something else, or
    a model's output (which never counts as evidence by itself)."""

    MEASUREMENT = "MEASUREMENT"
    DATASET_RESULT = "DATASET_RESULT"
    DIRECT_TEXT = "DIRECT_TEXT"
    ARCHAEOLOGICAL = "ARCHAEOLOGICAL"
    CALCULATION = "CALCULATION"
    EYEWITNESS = "EYEWITNESS"
    EXPERT_ANALYSIS = "EXPERT_ANALYSIS"
    HEARSAY = "HEARSAY"
    OTHER = "OTHER"
    MODEL_OUTPUT = "MODEL_OUTPUT"


class Authenticity(StrEnum):
    """Whether the quoted passage is really in the source: checked and found (``VERIFIED``), not yet checked
    (``UNVERIFIED``, not penalised), or checked and doubted (``DOUBTFUL``)."""

    VERIFIED = "VERIFIED"
    UNVERIFIED = "UNVERIFIED"
    DOUBTFUL = "DOUBTFUL"


class Extraction(StrEnum):
    """Whether the reading of the passage is faithful: checked (``VERIFIED``) or not yet (``UNVERIFIED``)."""

    VERIFIED = "VERIFIED"
    UNVERIFIED = "UNVERIFIED"


class SourceKind(StrEnum):
    """What the evidence's source is. ``PRIMARY_TEXT``, ``DATASET``, ``MEASUREMENT`` and ``LEGAL_DOCUMENT``
    are primary: a counted link from one satisfies the ``primary_source_reviewed`` check."""

    PRIMARY_TEXT = "PRIMARY_TEXT"
    DATASET = "DATASET"
    MEASUREMENT = "MEASUREMENT"
    LEGAL_DOCUMENT = "LEGAL_DOCUMENT"
    SCHOLARLY_ARTICLE = "SCHOLARLY_ARTICLE"
    NEWS_REPORT = "NEWS_REPORT"
    COMMENTARY = "COMMENTARY"
    SOCIAL_POST = "SOCIAL_POST"
    OTHER = "OTHER"


class LinkProvenance(StrEnum):
    """``SELF``: the evidence comes from the claim's own origin (it shows the words were said, not that they
    are right); ``INDEPENDENT`` otherwise. Read from 0.2.0 on."""

    SELF = "SELF"
    INDEPENDENT = "INDEPENDENT"


class EditionKind(StrEnum):
    """Which edition of a source the evidence reads: ``NAMED`` (the edition the claim means, or a source
    without editions) or ``OTHER`` (an unnamed or different edition; weighs nothing from 0.3.0 on)."""

    NAMED = "NAMED"
    OTHER = "OTHER"


class LedgerClaimType(StrEnum):
    """The fourteen claim types of the ledger models; each model declares which it scores."""

    OBSERVATIONAL = "OBSERVATIONAL"
    QUANTITATIVE = "QUANTITATIVE"
    HISTORICAL = "HISTORICAL"
    TEXTUAL = "TEXTUAL"
    COMPARATIVE = "COMPARATIVE"
    CAUSAL = "CAUSAL"
    FORECAST = "FORECAST"
    LEGAL = "LEGAL"
    INTERPRETIVE = "INTERPRETIVE"
    DEFINITIONAL = "DEFINITIONAL"
    ATTRIBUTED_BELIEF = "ATTRIBUTED_BELIEF"
    NORMATIVE = "NORMATIVE"
    RHETORICAL = "RHETORICAL"
    METAPHYSICAL = "METAPHYSICAL"


class NotEvaluableReason(StrEnum):
    """Why a claim is not truth-evaluable at all (the ledger models then answer NOT_APPLICABLE with this
    reason): a value judgement, a metaphysical or rhetorical statement, something current methods cannot
    test, a forecast not yet resolved, or a legal question no model covers."""

    NORMATIVE_OR_VALUE = "NORMATIVE_OR_VALUE"
    METAPHYSICAL = "METAPHYSICAL"
    RHETORICAL = "RHETORICAL"
    UNTESTABLE_CURRENT_METHODS = "UNTESTABLE_CURRENT_METHODS"
    UNRESOLVED_FORECAST = "UNRESOLVED_FORECAST"
    NO_LEGAL_MODEL = "NO_LEGAL_MODEL"


class ReviewCheckName(StrEnum):
    """The review checklist. ``primary_source_reviewed`` is satisfied by a counted primary-source link; the
    other three by a recorded check. A check by the claim's own author is shown and never counts."""

    PRIMARY_SOURCE_REVIEWED = "primary_source_reviewed"
    OPPOSING_SEARCH_DONE = "opposing_search_done"
    INDEPENDENCE_REVIEWED = "independence_reviewed"
    QUALIFIERS_REVIEWED = "qualifiers_reviewed"


class LedgerLink(LedgerModel):
    """A judgment's ledger-link fields, set by hand or by a tool; each omitted field is derived from the rest
    of the ledger (docs/ledger-models.md says how)."""

    link_id: str | None = Field(
        default=None, description="Link identifier; ties are broken by it. Default: the evidence id."
    )
    direction: LinkDirection | None = Field(
        default=None, description="Support, contradict, qualify or neutral. Default: from the judged stance."
    )
    relevance: Relevance | None = Field(
        default=None,
        description="How directly the passage bears on the claim. Default: from stance strength and directness.",
    )
    observation: ObservationKind | None = Field(
        default=None,
        description="What kind of evidence it is. Default: from the source class and directness.",
    )
    interpretive_steps: int | None = Field(
        default=None,
        ge=0,
        le=MAX_INTERPRETIVE_STEPS,
        description="Reasoning steps between passage and claim. Default: the judgment's inference hops, at most 5.",
    )
    authenticity: Authenticity | None = Field(
        default=None,
        description="Whether the passage is really in the source. Default: from the excerpt's exact slice.",
    )
    extraction: Extraction | None = Field(
        default=None, description="Whether the reading is faithful. Default: UNVERIFIED (a judge's reading)."
    )
    source_kind: SourceKind | None = Field(
        default=None, description="What the source is. Default: from the source class and directness."
    )
    independence_group: str | None = Field(
        default=None,
        description="Independence group; one link per group and direction counts. Default: the provenance cluster when it has more than one member.",
    )
    origin: str | None = Field(
        default=None,
        description="Where the evidence came from; groups ungrouped links from 0.2.0 on. Default: the canonical URL.",
    )
    provenance: LinkProvenance | None = Field(
        default=None,
        description="SELF when the evidence is the claim's own origin. Default: SELF for a self-citation or the subject's own page.",
    )
    edition: EditionKind | None = Field(
        default=None, description="NAMED or OTHER edition of the source. Default: NAMED."
    )
    recorded_by: str | None = Field(
        default=None,
        description="Who recorded the link; a primary-source link recorded by the claim's author does not satisfy the checklist.",
    )


class ReviewCheck(LedgerModel):
    """One review check recorded against a claim."""

    check_id: str = Field(description="Identifier of the check record; listed in the checklist it satisfies.")
    check: ReviewCheckName = Field(description="Which checklist item was done.")
    performed_by: str = Field(
        description="Who did it. A check by the claim's own author (recorded_by) is shown and never counts."
    )
    note: str = Field(default="", description="Free text; no rule reads it.")


class LedgerClaim(LedgerModel):
    """A claim's ledger-model fields; each omitted field is derived from the claim (docs/ledger-models.md)."""

    claim_type: LedgerClaimType | None = Field(
        default=None, description="The claim's ledger type. Default: from claim_type and disposition."
    )
    not_evaluable: NotEvaluableReason | None = Field(
        default=None,
        description="Set when the claim is not truth-evaluable. Default: from a non-checkable disposition.",
    )
    recorded_by: str | None = Field(
        default=None, description="The claim's author; checks this person performs never count."
    )
    review_checks: list[ReviewCheck] = Field(
        default_factory=list, description="Review checks recorded against the claim."
    )
