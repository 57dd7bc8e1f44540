"""Reading checks fast, from status rows only: the report head, and the rows lists and pollers show.

Every statement is built once with bound parameters and runs on a bare connection, without the ORM and
without SQLite's write lock (see engine.py); a connection a database restart cut is retried once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, case, func, select, text
from sqlalchemy.exc import DBAPIError

from icarus.ledger.subject import SubjectKind
from icarus.store.repository import NotFound, Store
from icarus.store.tables import (
    Check,
    CheckEvent,
    CheckRequest,
    CheckStatus,
    Job,
    JobState,
    Removal,
    RequestState,
    SubjectRecord,
)

__all__ = ["CheckRow", "CheckRows", "ReportHead"]


@dataclass(frozen=True)
class CheckRow:
    """A check as lists and pollers see it, read from status rows only (never a ledger or a result).

    ``subject_kind``/``subject_id`` are the captured subject's ("" before capture); ``latest_*`` and
    ``headline`` describe the latest version (None before the first); ``hidden`` is the removal reason
    when the source post was deleted or protected; ``next_run_at`` the next scheduled run, if any."""

    check_id: str
    input_kind: str
    post_id: str | None
    state: RequestState
    state_reason: str | None
    detail: str | None
    submitted_at: datetime
    updated_at: datetime
    subject_kind: str
    subject_id: str
    latest_version: int | None
    label: str | None
    band: str | None
    as_of: datetime | None
    headline: str | None
    hidden: str | None
    next_run_at: datetime | None


@dataclass(frozen=True)
class ReportHead:
    latest_version: int | None
    subject_kind: str
    subject_id: str
    hidden: str | None


class CheckRows:
    """The fast reads of checks, next to the report versions of ``store``."""

    def __init__(self, store: Store) -> None:
        # Reads on a bare connection, without the ORM and without SQLite's write lock (see engine.py).
        self._fast_reads = store.engine.execution_options(sqlite_begin="DEFERRED")

    def report_head(self, check_id: str) -> ReportHead | None:
        """What serving a report needs before its body, in one query: the latest version number, the
        subject, and whether the subject's words are hidden. None for a check with no ``checks`` row."""
        for attempt in (1, 2):
            try:
                with self._fast_reads.connect() as connection:
                    row = connection.execute(_REPORT_HEAD, {"check_id": check_id}).first()
                break
            except DBAPIError as exc:
                # The connection died under us (a database restart): the pool has dropped it; one retry
                # on a fresh connection turns a restart into a slower answer instead of an error.
                if attempt == 2 or not exc.connection_invalidated:
                    raise
        if row is None:
            return None
        return ReportHead(row[0], str(row[1]), str(row[2]), row[3])

    def check_rows(self, limit: int = 50, *, post_id: str | None = None) -> list[CheckRow]:
        """The newest ``limit`` checks (or every check of X post ``post_id``, oldest first), one query."""
        if post_id is None:
            found = self._read_fast(_NEWEST_ROWS, {"limit": limit})
        else:
            found = self._read_fast(_POST_ROWS, {"post_id": post_id, "limit": limit})
        return [_check_row(row) for row in found]

    def check_row(self, check_id: str) -> CheckRow:
        """One check as a poller sees it; also a check ``icarus check`` recorded straight into the store.
        NotFound when neither a request nor a check has this id."""
        rows = self._read_fast(_ONE_ROW, {"check_id": check_id})
        if rows:
            return _check_row(rows[0])
        stored = self._read_fast(_STORE_ONLY_ROW, {"check_id": check_id})
        if not stored:
            raise NotFound(f"no check {check_id!r}")
        return _store_only_row(stored[0])

    def newest_event_id(self) -> int:
        """The newest event's id (0 without events): what changes whenever a list row may have."""
        return int(self._read_fast(_NEWEST_EVENT)[0][0] or 0)

    def _read_fast(self, query: Any, parameters: Mapping[str, Any] | None = None) -> list[Any]:
        """Rows of ``query`` on a bare connection, retried once on a fresh connection when a database
        restart cut the pooled one."""
        for attempt in (1, 2):
            try:
                with self._fast_reads.connect() as connection:
                    return list(connection.execute(query, dict(parameters or {})).all())
            except DBAPIError as exc:
                if attempt == 2 or not exc.connection_invalidated:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover


# Hand-written (and so compiled once): this runs on every report read.
_REPORT_HEAD = text(
    "SELECT (SELECT max(v.version) FROM report_versions v WHERE v.check_id = c.id), s.kind, s.subject_id, "
    "(SELECT r.reason FROM removals r WHERE r.subject_kind = s.kind AND r.subject_id = s.subject_id) "
    "FROM checks c JOIN subjects s ON s.id = c.subject_pk WHERE c.id = :check_id"
)


