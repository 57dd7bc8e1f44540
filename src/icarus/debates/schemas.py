"""What the debate endpoints accept and answer, as the OpenAPI description publishes them.

Request bodies forbid unknown fields, so a misspelt setting is a 422 naming it rather than a setting
silently ignored. The answers reuse the shared debate types (``icarus.debates.model``) with one change:
the admin-only provenance ``diagnostics`` of a citation is left out of the published schema. The routes
send it to administrators only (``strip_diagnostics``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from icarus.debates.dating import HELD_AT_ALIAS, HELD_AT_FIELD, HeldAt
from icarus.debates.model import (
    Citation,
    ClaimVerdict,
    DebateSettings,
    Panel,
    ResearchMode,
    Segment,
    SubQuestion,
    Verdict,
)
from icarus.request_schema import not_both, not_nullable
from icarus.store.engine import storable
from icarus.store.tables import INTEGER_MAX

__all__ = [
    "ADMIN_ONLY_FIELDS",
    "DEBATE_ID_PATTERN",
    "MAX_SEGMENTS_PER_BATCH",
    "MAX_SPEAKERS",
    "AnswerFeedbackIn",
    "CitationOut",
    "ClaimAccepted",
    "ClaimIn",
    "ClaimList",
    "ClaimResultsOut",
    "ClaimSummaryOut",
    "ClaimVerdictOut",
    "CorrectionIn",
    "DebateCreate",
    "DebateOut",
    "DebateUpdate",
    "DetectionOut",
    "FeedbackRecorded",
    "ModelWeightsIn",
    "PanelFeedbackIn",
    "PanelOut",
    "RecentResults",
    "SegmentsAccepted",
    "SegmentsIn",
    "SpeakerMapIn",
    "SubQuestionOut",
    "TranscriptAccepted",
    "TranslationIn",
    "VoteIn",
    "WinnerIn",
    "strip_diagnostics",
]

MAX_SEGMENTS_PER_BATCH: Final = 500
MAX_SPEAKERS: Final = 200
ADMIN_ONLY_FIELDS: Final = frozenset({"diagnostics"})
DEBATE_ID_PATTERN: Final = r"^[A-Za-z0-9_-]{1,32}$"

DebateId = Annotated[
    str, Field(pattern=DEBATE_ID_PATTERN, description="The debate id from POST /v1/debates.")
]


# A NUL is kept as U+FFFD, as the store keeps it in every text it writes (icarus.store.engine), also
# inside the JSON a debate's settings and speaker map are stored as.
Text = Annotated[str, AfterValidator(storable)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _distinct(modes: list[ResearchMode] | None) -> list[ResearchMode] | None:
    if modes is None:
        return None
    return list(dict.fromkeys(modes))  # a method named twice is researched once


Weight = Annotated[float, Field(ge=0.0, le=1.0)]

_HELD_AT_NAMES: Final = AliasChoices(HELD_AT_FIELD, HELD_AT_ALIAS)
_HELD_AT_HELP: Final = (
    "When the debate took place: an ISO 8601 date or UTC timestamp (`as_of` is accepted as another name). "
    "Claims are read as of this date, not the day they are checked."
)


def _one_name_for_held_at(data: Any) -> Any:
    if isinstance(data, dict) and HELD_AT_FIELD in data and HELD_AT_ALIAS in data:
        raise ValueError(f"give {HELD_AT_FIELD} or {HELD_AT_ALIAS}, not both")
    return data


class DebateCreate(DebateSettings):
    """``POST /v1/debates``: the debate's settings (every field optional), a title and its date."""

    title: Text = Field(default="", max_length=512, description="Shown on the debate page.")
    held_at: HeldAt | None = Field(
        default=None, validation_alias=_HELD_AT_NAMES, description=_HELD_AT_HELP + " Default: now."
    )

    _one_name = model_validator(mode="before")(_one_name_for_held_at)

    @field_validator("research_modes", mode="after")
    @classmethod
    def _once_each(cls, modes: list[ResearchMode]) -> list[ResearchMode]:
        return _distinct(modes) or []

    def settings(self) -> DebateSettings:
        return DebateSettings.model_validate(self.model_dump(exclude={"title", HELD_AT_FIELD}))


