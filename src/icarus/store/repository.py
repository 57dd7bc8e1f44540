"""The store's repository: record report versions, read them back, never change or remove them.

There is deliberately no update or delete method for versions or snapshots: a recheck or correction is a
new version (principle 3). Check status is the only thing that changes in place.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Self, TypeVar

from sqlalchemy import Engine, func, select
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer, sessionmaker

from icarus.ledger import Ledger, Subject
from icarus.scoring.canonical import canonical_json, sha256_hex
from icarus.settings import Settings
from icarus.store import changes
from icarus.store.engine import create_store_engine, normalise_url
from icarus.store.migrate import upgrade
from icarus.store.tables import (
    Check,
    CheckRun,
    CheckStatus,
    Reason,
    ReportVersion,
    SnapshotRecord,
    SubjectRecord,
    list_headline,
)

__all__ = [
    "CheckSummary",
    "Clock",
    "NotFound",
    "SnapshotInfo",
    "Store",
    "StoreConflict",
    "StoredVersion",
    "TimelineEntry",
    "VersionRef",
    "version_path",
]

Clock = Callable[[], datetime]
T = TypeVar("T")

WRITE_ATTEMPTS: Final = 12
_SNAPSHOT_REF = re.compile(r"sha256:[0-9a-f]{64}")


class NotFound(LookupError):
    """A check, version or snapshot this store has no record of."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class StoreConflict(RuntimeError):
    """A write kept colliding with concurrent writers and gave up (raised only after many retries)."""


def version_path(check_id: str, version: int) -> str:
    return f"/checks/{check_id}/versions/{version}"


@dataclass(frozen=True)
class VersionRef:
    """Where a recorded version lives. ``created`` is False when an identical run was already stored."""

    check_id: str
    version: int
    url_path: str
    created: bool = True


@dataclass(frozen=True)
class StoredVersion:
    """One report version as stored: its hashes and summary columns, and the exact ledger and result text."""

    check_id: str
    version: int
    url_path: str
    created_at: datetime
    as_of: datetime
    policy: str
    config_hash: str
    code_hash: str
    ledger_hash: str
    trace_hash: str
    label: str
    band: str
    reason: Reason
    what_changed: str
    ledger_json: str
    result_json: str

    def ledger(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.ledger_json)
        return data

    def result(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.result_json)
        return data


@dataclass(frozen=True)
class TimelineEntry:
    """One line of a check's history: when, as of when, what it said, and why this version exists."""

    check_id: str
    version: int
    url_path: str
    created_at: datetime
    as_of: datetime
    policy: str
    label: str
    band: str
    reason: Reason
    what_changed: str
    trace_hash: str


@dataclass(frozen=True)
class CheckSummary:
    check_id: str
    subject_kind: str
    subject_id: str
    status: CheckStatus
    created_at: datetime
    latest_version: int | None


@dataclass(frozen=True)
class SnapshotInfo:
    ref: str
    url: str
    content_type: str | None
    fetched_at: datetime
    archived: bool
    archive_url: str | None


