"""The stored shape of live debates: organisations and plans, debates, segments, claims, panels, answers.

Revision ``0003_debates`` creates these tables; the test that compares the ORM with the migrations covers
them like every other table.

- ``organisations`` / ``plans`` / ``token_organisations``: which organisation a token belongs to, which
  research methods its plan allows, its monthly claim quota and spend limit.
- ``debates``: the settings a debate was created with (JSON, the API's own names), its speaker map and
  where detection stands (the speaker gate).
- ``debate_segments``: the transcript as received; (debate_id, segment_id) is unique, so a segment sent
  twice is stored once.
- ``debate_claims``: the claims detected in a debate or added to it; ``withheld`` keeps a claim out of
  sight (and unresearched) while the speakers it needs are unnamed.
- ``debate_panels``: one research method's work on one claim: a job (state, lease, attempts, next
  attempt) and its answer (panel JSON). Completion is fenced by the lease owner and attempt number, so a
  worker whose lease ran out cannot write a second answer.
- ``claim_verdicts``: the one current answer per claim and its history (and, when a metered adjudication
  failed, its retry state); ``adjudication_budget`` counts metered adjudication calls per UTC day.
- ``winner_selections``, ``debate_feedback``: operator choices and reader feedback (feedback never changes
  a verdict).
- ``debate_events``: what the live feed sends, numbered per debate without gaps in commit order.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Final

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from icarus.store.tables import Base, UtcDateTime

__all__ = [
    "DEBATE_TABLES",
    "AdjudicationBudgetRecord",
    "ClaimVerdictRecord",
    "DebateClaimRecord",
    "DebateEventRecord",
    "DebateFeedbackRecord",
    "DebateMode",
    "DebatePanelRecord",
    "DebateRecord",
    "DebateSegmentRecord",
    "DetectionState",
    "OrganisationRecord",
    "PanelState",
    "PlanRecord",
    "TokenOrganisation",
    "WinnerSelectionRecord",
    "WinnerState",
]

DEBATE_TABLES: Final = (
    "plans",
    "organisations",
    "token_organisations",
    "debates",
    "debate_segments",
    "debate_claims",
    "debate_panels",
    "claim_verdicts",
    "winner_selections",
    "debate_feedback",
    "debate_events",
    "adjudication_budget",
)


class DebateMode(StrEnum):
    """``live``: segments arrive as a stream. ``file``: a whole transcript was ingested at once."""

    LIVE = "live"
    FILE = "file"


class DetectionState(StrEnum):
    """Where claim detection stands for a debate.

    ``idle``: nothing to detect yet. ``deferred``: a file was ingested under the speaker gate and waits
    for every voice to be named (or for ``skip_speakers``). ``requested``: a run is due (the periodic
    task starts it). ``running``: a worker holds it until ``detection_due_at`` (then another may take it
    over). ``done``: the stored transcript has been through detection.
    """

    IDLE = "idle"
    DEFERRED = "deferred"
    REQUESTED = "requested"
    RUNNING = "running"
    DONE = "done"


class PanelState(StrEnum):
    """``pending``: waiting for its (next) attempt. ``running``: leased by a worker. ``done``: answered."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"


class WinnerState(StrEnum):
    """``current``: the operator's winner. ``superseded``: replaced by a later one. ``rejected``: refused."""

    CURRENT = "current"
    SUPERSEDED = "superseded"
    REJECTED = "rejected"


def _choices(name: str, column: str, values: type[StrEnum]) -> CheckConstraint:
    allowed = ", ".join(f"'{v.value}'" for v in values)
    return CheckConstraint(f"{column} IN ({allowed})", name=name)


