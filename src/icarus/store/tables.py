"""The stored shape of checks and their report versions (SQLAlchemy 2 typed ORM).

These classes describe the schema; the Alembic revisions in ``migrations/`` create it. A test compares the
two, so a column added here without a revision fails CI instead of a deployment.

What is stored where:

- ``subjects``: what was checked, indexed by subject kind + subject id (post id, URL, content hash). No
  column names or identifies a person: reports are indexed by post and check, never by person.
- ``checks``: one row per check request about a subject; the only table with a mutable column (status).
- ``report_versions``: append-only. A recheck or correction adds version n+1; (check_id, version) is
  unique, and database triggers refuse UPDATE and DELETE on it.
- ``snapshots``: metadata of content-addressed snapshots (the bytes live in the blob store). Append-only.

Evidence items and judge answers are not tables of their own yet: they are stored inside each version's
ledger JSON, which is exactly what the version was scored from. Tables for them can be derived later
without losing anything.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Final

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
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
    "Base",
    "Check",
    "CheckStatus",
    "Reason",
    "ReportVersion",
    "SnapshotRecord",
    "SubjectRecord",
    "UtcDateTime",
]

# Named constraints keep Alembic revisions (and SQLite batch rebuilds) deterministic across databases.
NAMING_CONVENTION: Final = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

HASH_LENGTH: Final = 80  # "sha256:" + 64 hex digits, with room to spare
APPEND_ONLY_TABLES: Final = ("report_versions", "snapshots")


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
    """One check request about one subject; its report versions hang off it."""

    __tablename__ = "checks"
    __table_args__ = (_choices("status", "status", CheckStatus),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    subject_pk: Mapped[int] = mapped_column(ForeignKey("subjects.id"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


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