# Settings PATCH may leave out but never set to null (a weight or the country may be: null clears it).
_NEVER_NULL: Final = (
    "title",
    "escalate_enabled",
    "escalate_max_steps",
    "speaker_gate_enabled",
    "provisional_claim_verdict",
    "elector_enabled",
    "primary_source_policy",
    "research_modes",
    "language",
    "held_at",
)


class DebateUpdate(_In):
    """``PATCH /v1/debates/{id}``: the fields named are replaced, the others kept. A weight set to null
    goes back to the default (no bias); the other settings may be left out but not set to null."""

    model_config = ConfigDict(json_schema_extra=not_nullable(*_NEVER_NULL))

    title: Text | None = Field(default=None, max_length=512)
    research_modes: list[ResearchMode] | None = Field(
        default=None, description="Applies to claims detected from now on; existing panels stay."
    )
    escalate_enabled: bool | None = None
    escalate_max_steps: int | None = Field(default=None, ge=0, le=5)
    speaker_gate_enabled: bool | None = None
    provisional_claim_verdict: bool | None = None
    elector_enabled: bool | None = None
    primary_source_policy: bool | None = None
    cost_weight: Weight | None = None
    latency_weight: Weight | None = None
    quality_weight: Weight | None = None
    language: str | None = Field(default=None, max_length=16)
    country: str | None = Field(default=None, max_length=8)
    held_at: HeldAt | None = Field(
        default=None,
        validation_alias=_HELD_AT_NAMES,
        description=_HELD_AT_HELP + " Research from now on reads the new date; answers already given stay.",
    )

    _modes = field_validator("research_modes", mode="after")(_distinct)
    _one_name = model_validator(mode="before")(_one_name_for_held_at)

    @field_validator(*_NEVER_NULL, mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("may be left out, but not set to null")
        return value

    def changes(self) -> dict[str, Any]:
        """What the request names, in the debate settings' own types."""
        return self.model_dump(exclude_unset=True, mode="json")


class ModelWeightsIn(_In):
    """``PATCH /v1/session/model-weights``: bias model choice for a live debate. Fields left out keep
    their value; null goes back to the default (no bias)."""

    debate_id: DebateId
    cost_weight: Weight | None = None
    latency_weight: Weight | None = None
    quality_weight: Weight | None = None

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True, exclude={"debate_id"})


SpeakerLabel = Annotated[str, Field(min_length=1, max_length=128)]
# Not cleaned: the speaker rules refuse control characters in a name, NUL among them (a 422 naming it).
SpeakerName = Annotated[str, Field(min_length=1, max_length=200)]


class SpeakerMapIn(_In):
    """``POST /v1/session/speaker-map``: diarization labels to the names of the people speaking."""

    debate_id: DebateId
    map: dict[SpeakerLabel, SpeakerName] = Field(
        max_length=MAX_SPEAKERS, description='e.g. {"SPEAKER_00": "Ana Ruiz"}'
    )


class SegmentsIn(_In):
    """``POST /v1/debates/{id}/segments``: a batch of the live stream, in order. Sending a segment id
    again is harmless: it is stored once."""

    segments: list[Segment] = Field(min_length=1, max_length=MAX_SEGMENTS_PER_BATCH)


class ClaimIn(_In):
    """``POST /v1/claim``: add a claim to a debate, or check one again (another method, the same method
    again, or in English and Spanish too). Name one ``research_mode`` or a list of ``research_modes``, or
    neither for the debate's methods; see ``icarus.debates.rechecks``."""

    model_config = ConfigDict(json_schema_extra=not_both("research_mode", "research_modes"))

    text: Text = Field(min_length=1, max_length=2000)
    debate_id: DebateId
    research_mode: ResearchMode | None = Field(
        default=None,
        description="Re-check with this one method; it runs even if the claim already has its panel.",
    )
    research_modes: list[ResearchMode] | None = Field(
        default=None,
        description="The methods the claim should have: only those it lacks run ([] researches nothing). "
        "Left out, with no research_mode: the debate's methods (the missing ones).",
    )
    manually_added: bool = Field(
        default=False, description="The elector waits for this method's panel; the panel does not vote."
    )
    strong_language: bool = Field(
        default=False, description="Also search in English and Spanish (an explicit rerun)."
    )

    _modes = field_validator("research_modes", mode="after")(_distinct)

    @model_validator(mode="after")
    def _one_way_to_name_methods(self) -> ClaimIn:
        if self.research_mode is not None and self.research_modes is not None:
            raise ValueError("give research_mode (a re-check) or research_modes (the missing ones), not both")
        return self

    def named_methods(self) -> tuple[list[ResearchMode] | None, bool]:
        """The methods named (None for the debate's) and whether they run again where already run."""
        if self.research_mode is not None:
            return [self.research_mode], True
        return self.research_modes, False