class PlanRecord(Base):
    """What an organisation may spend: methods, claims per month, research cost per month (null: no limit)."""

    __tablename__ = "plans"
    __table_args__ = (UniqueConstraint("name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    methods_json: Mapped[str] = mapped_column(Text)
    claim_quota: Mapped[int | None] = mapped_column(Integer)
    spend_limit: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class OrganisationRecord(Base):
    __tablename__ = "organisations"
    __table_args__ = (UniqueConstraint("name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128))
    plan_id: Mapped[int | None] = mapped_column(ForeignKey("plans.id"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class TokenOrganisation(Base):
    """A token belongs to at most one organisation (a link table: ``api_tokens`` itself is unchanged)."""

    __tablename__ = "token_organisations"

    token_id: Mapped[int] = mapped_column(ForeignKey("api_tokens.id"), primary_key=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"), index=True)


class DebateRecord(Base):
    __tablename__ = "debates"
    __table_args__ = (
        _choices("mode", "mode", DebateMode),
        _choices("detection_state", "detection_state", DetectionState),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    organisation_id: Mapped[int | None] = mapped_column(ForeignKey("organisations.id"), index=True)
    created_by: Mapped[int | None] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(512))
    settings_json: Mapped[str] = mapped_column(Text)
    speakers_json: Mapped[str] = mapped_column(Text)
    mode: Mapped[str] = mapped_column(String(8))
    detection_state: Mapped[str] = mapped_column(String(16))
    skip_speakers: Mapped[bool] = mapped_column(Boolean)
    detection_due_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    # When the debate took place; null only on rows older than revision 0007, read as created_at.
    held_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class DebateSegmentRecord(Base):
    """One stretch of speech. ``seq`` is arrival order; ``detected`` says detection has read it."""

    __tablename__ = "debate_segments"
    __table_args__ = (
        UniqueConstraint("debate_id", "segment_id"),
        Index("ix_debate_segments_debate_id_seq", "debate_id", "seq"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    debate_id: Mapped[str] = mapped_column(ForeignKey("debates.id"))
    segment_id: Mapped[str] = mapped_column(String(128))
    seq: Mapped[int] = mapped_column(Integer)
    speaker_label: Mapped[str | None] = mapped_column(String(128))
    start_s: Mapped[float | None] = mapped_column(Float)
    end_s: Mapped[float | None] = mapped_column(Float)
    text: Mapped[str] = mapped_column(Text)
    detected: Mapped[bool] = mapped_column(Boolean)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime())


class DebateClaimRecord(Base):
    """A claim occurrence in one debate. ``text_key`` (normalised text) finds the same claim again.

    ``withheld``: ``speakers`` (live gate: a heard voice is unnamed) or ``needs_speaker`` (detection ran
    with skip_speakers and this claim depends on who said it); null once shown.
    """

    __tablename__ = "debate_claims"
    __table_args__ = (Index("ix_debate_claims_debate_id_text_key", "debate_id", "text_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    debate_id: Mapped[str] = mapped_column(ForeignKey("debates.id"))
    text: Mapped[str] = mapped_column(Text)
    text_key: Mapped[str] = mapped_column(String(512))
    speaker_label: Mapped[str | None] = mapped_column(String(128))
    segment_ids_json: Mapped[str] = mapped_column(Text)
    checkworthiness: Mapped[float] = mapped_column(Float)
    claim_type: Mapped[str] = mapped_column(String(32))
    manually_added: Mapped[bool] = mapped_column(Boolean)
    withheld: Mapped[str | None] = mapped_column(String(16))
    created_by: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    released_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class DebatePanelRecord(Base):
    """One research method's work on one claim: the job and, once done, its answer."""

    __tablename__ = "debate_panels"
    __table_args__ = (
        _choices("state", "state", PanelState),
        Index("ix_debate_panels_state_next_attempt_at", "state", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("debate_claims.id"), index=True)
    debate_id: Mapped[str] = mapped_column(String(32), index=True)
    research_mode: Mapped[str] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(String(16))
    manual: Mapped[bool] = mapped_column(Boolean)
    escalated: Mapped[bool] = mapped_column(Boolean)
    strong_language: Mapped[bool] = mapped_column(Boolean)
    lease_owner: Mapped[str | None] = mapped_column(String(64))
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    attempts: Mapped[int] = mapped_column(Integer)
    search_failures: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    research_delay_reason: Mapped[str | None] = mapped_column(String(32))
    verdict: Mapped[str | None] = mapped_column(String(32))
    panel_json: Mapped[str | None] = mapped_column(Text)
    fingerprint: Mapped[str | None] = mapped_column(Text)
    corrected_verdict: Mapped[str | None] = mapped_column(String(32))
    cost: Mapped[float] = mapped_column(Float)
    billed_token_id: Mapped[int | None] = mapped_column(Integer)
    billed_organisation_id: Mapped[int | None] = mapped_column(Integer, index=True)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class ClaimVerdictRecord(Base):
    """The one current answer for a claim occurrence (JSON, null while pending) and every earlier one."""

    __tablename__ = "claim_verdicts"

    claim_id: Mapped[int] = mapped_column(ForeignKey("debate_claims.id"), primary_key=True)
    verdict_json: Mapped[str | None] = mapped_column(Text)
    history_json: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # A metered adjudication that failed: its attempts on this conflict, and when to try again.
    adjudication_json: Mapped[str | None] = mapped_column(Text)
    adjudication_due_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), index=True)


class AdjudicationBudgetRecord(Base):
    """The shared daily count of metered adjudication calls (one row)."""

    __tablename__ = "adjudication_budget"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    day: Mapped[str | None] = mapped_column(String(10))
    calls: Mapped[int] = mapped_column(Integer)


class WinnerSelectionRecord(Base):
    __tablename__ = "winner_selections"
    __table_args__ = (_choices("state", "state", WinnerState),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("debate_claims.id"), index=True)
    panel_id: Mapped[int] = mapped_column(ForeignKey("debate_panels.id"))
    state: Mapped[str] = mapped_column(String(16))
    token_id: Mapped[int | None] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class DebateFeedbackRecord(Base):
    """A vote, panel feedback, answer feedback or claim-extraction feedback: recorded, never deciding."""

    __tablename__ = "debate_feedback"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32))
    debate_id: Mapped[str] = mapped_column(String(32), index=True)
    claim_id: Mapped[int | None] = mapped_column(Integer)
    panel_id: Mapped[int | None] = mapped_column(Integer)
    token_id: Mapped[int | None] = mapped_column(Integer)
    data_json: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class DebateEventRecord(Base):
    """One live-feed event. ``seq`` counts per debate; the unique pair makes concurrent writers queue, so
    a reader that has seen ``seq`` n never later finds a smaller one committed behind it."""

    __tablename__ = "debate_events"
    __table_args__ = (UniqueConstraint("debate_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    debate_id: Mapped[str] = mapped_column(String(32))
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    data_json: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