class Store:
    """Checks and their append-only report versions in SQLite or PostgreSQL.

    ``Store(url).open()`` migrates the schema to the newest revision and returns the store. It is safe to
    share one store between threads: every call uses its own session and transaction.
    """

    def __init__(self, url: str | URL, *, clock: Clock | None = None) -> None:
        self._url = normalise_url(url)
        self._clock = clock or (lambda: datetime.now(UTC))
        self._engine: Engine = create_store_engine(self._url)
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        # Reads need no write lock on SQLite (see engine.py); elsewhere the option is ignored.
        self._reader = sessionmaker(self._engine.execution_options(sqlite_begin="DEFERRED"))
        self._opened = False

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, clock: Clock | None = None) -> Store:
        return cls((settings or Settings()).resolved_database_url, clock=clock)

    def __repr__(self) -> str:
        return f"Store({self._url.render_as_string(hide_password=True)!r})"

    @property
    def engine(self) -> Engine:
        return self._engine

    def open(self) -> Self:
        upgrade(self._engine)
        self._opened = True
        return self

    def close(self) -> None:
        self._engine.dispose()
        self._opened = False

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- writing ---------------------------------------------------------------------------------------

    def open_check(self, subject: Subject, check_id: str | None = None) -> str:
        """Register a check request before anything is scored; returns its id (status ``pending``).

        With ``check_id`` (the service assigns ids when a request arrives) opening the same check again
        returns it unchanged, so a rerun job can call this safely.
        """

        def work(session: Session) -> str:
            if check_id is not None and session.get(Check, check_id) is not None:
                self._check_for(session, subject, check_id)  # refuses a different subject
                return check_id
            row = self._subject_row(session, subject)
            check = Check(
                id=check_id or _new_check_id(),
                subject_pk=row.id,
                status=CheckStatus.PENDING,
                created_at=self._clock(),
            )
            session.add(check)
            session.flush()
            return check.id

        return self._write(work)

    def record_check(
        self,
        subject: Subject,
        ledger: Ledger,
        result: Mapping[str, Any],
        reason: Reason | str = Reason.FIRST,
        what_changed: str | None = None,
        *,
        check_id: str | None = None,
        run_key: str | None = None,
        guard: Callable[[Session], None] | None = None,
    ) -> VersionRef:
        """Store ``result`` (scored from ``ledger``) as the next version of a check.

        Without ``check_id`` a new check is created for ``subject``. The next version number is read and
        written in one transaction; if a concurrent writer took that number the unique (check_id, version)
        constraint refuses ours and we try again with the next one. Recording the same run again (same
        check, ledger hash and trace hash) returns the version already stored, marked ``created=False``.
        ``what_changed`` defaults to a summary against the previous version. ``reason`` is stored as given.
        With ``run_key`` (and ``check_id``) the version is tied to that run in the same transaction: if
        the run already recorded a version, that version is returned (``created=False``) and nothing is
        written, so a job rerun after a crash never adds a second version. ``guard`` runs first inside the
        same transaction and may raise to write nothing (a worker's lease check: a fenced write).
        """
        why = _reason(reason)
        if (subject.kind, subject.subject_id) != (ledger.subject.kind, ledger.subject.subject_id):
            raise ValueError(
                f"subject {subject.kind.value}:{subject.subject_id} is not the ledger's subject "
                f"{ledger.subject.kind.value}:{ledger.subject.subject_id}"
            )
        ledger_json = ledger.model_dump_json()
        facts = _result_facts(result, ledger_json)
        result_json = canonical_json(result)

        def work(session: Session) -> VersionRef:
            if guard is not None:
                guard(session)
            check = self._check_for(session, subject, check_id)
            if run_key is not None:
                done = session.scalars(
                    select(CheckRun.version).where(CheckRun.check_id == check.id, CheckRun.run_key == run_key)
                ).first()
                if done is not None:
                    return VersionRef(check.id, done, version_path(check.id, done), created=False)
            same_run = session.scalars(
                select(ReportVersion.version).where(
                    ReportVersion.check_id == check.id,
                    ReportVersion.ledger_hash == facts["ledger_hash"],
                    ReportVersion.trace_hash == facts["trace_hash"],
                )
            ).first()
            if same_run is not None:
                return VersionRef(check.id, same_run, version_path(check.id, same_run), created=False)
            previous = session.scalars(
                select(ReportVersion)
                .where(ReportVersion.check_id == check.id)
                .order_by(ReportVersion.version.desc())
                .limit(1)
            ).first()
            number = 1 if previous is None else previous.version + 1
            summary = what_changed
            if summary is None:
                before = None if previous is None else json.loads(previous.result_json)
                summary = changes.what_changed(before, result)
            session.add(
                ReportVersion(
                    check_id=check.id,
                    version=number,
                    created_at=self._clock(),
                    reason=why.value,
                    what_changed=summary,
                    ledger_json=ledger_json,
                    result_json=result_json,
                    **facts,
                )
            )
            if run_key is not None:
                session.add(
                    CheckRun(check_id=check.id, run_key=run_key, version=number, created_at=self._clock())
                )
            check.status = CheckStatus.RECORDED
            # The status row lists read (the version's own transaction, so a list never lags it).
            check.latest_version, check.latest_label, check.latest_band = (
                number,
                facts["label"],
                facts["band"],
            )
            check.latest_as_of, check.headline = facts["as_of"], list_headline(result)
            session.flush()  # surfaces a lost race as IntegrityError inside the retry loop
            return VersionRef(check.id, number, version_path(check.id, number))

        return self._write(work)

    def record_snapshot(
        self,
        ref: str,
        url: str,
        fetched_at: datetime,
        content_type: str | None = None,
        archived: bool = False,
        archive_url: str | None = None,
    ) -> SnapshotInfo:
        """Record that the bytes named ``ref`` were fetched from ``url``; the first record of a pair stands."""
        if not _SNAPSHOT_REF.fullmatch(ref):
            raise ValueError(f"snapshot ref must be 'sha256:' and 64 lowercase hex digits, got {ref!r}")

        def work(session: Session) -> SnapshotInfo:
            row = session.scalars(
                select(SnapshotRecord).where(SnapshotRecord.ref == ref, SnapshotRecord.url == url)
            ).first()
            if row is None:
                row = SnapshotRecord(
                    ref=ref,
                    url=url,
                    content_type=content_type,
                    fetched_at=fetched_at,
                    archived=archived,
                    archive_url=archive_url,
                )
                session.add(row)
                session.flush()
            return _snapshot_info(row)

        return self._write(work)

    # --- reading ---------------------------------------------------------------------------------------

    def check(self, check_id: str) -> CheckSummary:
        found = self._summaries(Check.id == check_id)
        if not found:
            raise NotFound(f"no check {check_id!r}")
        return found[0]

    def find_checks(self, subject_kind: str, subject_id: str) -> list[CheckSummary]:
        """Checks about one subject, oldest first. A subject never checked gives an empty list."""
        return self._summaries(
            SubjectRecord.kind == str(subject_kind), SubjectRecord.subject_id == subject_id
        )

    def latest(self, check_id: str) -> StoredVersion:
        with self._read() as session:
            row = session.scalars(
                select(ReportVersion)
                .where(ReportVersion.check_id == check_id)
                .order_by(ReportVersion.version.desc())
                .limit(1)
            ).first()
            if row is None:
                self._require_check(session, check_id)
                raise NotFound(f"check {check_id!r} has no report version yet")
            return _stored(row)

    def version(self, check_id: str, version: int) -> StoredVersion:
        with self._read() as session:
            row = session.scalars(
                select(ReportVersion).where(
                    ReportVersion.check_id == check_id, ReportVersion.version == version
                )
            ).first()
            if row is None:
                self._require_check(session, check_id)
                raise NotFound(f"check {check_id!r} has no version {version}")
            return _stored(row)

    def versions(self, check_id: str) -> list[TimelineEntry]:
        """The check's timeline, version 1 first. A check with no version yet gives an empty list."""
        with self._read() as session:
            self._require_check(session, check_id)
            rows = session.scalars(
                select(ReportVersion)
                .options(defer(ReportVersion.ledger_json), defer(ReportVersion.result_json))
                .where(ReportVersion.check_id == check_id)
                .order_by(ReportVersion.version)
            ).all()
            return [_timeline_entry(row) for row in rows]

    def snapshots(self, ref: str) -> list[SnapshotInfo]:
        """Every address the bytes named ``ref`` were fetched from, earliest first."""
        with self._read() as session:
            rows = session.scalars(
                select(SnapshotRecord)
                .where(SnapshotRecord.ref == ref)
                .order_by(SnapshotRecord.fetched_at, SnapshotRecord.id)
            ).all()
            if not rows:
                raise NotFound(f"no snapshot {ref!r}")
            return [_snapshot_info(row) for row in rows]

    # --- shared with the service's repositories (icarus.store.service) -----------------------------------

    def transaction(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` in one write transaction, retried when a unique constraint loses a race."""
        return self._write(work)

    def reading(self) -> Session:
        """A session for reads (no write lock on SQLite); use it as a context manager."""
        return self._read()

    @property
    def clock(self) -> Clock:
        return self._clock

    # --- internals -------------------------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if not self._opened:
            raise RuntimeError("the store is not open: call open() first (it applies migrations)")

    def _read(self) -> Session:
        self._ensure_open()
        return self._reader()

    def _write(self, work: Callable[[Session], T]) -> T:
        self._ensure_open()
        lost: IntegrityError | None = None
        for attempt in range(WRITE_ATTEMPTS):
            try:
                with self._sessions.begin() as session:
                    return work(session)
            except IntegrityError as exc:
                # Another writer took the version number (or inserted the same subject or run) first; the
                # next attempt reads its row. A constraint we break on our own fails every attempt.
                lost = exc
                time.sleep(random.uniform(0, 0.005 * (attempt + 1)))
        raise StoreConflict(f"write still conflicting after {WRITE_ATTEMPTS} attempts: {lost}") from lost

    def _subject_row(self, session: Session, subject: Subject) -> SubjectRecord:
        row = session.scalars(
            select(SubjectRecord).where(
                SubjectRecord.kind == subject.kind.value, SubjectRecord.subject_id == subject.subject_id
            )
        ).first()
        if row is None:
            row = SubjectRecord(
                kind=subject.kind.value,
                subject_id=subject.subject_id,
                url=subject.url,
                first_seen_at=self._clock(),
            )
            session.add(row)
            session.flush()
        return row

    def _check_for(self, session: Session, subject: Subject, check_id: str | None) -> Check:
        if check_id is None:
            row = self._subject_row(session, subject)
            check = Check(
                id=_new_check_id(), subject_pk=row.id, status=CheckStatus.PENDING, created_at=self._clock()
            )
            session.add(check)
            return check
        found = session.execute(
            select(Check, SubjectRecord)
            .join(SubjectRecord, SubjectRecord.id == Check.subject_pk)
            .where(Check.id == check_id)
            # PostgreSQL: writers of one check queue on its row instead of colliding and retrying.
            # SQLite ignores FOR UPDATE; BEGIN IMMEDIATE already serialises its writers.
            .with_for_update(of=Check, key_share=True)
        ).first()
        if found is None:
            raise NotFound(f"no check {check_id!r}")
        check, owner = found
        if (owner.kind, owner.subject_id) != (subject.kind.value, subject.subject_id):
            raise ValueError(
                f"check {check_id!r} is about {owner.kind}:{owner.subject_id}, "
                f"not {subject.kind.value}:{subject.subject_id}"
            )
        return check

    def _require_check(self, session: Session, check_id: str) -> None:
        if session.get(Check, check_id) is None:
            raise NotFound(f"no check {check_id!r}")

    def _summaries(self, *where: Any) -> list[CheckSummary]:
        latest = func.max(ReportVersion.version)
        query = (
            select(Check, SubjectRecord, latest)
            .join(SubjectRecord, SubjectRecord.id == Check.subject_pk)
            .outerjoin(ReportVersion, ReportVersion.check_id == Check.id)
            .where(*where)
            .group_by(Check.id, SubjectRecord.id)
            .order_by(Check.created_at, Check.id)
        )
        with self._read() as session:
            return [
                CheckSummary(
                    check_id=check.id,
                    subject_kind=subject.kind,
                    subject_id=subject.subject_id,
                    status=CheckStatus(check.status),
                    created_at=check.created_at,
                    latest_version=newest,
                )
                for check, subject, newest in session.execute(query)
            ]


def _new_check_id() -> str:
    return uuid.uuid4().hex


def _reason(reason: Reason | str) -> Reason:
    try:
        return Reason(reason)
    except ValueError:
        allowed = ", ".join(r.value for r in Reason)
        raise ValueError(f"reason must be one of {allowed}, got {reason!r}") from None


def _result_facts(result: Mapping[str, Any], ledger_json: str) -> dict[str, Any]:
    """The summary columns of a version, after checking the result really was scored from this ledger."""
    try:
        facts: dict[str, Any] = {
            "policy": str(result["policy"]),
            "config_hash": str(result["config_hash"]),
            "code_hash": str(result["code_hash"]),
            "ledger_hash": str(result["ledger_hash"]),
            "trace_hash": str(result["trace_hash"]),
            "as_of": datetime.fromisoformat(str(result["as_of"])),
            "label": str(result["overall"]["label"]),
            "band": str(result["overall"]["band"]),
        }
        trace = result["trace"]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a scoring result: missing {exc}") from None
    if facts["as_of"].tzinfo is None:
        raise ValueError(f"result as_of {result['as_of']!r} has no time zone")
    ledger_hash = "sha256:" + hashlib.sha256(ledger_json.encode()).hexdigest()
    if facts["ledger_hash"] != ledger_hash:
        raise ValueError(
            f"result was scored from ledger {facts['ledger_hash']}, not this one ({ledger_hash})"
        )
    trace_hash = "sha256:" + sha256_hex(canonical_json(trace))
    if facts["trace_hash"] != trace_hash:
        raise ValueError(f"result's trace_hash {facts['trace_hash']} does not match its trace ({trace_hash})")
    return facts


def _stored(row: ReportVersion) -> StoredVersion:
    return StoredVersion(
        check_id=row.check_id,
        version=row.version,
        url_path=version_path(row.check_id, row.version),
        created_at=row.created_at,
        as_of=row.as_of,
        policy=row.policy,
        config_hash=row.config_hash,
        code_hash=row.code_hash,
        ledger_hash=row.ledger_hash,
        trace_hash=row.trace_hash,
        label=row.label,
        band=row.band,
        reason=Reason(row.reason),
        what_changed=row.what_changed,
        ledger_json=row.ledger_json,
        result_json=row.result_json,
    )


def _timeline_entry(row: ReportVersion) -> TimelineEntry:
    return TimelineEntry(
        check_id=row.check_id,
        version=row.version,
        url_path=version_path(row.check_id, row.version),
        created_at=row.created_at,
        as_of=row.as_of,
        policy=row.policy,
        label=row.label,
        band=row.band,
        reason=Reason(row.reason),
        what_changed=row.what_changed,
        trace_hash=row.trace_hash,
    )


def _snapshot_info(row: SnapshotRecord) -> SnapshotInfo:
    return SnapshotInfo(
        ref=row.ref,
        url=row.url,
        content_type=row.content_type,
        fetched_at=row.fetched_at,
        archived=row.archived,
        archive_url=row.archive_url,
    )