class VoteIn(_In):
    value: Literal["up", "down"]


FeedbackReason = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z_]{1,64}$")]


class PanelFeedbackIn(_In):
    """Thumbs on one research panel (or on the main answer, which reviews the panel it shows)."""

    value: Literal["up", "down"]
    kind: Literal["panel", "answer"] = "panel"
    reasons: list[FeedbackReason] = Field(default_factory=list, max_length=10)
    comment: Text = Field(default="", max_length=2000)
    benchmark_consent: bool = Field(default=False, description="May be used in a published benchmark.")


class AnswerFeedbackIn(_In):
    """``POST /v1/claims/{id}/feedback``: thumbs on the main answer or on the claim's extraction.

    ``answer`` on an agreement, operator or fallback answer reviews the panel it shows; on an adjudicated
    answer it is answer feedback recording the verdict, basis and panels shown. ``extraction`` says
    whether this should have been detected as a claim at all."""

    debate_id: DebateId
    value: Literal["up", "down"]
    kind: Literal["answer", "extraction"] = "answer"
    reasons: list[FeedbackReason] = Field(default_factory=list, max_length=10)
    comment: Text = Field(default="", max_length=2000)
    benchmark_consent: bool = False


class TranslationIn(_In):
    language: str = Field(min_length=2, max_length=16, pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
    explanation: Text = Field(min_length=1, max_length=20_000)


class CorrectionIn(_In):
    """A reviewer's verdict for one research panel, shown beside the method's own."""

    verdict: Verdict = Field(json_schema_extra={"not": {"const": Verdict.PENDING.value}})
    note: str | None = Field(default=None, max_length=2_000, description="Why, in a sentence or two.")

    @field_validator("verdict")
    @classmethod
    def _decided(cls, verdict: Verdict) -> Verdict:
        if verdict is Verdict.PENDING:
            raise ValueError("a correction states a verdict; pending is not one")
        return verdict


class WinnerIn(_In):
    """Choose (or reject a choice of) the panel that answers for a claim; it overrides the automatic answer."""

    debate_id: DebateId
    panel_id: int = Field(ge=1, le=INTEGER_MAX, description="A research panel's id.")


# ---- answers -------------------------------------------------------------------------------------------


class CitationOut(Citation):
    diagnostics: SkipJsonSchema[dict[str, Any] | None] = None  # admin-only, unpublished


class SubQuestionOut(SubQuestion):
    sources: list[CitationOut] = Field(default_factory=list)  # type: ignore[assignment]  # narrower: no diagnostics in the schema


class PanelOut(Panel):
    """One research method's answer, with where its job stands."""

    panel_id: int
    state: str = Field(description="pending, running or done")
    manual: bool = False
    escalated: bool = False
    strong_language: bool = False
    next_attempt_at: datetime | None = Field(default=None, description="when a pending panel runs again")
    corrected_verdict: Verdict | None = Field(
        default=None, description="An operator's correction, shown beside the method's own verdict."
    )
    sources: list[CitationOut] = Field(default_factory=list)  # type: ignore[assignment]  # narrower: no diagnostics in the schema
    sub_questions: list[SubQuestionOut] = Field(default_factory=list)  # type: ignore[assignment]


class ClaimVerdictOut(ClaimVerdict):
    sources: list[CitationOut] = Field(default_factory=list)  # type: ignore[assignment]  # narrower: no diagnostics in the schema


class ClaimResultsOut(BaseModel):
    """``GET /v1/claims/{id}/results``: the one answer, every method's panel, ``best`` (the same answer
    under its older name) and ``conflict`` (always false: a ``fallback`` basis marks an unresolved one)."""

    claim_id: int
    debate_id: str
    text: str
    claim_verdict: ClaimVerdictOut | None = Field(description="null while research is pending")
    panels: list[PanelOut]
    best: ClaimVerdictOut | None = Field(description="the same as claim_verdict")
    operator_winner_panel_id: int | None = None
    conflict: Literal[False] = False


class RecentResults(BaseModel):
    """``GET /v1/debates/{id}/results``: the newest claims' results, newest first."""

    debate_id: str
    results: list[ClaimResultsOut]


class DebateOut(BaseModel):
    id: str
    title: str
    settings: DebateSettings
    speaker_map: dict[str, str] = Field(description="diarization label → name")
    speakers_heard: list[str]
    speakers_waiting: list[str] = Field(description="labels heard but not yet named")
    mode: str = Field(description="live (segments) or file (a transcript)")
    detection_state: str = Field(description="idle, deferred, requested, running or done")
    segment_count: int
    claim_count: int
    held_at: datetime = Field(
        description="when the debate took place (UTC); the date its claims are read as of"
    )
    created_at: datetime
    updated_at: datetime
    links: dict[str, str]


class ClaimSummaryOut(BaseModel):
    claim_id: int
    text: str
    speaker_label: str | None
    speaker_name: str | None
    manually_added: bool
    checkworthiness: float
    claim_type: str
    created_at: datetime
    research_modes: list[ResearchMode]
    panels_done: int
    panels_pending: int
    claim_verdict: ClaimVerdictOut | None = Field(description="null while research is pending")
    links: dict[str, str]


class ClaimList(BaseModel):
    debate_id: str
    claims: list[ClaimSummaryOut]


class SegmentsAccepted(BaseModel):
    debate_id: str
    accepted: int = Field(description="segments stored by this request")
    duplicates: int = Field(description="segment ids already stored (sent again; kept once)")
    claims_detected: int
    claims_withheld: int = Field(description="held back while a speaker heard so far is unnamed")
    speakers_waiting: list[str]


class TranscriptAccepted(BaseModel):
    debate_id: str
    segments: int = Field(description="segments read from the transcript")
    accepted: int = Field(description="new segments stored")
    duplicates: int
    detection_state: str = Field(description="requested, or deferred under the speaker gate")
    speakers_waiting: list[str]


class DetectionOut(BaseModel):
    debate_id: str
    detection_state: str
    speakers_unnamed: list[str] = Field(description="voices that stay 'Speaker N' (skip_speakers)")


class ClaimAccepted(BaseModel):
    claim_id: int
    debate_id: str
    new_claim: bool = Field(description="false when the claim was already in the debate")
    panel_ids: list[int]
    queued_methods: list[ResearchMode] = Field(
        description="the methods this request queued: those the claim lacked, or the re-checked method"
    )
    already_researched: list[ResearchMode]
    links: dict[str, str]


class FeedbackRecorded(BaseModel):
    id: int
    kind: str = Field(description="vote, panel_feedback, answer_feedback, claim_extraction or translation")
    claim_id: int | None = None
    panel_id: int | None = None


class ExportedClaimOut(BaseModel):
    """One claim with its persisted final answer; ``verdict`` is ``pending`` while there is none (a
    provisional answer is not exported)."""

    claim_id: int
    debate_id: str
    text: str
    speaker_label: str | None
    speaker_name: str | None
    manually_added: bool
    created_at: datetime
    verdict: Verdict
    basis: str | None
    adjudication_reason: str | None
    confidence: float | None
    explanation: str
    sources: list[str]
    decided_at: datetime | None = Field(description="when the final answer was stored")


class DebateExportOut(BaseModel):
    debate_id: str
    claims: list[ExportedClaimOut]


class AlertDigestOut(BaseModel):
    debate_id: str
    since: datetime | None
    alerts: list[ExportedClaimOut] = Field(
        description="claims whose final answer is false, misleading or partially_true, decided since `since`"
    )


def strip_diagnostics(value: Any) -> Any:
    """``value`` (JSON-like) without the admin-only keys, at any depth."""
    if isinstance(value, dict):
        return {k: strip_diagnostics(v) for k, v in value.items() if k not in ADMIN_ONLY_FIELDS}
    if isinstance(value, list):
        return [strip_diagnostics(v) for v in value]
    return value
