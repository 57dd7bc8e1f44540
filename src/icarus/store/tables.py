"""The stored shape of checks and their report versions (SQLAlchemy 2 typed ORM).

These classes describe the schema; the Alembic revisions in ``migrations/`` create it. A test compares the
two, so a column added here without a revision fails CI instead of a deployment.

What is stored where:

- ``subjects``: what was checked, indexed by subject kind + subject id (post id, URL, content hash). No
  column names or identifies a person: reports are indexed by post and check, never by person.
- ``checks``: one row per check request about a subject, and its status row: the status and what list views
  show of the latest version (version number, label, band, as-of and a short headline), written in the
  version's own transaction so a list never reads a ledger.
- ``report_versions``: append-only. A recheck or correction adds version n+1; (check_id, version) is
  unique, and database triggers refuse UPDATE and DELETE on it.
- ``snapshots``: metadata of content-addressed snapshots (the bytes live in the blob store). Append-only.

Evidence items and judge answers are not tables of their own yet: they are stored inside each version's
ledger JSON, which is exactly what the version was scored from. Tables for them can be derived later
without losing anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Final

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

__all__ = [
    "APPEND_ONLY_TABLES",
    "HEADLINE_CHARS",
    "INTEGER_MAX",
    "ApiToken",
    "Base",
    "Check",
    "CheckEvent",
    "CheckRequest",
    "CheckRun",
    "CheckStatus",
    "Job",
    "JobState",
    "Reason",
    "Removal",
    "ReportVersion",
    "RequestState",
    "SnapshotRecord",
    "SubjectRecord",
    "UtcDateTime",
    "list_headline",
]

INTEGER_MAX: Final = 2**31 - 1
"""The largest value an ``Integer`` column holds on PostgreSQL (SQLite's are wider). An id or version past
it names no row, and handing it to the database fails with an overflow instead of finding nothing."""

# Named constraints keep Alembic revisions (and SQLite batch rebuilds) deterministic across databases.
NAMING_CONVENTION: Final = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

HASH_LENGTH: Final = 80  # "sha256:" + 64 hex digits, with room to spare
APPEND_ONLY_TABLES: Final = ("report_versions", "snapshots", "check_runs")
HEADLINE_CHARS: Final = 160
"""The longest headline a list shows: a claim of any length stays one or two lines on the dashboard."""
ELLIPSIS: Final = "\u2026"


def list_headline(result: Mapping[str, Any]) -> str | None:
    """What lists show of a result: its first claim's words on one line, cut at a word boundary to at most
    ``HEADLINE_CHARS`` characters (ending in an ellipsis when cut). None when there is no claim."""
    claims = result.get("claims") or []
    first = claims[0] if isinstance(claims, list) and claims else None
    words = " ".join(str(first.get("text", "")).split()) if isinstance(first, Mapping) else ""
    if not words:
        return None
    if len(words) <= HEADLINE_CHARS:
        return words
    cut = words[: HEADLINE_CHARS - 1]
    space = cut.rfind(" ")
    if space >= HEADLINE_CHARS // 2:  # a very long word is cut where it stands
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + ELLIPSIS


class Reason(StrEnum):
    """Why a report version exists: the first run, a scheduled or requested recheck, or a correction."""

    FIRST = "first"
    RECHECK = "recheck"
    CORRECTION = "correction"


class CheckStatus(StrEnum):
    """``pending``: requested, no version yet. ``recorded``: at least one version is stored."""

    PENDING = "pending"
    RECORDED = "recorded"


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out, on every backend.

    SQLite has no time-zone type, so it stores naive UTC; PostgreSQL stores ``timestamptz``. Either way the
    application only ever sees aware UTC values, and a naive value is refused instead of guessed.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime refused: store times are UTC and must say so")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _choices(name: str, column: str, values: type[StrEnum]) -> CheckConstraint:
    allowed = ", ".join(f"'{v.value}'" for v in values)
    return CheckConstraint(f"{column} IN ({allowed})", name=name)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class SubjectRecord(Base):
    """Something a check was asked about, indexed by what it is, never by who wrote it."""

    __tablename__ = "subjects"
    __table_args__ = (UniqueConstraint("kind", "subject_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[str] = mapped_column(String(2048))
    url: Mapped[str | None] = mapped_column(Text)
    first_seen_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Check(Base):
    """One check request about one subject; its report versions hang off it.

    The ``latest_*`` columns and ``headline`` repeat what lists need of the latest version (revision
    0006_list_columns), so the dashboard and ``GET /v1/checks`` read one row per check, not its ledger.
    """

    __tablename__ = "checks"
    __table_args__ = (_choices("status", "status", CheckStatus),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    subject_pk: Mapped[int] = mapped_column(ForeignKey("subjects.id"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    latest_version: Mapped[int | None] = mapped_column(Integer)
    latest_label: Mapped[str | None] = mapped_column(String(32))
    latest_band: Mapped[str | None] = mapped_column(String(16))
    latest_as_of: Mapped[datetime | None] = mapped_column(UtcDateTime())
    headline: Mapped[str | None] = mapped_column(String(HEADLINE_CHARS))


class ReportVersion(Base):
    """One immutable report version: what was scored (ledger), what came out (result), and its hashes."""

    __tablename__ = "report_versions"
    __table_args__ = (
        UniqueConstraint("check_id", "version"),
        # The same run recorded twice (a retried job) must land on one version, even when two writers race.
        UniqueConstraint("check_id", "ledger_hash", "trace_hash"),
        CheckConstraint("version >= 1", name="version_positive"),
        _choices("reason", "reason", Reason),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[str] = mapped_column(ForeignKey("checks.id"))
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    as_of: Mapped[datetime] = mapped_column(UtcDateTime())
    policy: Mapped[str] = mapped_column(String(64))
    config_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    code_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    ledger_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    trace_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    label: Mapped[str] = mapped_column(String(32))
    band: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(String(16))
    what_changed: Mapped[str] = mapped_column(Text)
    # Text, not a JSON type: the exact bytes come back (JSONB would reorder keys), on SQLite and PostgreSQL.
    ledger_json: Mapped[str] = mapped_column(Text)
    result_json: Mapped[str] = mapped_column(Text)


class SnapshotRecord(Base):
    """Metadata of one content-addressed snapshot: these bytes were fetched from this address."""

    __tablename__ = "snapshots"
    # One row per (bytes, address): the same bytes fetched again from the same address add nothing.
    __table_args__ = (UniqueConstraint("ref", "url"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ref: Mapped[str] = mapped_column(String(HASH_LENGTH))
    url: Mapped[str] = mapped_column(String(2048))
    content_type: Mapped[str | None] = mapped_column(String(255))
    fetched_at: Mapped[datetime] = mapped_column(UtcDateTime())
    archived: Mapped[bool] = mapped_column(Boolean, default=False)
    archive_url: Mapped[str | None] = mapped_column(Text)


# --- the service: requests, jobs, runs, events, tokens and removals (revision 0002_service) ---------------


class RequestState(StrEnum):
    """Where a submitted check stands.

    ``queued``: accepted, not started. ``running``: a worker holds it. ``retrying``: its run failed with an
    error and runs again at the next attempt time (the job's due time). ``recorded``: a version exists.
    ``pending``: no version yet for a stated reason (``search_unavailable``), retried on a schedule.
    ``failed``: the input could not be captured (a deleted post, an unreadable page), or every attempt
    failed; nothing was scored.
    """

    QUEUED = "queued"
    RUNNING = "running"
    RETRYING = "retrying"
    RECORDED = "recorded"
    PENDING = "pending"
    FAILED = "failed"


class JobState(StrEnum):
    """``scheduled``: waiting for its due time. ``running``: leased by a worker until ``lease_until``.
    ``done``: finished (with or without a new version). ``cancelled``: no longer needed."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"


class CheckRequest(Base):
    """A check as the service received it: the input, before and after capture, and its current state.

    ``id`` is the check id; the ``checks`` row with the same id is created once the subject is captured.
    ``post_id`` indexes checks by X post; nothing here records who asked.
    """

    __tablename__ = "check_requests"
    __table_args__ = (_choices("state", "state", RequestState),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    input_kind: Mapped[str] = mapped_column(String(16))
    input_json: Mapped[str] = mapped_column(Text)
    policy: Mapped[str | None] = mapped_column(String(64))
    post_id: Mapped[str | None] = mapped_column(String(32), index=True)
    state: Mapped[str] = mapped_column(String(16))
    state_reason: Mapped[str | None] = mapped_column(String(64))
    detail: Mapped[str | None] = mapped_column(Text)
    submitted_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Job(Base):
    """One run of a check, first or later, identified by its run key (``first``, ``recheck+15m``, ...).

    The (check_id, run_key) pair is unique, so scheduling the same run twice adds nothing: that is what
    makes start-up schedule repair idempotent. A worker leases a job; a lease that runs out (the worker
    died) lets another worker take the job again.
    """

    __tablename__ = "jobs"
    __table_args__ = (
        UniqueConstraint("check_id", "run_key"),
        _choices("state", "state", JobState),
        Index("ix_jobs_state_due_at", "state", "due_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[str] = mapped_column(String(64), index=True)
    run_key: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(16))
    due_at: Mapped[datetime] = mapped_column(UtcDateTime())
    state: Mapped[str] = mapped_column(String(16))
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    note: Mapped[str | None] = mapped_column(Text)
    outcome: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class CheckRun(Base):
    """Which version a run produced. Written in the version's own transaction; append-only.

    A worker killed after the version was written but before its job was marked done reruns the job, finds
    this row and records nothing new: one run, one version, whatever happens to the worker.
    """

    __tablename__ = "check_runs"
    __table_args__ = (UniqueConstraint("check_id", "run_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[str] = mapped_column(ForeignKey("checks.id"))
    run_key: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class CheckEvent(Base):
    """A progress message, state change or new version of a check, in order: what the event stream sends."""

    __tablename__ = "check_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    kind: Mapped[str] = mapped_column(String(16))
    data_json: Mapped[str] = mapped_column(Text)


class ApiToken(Base):
    """An API token, stored only as its SHA-256 hash; ``prefix`` lets an admin tell tokens apart."""

    __tablename__ = "api_tokens"
    __table_args__ = (UniqueConstraint("token_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    prefix: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(128))
    role: Mapped[str] = mapped_column(String(16))
    rate_per_minute: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Removal(Base):
    """Source content found deleted or protected: its redistributed text and images are hidden from then on.

    Versions are never rewritten; readers apply the removal when they serve a version.
    """

    __tablename__ = "removals"
    __table_args__ = (UniqueConstraint("subject_kind", "subject_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    subject_kind: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[str] = mapped_column(String(2048))
    reason: Mapped[str] = mapped_column(String(32))
    hidden_at: Mapped[datetime] = mapped_column(UtcDateTime())
