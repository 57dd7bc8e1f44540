"""The service's repository: check requests, jobs and their leases, progress events and removals.

It shares the report store's engine and transactions (``Store.transaction``), so a job's state and the
version it records live in one database, SQLite or PostgreSQL, and every worker sees the same schedule.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from icarus.ledger.subject import SubjectKind
from icarus.store.check_rows import CheckRow, CheckRows, ReportHead
from icarus.store.engine import storable
from icarus.store.repository import NotFound, Store
from icarus.store.tables import (
    Check,
    CheckEvent,
    CheckRequest,
    CheckRun,
    CheckStatus,
    Job,
    JobState,
    Removal,
    RequestState,
    SubjectRecord,
)

__all__ = [
    "RETRY_REASON",
    "WORKER_STOPPED",
    "CheckRow",
    "EventInfo",
    "JobInfo",
    "LeaseLost",
    "RemovalInfo",
    "ReportHead",
    "RequestInfo",
    "ServiceStore",
]

WORKER_STOPPED: Final = "worker_stopped"
"""The state reason of a check handed back to the queue because the worker running it stopped."""
RETRY_REASON: Final = "error"
"""The state reason of a check whose run failed with an error: ``retrying`` while attempts remain, then
``failed``."""


class LeaseLost(RuntimeError):
    """The job's lease moved on (it ran out and another worker claimed the job, or it was handed back):
    whatever this worker found must not be written."""


@dataclass(frozen=True)
class RequestInfo:
    check_id: str
    input_kind: str
    input: dict[str, Any]
    policy: str | None
    post_id: str | None
    state: RequestState
    state_reason: str | None
    detail: str | None
    submitted_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class JobInfo:
    id: int
    check_id: str
    run_key: str
    reason: str
    due_at: datetime
    state: JobState
    attempts: int
    note: str | None
    outcome: str | None
    finished_at: datetime | None


@dataclass(frozen=True)
class EventInfo:
    id: int
    check_id: str
    at: datetime
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class RemovalInfo:
    subject_kind: str
    subject_id: str
    reason: str
    hidden_at: datetime


class ServiceStore:
    """Requests, jobs, events and removals, next to the report versions of ``store``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._rows = CheckRows(store)

    # --- requests --------------------------------------------------------------------------------------

    def submit(
        self,
        check_id: str,
        input_kind: str,
        payload: Mapping[str, Any],
        *,
        policy: str | None,
        post_id: str | None,
        now: datetime,
    ) -> None:
        """Accept a check: its request row, its first job (due now) and a ``queued`` event, atomically."""

        def work(session: Session) -> None:
            session.add(
                CheckRequest(
                    id=check_id,
                    input_kind=input_kind,
                    input_json=json.dumps(storable(payload), sort_keys=True),
                    policy=policy,
                    post_id=post_id,
                    state=RequestState.QUEUED,
                    submitted_at=now,
                    updated_at=now,
                )
            )
            session.add(
                Job(
                    check_id=check_id,
                    run_key="first",
                    reason="first",
                    due_at=now,
                    state=JobState.SCHEDULED,
                    attempts=0,
                    created_at=now,
                )
            )
            _event(session, check_id, now, "status", {"state": RequestState.QUEUED.value})

        self.store.transaction(work)

    def request(self, check_id: str) -> RequestInfo:
        with self.store.reading() as session:
            row = session.get(CheckRequest, check_id)
            if row is None:
                raise NotFound(f"no check {check_id!r}")
            return _request_info(row)

    def status(self, check_id: str) -> RequestInfo:
        """Where a check stands, whichever door it came in by: the service's request, or else (a check
        ``icarus check`` recorded straight into the store) its ``checks`` row, seen as a request: recorded
        once it has a version, else pending. NotFound when neither exists."""
        try:
            return self.request(check_id)
        except NotFound:
            pass
        with self.store.reading() as session:
            found = session.execute(
                select(Check, SubjectRecord)
                .join(SubjectRecord, SubjectRecord.id == Check.subject_pk)
                .where(Check.id == check_id)
            ).first()
            if found is None:
                raise NotFound(f"no check {check_id!r}") from None
            check, subject = found
            recorded = check.status == CheckStatus.RECORDED
            return RequestInfo(
                check_id=check.id,
                input_kind=subject.kind,
                input={},
                policy=None,
                post_id=subject.subject_id if subject.kind == SubjectKind.X_POST.value else None,
                state=RequestState.RECORDED if recorded else RequestState.PENDING,
                state_reason=None if recorded else "not_submitted_to_the_service",
                detail=None,
                submitted_at=check.created_at,
                updated_at=check.created_at,
            )

    def requests_for_post(self, post_id: str) -> list[RequestInfo]:
        """Every check of one X post, oldest first: reports are found by post, never by person."""
        with self.store.reading() as session:
            rows = session.scalars(
                select(CheckRequest)
                .where(CheckRequest.post_id == post_id)
                .order_by(CheckRequest.submitted_at, CheckRequest.id)
            ).all()
            return [_request_info(row) for row in rows]

    def recent(self, limit: int = 50) -> list[RequestInfo]:
        with self.store.reading() as session:
            rows = session.scalars(
                select(CheckRequest)
                .order_by(CheckRequest.submitted_at.desc(), CheckRequest.id.desc())
                .limit(limit)
            ).all()
            return [_request_info(row) for row in rows]

    def set_state(
        self,
        check_id: str,
        state: RequestState,
        now: datetime,
        *,
        reason: str | None = None,
        detail: str | None = None,
        post_id: str | None = None,
    ) -> None:
        """Move a request to ``state`` and tell the event stream."""

        def work(session: Session) -> None:
            row = session.get(CheckRequest, check_id)
            if row is None:
                raise NotFound(f"no check {check_id!r}")
            row.state, row.state_reason, row.detail, row.updated_at = state.value, reason, detail, now
            if post_id is not None:
                row.post_id = post_id
            data: dict[str, Any] = {"state": state.value}
            if reason:
                data["reason"] = reason
            if detail:
                data["detail"] = detail
            _event(session, check_id, now, "status", data)

        self.store.transaction(work)

    def recorded(
        self, check_id: str, version: int, data: Mapping[str, Any], now: datetime, *, post_id: str | None
    ) -> bool:
        """Announce version ``version``: the check is ``recorded`` and the ``status`` and ``version`` events
        are written, in one transaction and once per (check, version). False when they were already (a
        worker died after announcing, before closing its job, and the rerun finishes its bookkeeping)."""

        def work(session: Session) -> bool:
            row = session.scalars(
                select(CheckRequest).where(CheckRequest.id == check_id).with_for_update()
            ).first()
            if row is None:
                raise NotFound(f"no check {check_id!r}")
            announced = session.scalars(
                select(CheckEvent.data_json).where(
                    CheckEvent.check_id == check_id, CheckEvent.kind == "version"
                )
            ).all()
            if any(json.loads(found).get("version") == version for found in announced):
                return False
            row.state, row.state_reason, row.detail, row.updated_at = RequestState.RECORDED, None, None, now
            if post_id is not None:
                row.post_id = post_id
            _event(session, check_id, now, "status", {"state": RequestState.RECORDED.value})
            _event(session, check_id, now, "version", {"version": version, **data})
            return True

        return self.store.transaction(work)

    # --- jobs ------------------------------------------------------------------------------------------

    def schedule(
        self,
        check_id: str,
        run_key: str,
        reason: str,
        due_at: datetime,
        now: datetime,
        note: str | None = None,
    ) -> bool:
        """Schedule a run unless one with this key exists; True when it was added. Safe to repeat."""

        def work(session: Session) -> bool:
            exists = session.scalars(
                select(Job.id).where(Job.check_id == check_id, Job.run_key == run_key)
            ).first()
            if exists is not None:
                return False
            session.add(
                Job(
                    check_id=check_id,
                    run_key=run_key,
                    reason=reason,
                    due_at=due_at,
                    state=JobState.SCHEDULED,
                    attempts=0,
                    note=note,
                    created_at=now,
                )
            )
            session.flush()  # a concurrent scheduler's row surfaces here; the retry then sees it
            return True

        return self.store.transaction(work)

    def job(self, check_id: str, run_key: str) -> JobInfo:
        with self.store.reading() as session:
            row = session.scalars(select(Job).where(Job.check_id == check_id, Job.run_key == run_key)).first()
            if row is None:
                raise NotFound(f"check {check_id!r} has no run {run_key!r}")
            return _job_info(row)

    def job_by_id(self, job_id: int) -> JobInfo:
        with self.store.reading() as session:
            row = session.get(Job, job_id)
            if row is None:
                raise NotFound(f"no job {job_id}")
            return _job_info(row)

    def jobs(self, check_id: str) -> list[JobInfo]:
        with self.store.reading() as session:
            rows = session.scalars(select(Job).where(Job.check_id == check_id).order_by(Job.due_at, Job.id))
            return [_job_info(row) for row in rows]

    def due(self, now: datetime, limit: int = 100) -> list[JobInfo]:
        """Jobs ready to run: scheduled and due, or running under a lease that has run out."""
        with self.store.reading() as session:
            rows = session.scalars(
                select(Job).where(_runnable(now)).order_by(Job.due_at, Job.id).limit(limit)
            ).all()
            return [_job_info(row) for row in rows]

    def claim(self, check_id: str, run_key: str, now: datetime, lease: timedelta) -> JobInfo | None:
        """Lease a runnable job to the caller; None when it is not due, done, or leased by someone else.

        One conditional UPDATE decides, so two workers racing for the same job cannot both win.
        """

        def work(session: Session) -> JobInfo | None:
            claimed = session.execute(
                update(Job)
                .where(Job.check_id == check_id, Job.run_key == run_key, _runnable(now))
                .values(state=JobState.RUNNING, lease_until=now + lease, attempts=Job.attempts + 1)
                .execution_options(synchronize_session=False)
            )
            if getattr(claimed, "rowcount", 0) != 1:
                return None
            row = session.scalars(select(Job).where(Job.check_id == check_id, Job.run_key == run_key)).one()
            return _job_info(row)

        return self.store.transaction(work)

    def finish(self, job_id: int, now: datetime, outcome: str, attempts: int | None = None) -> bool:
        """Mark a job done; True when it was. With ``attempts`` (the caller's lease), only while that lease
        still holds: a worker whose lease moved on must not close a job another worker now runs."""

        def work(session: Session) -> bool:
            row = session.get(Job, job_id)
            if row is None:
                raise NotFound(f"no job {job_id}")
            if attempts is not None and (row.attempts != attempts or row.state != JobState.RUNNING):
                return False
            row.state, row.finished_at, row.outcome, row.lease_until = JobState.DONE, now, outcome, None
            return True

        return self.store.transaction(work)

    def renew(self, held: Mapping[int, int], now: datetime, lease: timedelta) -> set[int]:
        """Extend the leases of the jobs a worker runs (job id -> the attempt it leased) to ``now + lease``;
        returns the ids whose lease had already moved on, which the worker must not record."""

        def work(session: Session) -> set[int]:
            lost: set[int] = set()
            for job_id, attempts in sorted(held.items()):
                renewed = session.execute(
                    update(Job)
                    .where(Job.id == job_id, Job.attempts == attempts, Job.state == JobState.RUNNING)
                    .values(lease_until=now + lease)
                    .execution_options(synchronize_session=False)
                )
                if getattr(renewed, "rowcount", 0) != 1:
                    lost.add(job_id)
            return lost

        return self.store.transaction(work) if held else set()

    def reclaim_expired(self, now: datetime, limit: int = 100) -> list[JobInfo]:
        """Hand back to the schedule (due now) every job whose lease ran out: its worker stopped or hangs.

        A check that was ``running`` only because of such a job is ``queued`` again (reason
        ``worker_stopped``), so no check stays ``running`` without a live worker. Returns the jobs handed
        back, for the caller to queue."""

        def work(session: Session) -> list[JobInfo]:
            rows = session.scalars(
                select(Job)
                .where(Job.state == JobState.RUNNING, Job.lease_until < now)
                .order_by(Job.lease_until, Job.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
            ).all()
            for row in rows:
                row.state, row.due_at, row.lease_until = JobState.SCHEDULED, now, None
                row.outcome = "lease ran out (its worker stopped); queued again"
                _requeue_request(session, row.check_id, now)
            return [_job_info(row) for row in rows]

        return self.store.transaction(work)

    def hand_back(self, job_id: int, attempts: int, now: datetime, outcome: str) -> bool:
        """Return a job this worker still leases to the schedule, due now (the worker is stopping); its
        check, if ``running``, is ``queued`` again. False when the lease had moved on already."""

        def work(session: Session) -> bool:
            row = session.get(Job, job_id)
            if row is None or row.attempts != attempts or row.state != JobState.RUNNING:
                return False
            row.state, row.due_at, row.lease_until, row.outcome = JobState.SCHEDULED, now, None, outcome
            _requeue_request(session, row.check_id, now)
            return True

        return self.store.transaction(work)

    def lease_guard(self, job_id: int, attempts: int) -> Callable[[Session], None]:
        """A check for a write transaction: raises ``LeaseLost`` unless the job still runs under the lease
        taken at ``attempts``. It locks the job row (PostgreSQL), so no claim slips in before the commit;
        SQLite's write transactions are serialised already."""

        def guard(session: Session) -> None:
            row = session.scalars(select(Job).where(Job.id == job_id).with_for_update()).first()
            if row is None or row.attempts != attempts or row.state != JobState.RUNNING:
                raise LeaseLost(f"job {job_id}: the lease of attempt {attempts} has moved on")

        return guard

    def release(
        self,
        job_id: int,
        due_at: datetime,
        outcome: str,
        attempts: int | None = None,
        *,
        retrying_since: datetime | None = None,
    ) -> None:
        """Give a leased job back to the schedule (a worker stopping before it could finish, or a run that
        failed and is tried again at ``due_at``). With ``attempts``, only if no other worker has claimed the
        job since that attempt. With ``retrying_since``, a check still ``running`` under the job says
        ``retrying`` from then, with ``outcome`` as its detail, and tells the event stream."""

        def work(session: Session) -> None:
            row = session.get(Job, job_id)
            if row is None or (attempts is not None and row.attempts != attempts):
                return
            if row.state == JobState.RUNNING:
                row.state, row.due_at, row.lease_until, row.outcome = (
                    JobState.SCHEDULED,
                    due_at,
                    None,
                    outcome,
                )
                if retrying_since is not None:
                    _retrying_request(session, row.check_id, due_at, outcome, retrying_since)

        self.store.transaction(work)

    def cancel(self, check_id: str, run_key_prefix: str, now: datetime) -> int:
        """Cancel the still-scheduled jobs of a check whose run key starts with ``run_key_prefix``."""

        def work(session: Session) -> int:
            result = session.execute(
                update(Job)
                .where(
                    Job.check_id == check_id,
                    Job.state == JobState.SCHEDULED,
                    Job.run_key.startswith(run_key_prefix, autoescape=True),
                )
                .values(state=JobState.CANCELLED, finished_at=now, outcome="no longer needed")
                .execution_options(synchronize_session=False)
            )
            return int(getattr(result, "rowcount", 0))

        return self.store.transaction(work)

    def run_version(self, check_id: str, run_key: str) -> int | None:
        """The version a run recorded, or None when it has recorded none (yet)."""
        with self.store.reading() as session:
            return session.scalars(
                select(CheckRun.version).where(CheckRun.check_id == check_id, CheckRun.run_key == run_key)
            ).first()

    def job_counts(self) -> dict[str, int]:
        with self.store.reading() as session:
            rows = session.execute(select(Job.state, func.count()).group_by(Job.state)).all()
            return {str(state): int(count) for state, count in rows}

    def request_counts(self) -> dict[str, int]:
        with self.store.reading() as session:
            rows = session.execute(
                select(CheckRequest.state, func.count()).group_by(CheckRequest.state)
            ).all()
            return {str(state): int(count) for state, count in rows}

    def recorded_checks(self) -> list[str]:
        """Ids of every check with a recorded version (what start-up schedule repair walks)."""
        with self.store.reading() as session:
            rows = session.scalars(
                select(CheckRequest.id).where(CheckRequest.state == RequestState.RECORDED)
            ).all()
            return list(rows)

    # --- events ----------------------------------------------------------------------------------------

    def add_event(self, check_id: str, kind: str, data: Mapping[str, Any], now: datetime) -> None:
        self.store.transaction(lambda session: _event(session, check_id, now, kind, data))

    def events(self, check_id: str, after: int = 0, limit: int = 500) -> list[EventInfo]:
        with self.store.reading() as session:
            rows = session.scalars(
                select(CheckEvent)
                .where(CheckEvent.check_id == check_id, CheckEvent.id > after)
                .order_by(CheckEvent.id)
                .limit(limit)
            ).all()
            return [
                EventInfo(row.id, row.check_id, row.at, row.kind, json.loads(row.data_json)) for row in rows
            ]

    def all_events(self, after: int = 0, limit: int = 500) -> list[EventInfo]:
        """Events of every check after id ``after``, in order (the dashboard's live feed)."""
        with self.store.reading() as session:
            rows = session.scalars(
                select(CheckEvent).where(CheckEvent.id > after).order_by(CheckEvent.id).limit(limit)
            ).all()
            return [
                EventInfo(row.id, row.check_id, row.at, row.kind, json.loads(row.data_json)) for row in rows
            ]

    def last_event_id(self) -> int:
        with self.store.reading() as session:
            return int(session.scalar(select(func.max(CheckEvent.id))) or 0)

    def prune_events(self, before: datetime) -> int:
        """Delete the events recorded before ``before``; returns how many. The newest event always stays:
        event ids must keep growing for clients that resume a stream after one (SQLite would otherwise
        hand out the ids of an emptied table again)."""

        def prune(session: Session) -> int:
            newest = session.scalar(select(func.max(CheckEvent.id)))
            if newest is None:
                return 0
            result = session.execute(delete(CheckEvent).where(CheckEvent.at < before, CheckEvent.id < newest))
            return int(getattr(result, "rowcount", 0) or 0)

        return self.store.transaction(prune)

    # --- reading reports fast; lists and pollers from status rows only (``check_rows``) ----------------

    def report_head(self, check_id: str) -> ReportHead | None:
        """What serving a report needs before its body, in one query; None for a check with no ``checks``
        row."""
        return self._rows.report_head(check_id)

    def check_rows(self, limit: int = 50, *, post_id: str | None = None) -> list[CheckRow]:
        """The newest ``limit`` checks (or every check of X post ``post_id``, oldest first), one query."""
        return self._rows.check_rows(limit, post_id=post_id)

    def check_row(self, check_id: str) -> CheckRow:
        """One check as a poller sees it; NotFound when neither a request nor a check has this id."""
        return self._rows.check_row(check_id)

    def newest_event_id(self) -> int:
        """The newest event's id (0 without events): what changes whenever a list row may have."""
        return self._rows.newest_event_id()

    # --- removals --------------------------------------------------------------------------------------

    def hide(self, subject_kind: str, subject_id: str, reason: str, now: datetime) -> bool:
        """Record that a subject's source content is gone; True when this is news. The first record stands."""

        def work(session: Session) -> bool:
            exists = session.scalars(
                select(Removal.id).where(
                    Removal.subject_kind == subject_kind, Removal.subject_id == subject_id
                )
            ).first()
            if exists is not None:
                return False
            session.add(
                Removal(subject_kind=subject_kind, subject_id=subject_id, reason=reason, hidden_at=now)
            )
            session.flush()
            return True

        return self.store.transaction(work)

    def removal(self, subject_kind: str, subject_id: str) -> RemovalInfo | None:
        with self.store.reading() as session:
            row = session.scalars(
                select(Removal).where(Removal.subject_kind == subject_kind, Removal.subject_id == subject_id)
            ).first()
            return None if row is None else _removal_info(row)

    def visible_subjects(self, kind: str) -> list[str]:
        """Subject ids of ``kind`` that have been checked and not hidden: what the deletion sweep looks at."""
        with self.store.reading() as session:
            hidden = select(Removal.subject_id).where(Removal.subject_kind == kind)
            rows = session.scalars(
                select(SubjectRecord.subject_id)
                .where(SubjectRecord.kind == kind, SubjectRecord.subject_id.not_in(hidden))
                .order_by(SubjectRecord.id)
            ).all()
            return list(rows)


def _runnable(now: datetime) -> Any:
    return or_(
        and_(Job.state == JobState.SCHEDULED, Job.due_at <= now),
        and_(Job.state == JobState.RUNNING, Job.lease_until < now),
    )


def _requeue_request(session: Session, check_id: str, now: datetime) -> None:
    """A check ``running`` under a job just handed back is ``queued`` again, and says why."""
    request = session.get(CheckRequest, check_id)
    if request is None or request.state != RequestState.RUNNING:
        return
    detail = "the worker running this check stopped; it runs again"
    request.state, request.state_reason, request.detail = RequestState.QUEUED, WORKER_STOPPED, detail
    request.updated_at = now
    data = {"state": RequestState.QUEUED.value, "reason": WORKER_STOPPED, "detail": detail}
    _event(session, check_id, now, "status", data)


def _retrying_request(session: Session, check_id: str, due_at: datetime, detail: str, now: datetime) -> None:
    """A check ``running`` under a job that failed and waits for its next attempt says ``retrying``."""
    request = session.get(CheckRequest, check_id)
    if request is None or request.state != RequestState.RUNNING:
        return
    request.state, request.state_reason, request.detail = RequestState.RETRYING, RETRY_REASON, detail
    request.updated_at = now
    data = {
        "state": RequestState.RETRYING.value,
        "reason": RETRY_REASON,
        "detail": detail,
        "next_attempt_at": due_at.isoformat(),
    }
    _event(session, check_id, now, "status", data)


def _event(session: Session, check_id: str, now: datetime, kind: str, data: Mapping[str, Any]) -> None:
    # JSON would carry a NUL as the escape \u0000, past the engine's cleaning: cleaned here, so an event says
    # what the row it reports holds.
    session.add(CheckEvent(check_id=check_id, at=now, kind=kind, data_json=json.dumps(storable(data))))


def _request_info(row: CheckRequest) -> RequestInfo:
    return RequestInfo(
        check_id=row.id,
        input_kind=row.input_kind,
        input=json.loads(row.input_json),
        policy=row.policy,
        post_id=row.post_id,
        state=RequestState(row.state),
        state_reason=row.state_reason,
        detail=row.detail,
        submitted_at=row.submitted_at,
        updated_at=row.updated_at,
    )


def _job_info(row: Job) -> JobInfo:
    return JobInfo(
        id=row.id,
        check_id=row.check_id,
        run_key=row.run_key,
        reason=row.reason,
        due_at=row.due_at,
        state=JobState(row.state),
        attempts=row.attempts,
        note=row.note,
        outcome=row.outcome,
        finished_at=row.finished_at,
    )


def _removal_info(row: Removal) -> RemovalInfo:
    return RemovalInfo(row.subject_kind, row.subject_id, row.reason, row.hidden_at)