def _hidden_reason(post_id: Any, subject_kind: Any, subject_id: Any) -> Any:
    """The removal reason of the X post a check is about (its request's post id, else its subject's)."""
    post = func.coalesce(post_id, case((subject_kind == SubjectKind.X_POST.value, subject_id)))
    return (
        select(Removal.reason)
        .where(Removal.subject_kind == SubjectKind.X_POST.value, Removal.subject_id == post)
        .limit(1)
        .scalar_subquery()
    )


_NEXT_RUN = (
    select(func.min(Job.due_at))
    .where(Job.check_id == CheckRequest.id, Job.state == JobState.SCHEDULED.value)
    .scalar_subquery()
)
_NEWEST_EVENT = select(func.max(CheckEvent.id))
# Built once: every list and poll runs one of these.
_CHECK_ROWS = (
    select(
        CheckRequest.id,
        CheckRequest.input_kind,
        CheckRequest.post_id,
        CheckRequest.state,
        CheckRequest.state_reason,
        CheckRequest.detail,
        CheckRequest.submitted_at,
        CheckRequest.updated_at,
        SubjectRecord.kind,
        SubjectRecord.subject_id,
        Check.latest_version,
        Check.latest_label,
        Check.latest_band,
        Check.latest_as_of,
        Check.headline,
        _hidden_reason(CheckRequest.post_id, SubjectRecord.kind, SubjectRecord.subject_id),
        _NEXT_RUN,
    )
    .select_from(CheckRequest)
    .outerjoin(Check, Check.id == CheckRequest.id)
    .outerjoin(SubjectRecord, SubjectRecord.id == Check.subject_pk)
)
# Whole statements built once with bound parameters: building one per call costs four times its query.
_ONE_ROW = _CHECK_ROWS.where(CheckRequest.id == bindparam("check_id"))
_NEWEST_ROWS = _CHECK_ROWS.order_by(CheckRequest.submitted_at.desc(), CheckRequest.id.desc()).limit(
    bindparam("limit")
)
_POST_ROWS = (
    _CHECK_ROWS.where(CheckRequest.post_id == bindparam("post_id"))
    .order_by(CheckRequest.submitted_at, CheckRequest.id)
    .limit(bindparam("limit"))
)
_STORE_ONLY_ROW = (
    select(
        Check.id,
        Check.status,
        Check.created_at,
        SubjectRecord.kind,
        SubjectRecord.subject_id,
        Check.latest_version,
        Check.latest_label,
        Check.latest_band,
        Check.latest_as_of,
        Check.headline,
        _hidden_reason(None, SubjectRecord.kind, SubjectRecord.subject_id),
    )
    .join(SubjectRecord, SubjectRecord.id == Check.subject_pk)
    .where(Check.id == bindparam("check_id"))
)


def _check_row(row: Any) -> CheckRow:
    (check_id, input_kind, post_id, state, reason, detail, submitted, updated) = row[:8]
    (kind, subject_id, version, label, band, as_of, headline, hidden, next_run) = row[8:]
    return CheckRow(
        check_id=check_id,
        input_kind=input_kind,
        post_id=post_id,
        state=RequestState(state),
        state_reason=reason,
        detail=detail,
        submitted_at=submitted,
        updated_at=updated,
        subject_kind=kind or "",
        subject_id=subject_id or "",
        latest_version=version,
        label=label,
        band=band,
        as_of=as_of,
        headline=headline,
        hidden=hidden,
        next_run_at=next_run,
    )


def _store_only_row(row: Any) -> CheckRow:
    """A check ``icarus check`` recorded (no service request) seen as one: recorded once it has a
    version, else pending."""
    check_id, status, created, kind, subject_id, version, label, band, as_of, headline, hidden = row
    recorded = status == CheckStatus.RECORDED.value
    return CheckRow(
        check_id=check_id,
        input_kind=kind,
        post_id=subject_id if kind == SubjectKind.X_POST.value else None,
        state=RequestState.RECORDED if recorded else RequestState.PENDING,
        state_reason=None if recorded else "not_submitted_to_the_service",
        detail=None,
        submitted_at=created,
        updated_at=created,
        subject_kind=kind,
        subject_id=subject_id,
        latest_version=version,
        label=label,
        band=band,
        as_of=as_of,
        headline=headline,
        hidden=hidden,
        next_run_at=None,
    )
