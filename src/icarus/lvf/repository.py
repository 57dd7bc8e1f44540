"""Append-only storage for LVF runs, challenge events and review votes (SQLAlchemy 2, SQLite by default).

A small database of its own (default ``<data_dir>/lvf.db``), in the store package's style: typed ORM
tables, UTC times, and database triggers that refuse UPDATE and DELETE on every table, so a stored run,
a review decision or a vote can never be changed afterwards. There is no update or delete method either.
A run is stored as the exact canonical JSON it was produced as; reading it back renders it with its own
methodology version and weights. Storing a run that read accepted challenges appends, in the same
transaction, one ``used_in_run`` event per challenge naming the new run. The clock is injected.

The tables are created on first use (``create_all``): this database holds nothing but these three
append-only tables, so it needs no migration history until one of them changes shape.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from sqlalchemy import DDL, ForeignKey, Integer, MetaData, String, Text, UniqueConstraint, event, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from icarus.scoring.lvf.challenges import (
    AcceptedChallenge,
    ChallengeError,
    ChallengeState,
    ChallengeSubmission,
    EventKind,
    QueueEntry,
    ReviewAction,
    SubmittedEvidence,
    fold_state,
    next_state,
    rate_limited,
    review_order,
)
from icarus.scoring.lvf.config import ChallengeLimits
from icarus.scoring.lvf.record import LvfRun
from icarus.settings import Settings
from icarus.store.engine import create_store_engine
from icarus.store.tables import INTEGER_MAX, NAMING_CONVENTION, UtcDateTime

__all__ = [
    "ChallengeView",
    "Clock",
    "LvfRepository",
    "RateLimited",
    "StoredRun",
    "UnknownRecord",
    "default_lvf_db",
]

Clock = Callable[[], datetime]


def _ddl(statement: str) -> Any:
    """``sqlalchemy.DDL`` is untyped; one typed wrapper keeps the ignore in one place."""
    return DDL(statement)  # type: ignore[no-untyped-call]


APPEND_ONLY: Final = ("lvf_runs", "lvf_challenge_events", "lvf_votes")


def default_lvf_db(settings: Settings | None = None) -> Path:
    return (settings or Settings()).data_dir / "lvf.db"


class UnknownRecord(LookupError):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class RateLimited(ChallengeError):
    """The submitter has used their allowance for the current window."""


class _Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class RunRow(_Base):
    __tablename__ = "lvf_runs"
    __table_args__ = (UniqueConstraint("run_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_hash: Mapped[str] = mapped_column(String(80))
    ledger_id: Mapped[str] = mapped_column(String(512), index=True)
    claim_id: Mapped[str] = mapped_column(String(128))
    methodology: Mapped[str] = mapped_column(String(64))
    config_hash: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(16))
    recorded_at: Mapped[datetime] = mapped_column(UtcDateTime())
    run_json: Mapped[str] = mapped_column(Text)


class EventRow(_Base):
    __tablename__ = "lvf_challenge_events"
    __table_args__ = (UniqueConstraint("challenge_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    challenge_id: Mapped[str] = mapped_column(String(64), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    run_id: Mapped[int] = mapped_column(ForeignKey("lvf_runs.id"))
    kind: Mapped[str] = mapped_column(String(32))
    actor: Mapped[str] = mapped_column(String(128), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    payload_json: Mapped[str] = mapped_column(Text)


class VoteRow(_Base):
    __tablename__ = "lvf_votes"
    __table_args__ = (UniqueConstraint("challenge_id", "voter"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    challenge_id: Mapped[str] = mapped_column(String(64), index=True)
    voter: Mapped[str] = mapped_column(String(128))
    at: Mapped[datetime] = mapped_column(UtcDateTime())


for _table in APPEND_ONLY:
    for _action in ("UPDATE", "DELETE"):
        event.listen(
            _Base.metadata.tables[_table],
            "after_create",
            _ddl(
                f"CREATE TRIGGER {_table}_no_{_action.lower()} BEFORE {_action} ON {_table} "
                f"BEGIN SELECT RAISE(ABORT, '{_table} is append-only'); END"
            ).execute_if(dialect="sqlite"),
        )
    for _statement in (
        f"CREATE FUNCTION {_table}_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN RAISE EXCEPTION '{_table} is append-only'; END $$",
        f"CREATE TRIGGER {_table}_append_only BEFORE UPDATE OR DELETE ON {_table} "
        f"FOR EACH ROW EXECUTE FUNCTION {_table}_append_only()",
    ):
        event.listen(
            _Base.metadata.tables[_table], "after_create", _ddl(_statement).execute_if(dialect="postgresql")
        )


@dataclass(frozen=True)
class StoredRun:
    run_id: int
    recorded_at: datetime
    run_json: str

    @property
    def run(self) -> LvfRun:
        return LvfRun.model_validate_json(self.run_json)


@dataclass(frozen=True)
class ChallengeEvent:
    seq: int
    kind: EventKind
    actor: str
    at: datetime
    payload: dict[str, Any]


@dataclass(frozen=True)
class ChallengeView:
    """A challenge with its whole history. ``events`` include reviewer notes: a private view."""

    challenge_id: str
    run_id: int
    state: ChallengeState
    submitted_at: datetime
    votes: int
    events: tuple[ChallengeEvent, ...]

    @property
    def used_by(self) -> tuple[int, ...]:
        """The stored runs that read this challenge's evidence, in the order they were stored."""
        return tuple(int(e.payload["run_id"]) for e in self.events if e.kind is EventKind.USED_IN_RUN)

    @property
    def evidence(self) -> tuple[SubmittedEvidence, ...]:
        """The submission's evidence, then any the submitter added on request."""
        return tuple(
            SubmittedEvidence.model_validate(raw)
            for e in self.events
            if e.kind in (EventKind.SUBMITTED, EventKind.INFO_ADDED)
            for raw in e.payload.get("evidence", [])
        )


def _utcnow() -> datetime:
    return datetime.now(UTC)


class LvfRepository:
    """Record runs, take challenges and votes, record reviews. Never changes or removes a row."""

    def __init__(self, url_or_path: str | Path, limits: ChallengeLimits, clock: Clock = _utcnow) -> None:
        url = url_or_path if isinstance(url_or_path, str) else f"sqlite:///{url_or_path}"
        self._engine = create_store_engine(url)
        _Base.metadata.create_all(self._engine)
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        self._limits = limits
        self._clock = clock

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> LvfRepository:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- runs -----------------------------------------------------------------------------------------

    def record_run(self, run: LvfRun) -> int:
        """Store a run; the identical run stored again returns the first id instead of a duplicate. Each
        challenge the run read must be accepted and about the run's ledger and claim; it gets a
        ``used_in_run`` event in the same transaction, so a run and its use marks are stored together."""
        with self._sessions.begin() as session:
            found = session.scalar(select(RunRow.id).where(RunRow.run_hash == run.run_hash))
            if found is not None:
                return found
            row = RunRow(
                run_hash=run.run_hash,
                ledger_id=run.ledger_id,
                claim_id=run.claim_id,
                methodology=run.methodology,
                config_hash=run.config_hash,
                status=run.status.value,
                recorded_at=self._clock(),
                run_json=run.canonical_json(),
            )
            session.add(row)
            session.flush()
            for use in run.challenges:
                self._check_use(session, use.challenge_id, run)
                self._append_in(session, use.challenge_id, EventKind.USED_IN_RUN, "lvf", {"run_id": row.id})
            return row.id

    @staticmethod
    def _check_use(session: Session, challenge_id: str, run: LvfRun) -> None:
        first = LvfRepository._event_rows(session, challenge_id)[0]
        challenged = session.get(RunRow, first.run_id)
        assert challenged is not None  # an event always names a stored run (foreign key)
        if (challenged.ledger_id, challenged.claim_id) != (run.ledger_id, run.claim_id):
            raise ChallengeError(
                f"{challenge_id} is about claim {challenged.claim_id} of ledger {challenged.ledger_id}, "
                f"not claim {run.claim_id} of ledger {run.ledger_id}"
            )

    def get_run(self, run_id: int) -> StoredRun:
        with self._sessions() as session:
            row = session.get(RunRow, run_id) if 1 <= run_id <= INTEGER_MAX else None
            if row is None:
                raise UnknownRecord(f"no LVF run {run_id}")
            return StoredRun(row.id, row.recorded_at, row.run_json)

    def runs(self) -> list[StoredRun]:
        with self._sessions() as session:
            rows = session.scalars(select(RunRow).order_by(RunRow.id)).all()
            return [StoredRun(r.id, r.recorded_at, r.run_json) for r in rows]

    # --- challenges -----------------------------------------------------------------------------------

    def submit(self, submission: ChallengeSubmission) -> str:
        """Queue a validated submission; refuse it when the submitter is over the rate limit."""
        now = self._clock()
        with self._sessions.begin() as session:
            run_id = submission.run_id
            if not 1 <= run_id <= INTEGER_MAX or session.get(RunRow, run_id) is None:
                raise UnknownRecord(f"no LVF run {submission.run_id} to challenge")
            previous = session.scalars(
                select(EventRow.at).where(
                    EventRow.actor == submission.submitter, EventRow.kind == EventKind.SUBMITTED.value
                )
            ).all()
            if rate_limited(previous, now, self._limits):
                raise RateLimited(
                    f"submitter {submission.submitter} has made {self._limits.max_per_submitter} "
                    f"submissions in the last {self._limits.window_hours} h; try again later"
                )
            challenge_id = "ch-" + uuid.uuid4().hex[:16]
            session.add(
                EventRow(
                    challenge_id=challenge_id,
                    seq=1,
                    run_id=submission.run_id,
                    kind=EventKind.SUBMITTED.value,
                    actor=submission.submitter,
                    at=now,
                    payload_json=submission.model_dump_json(),
                )
            )
        return challenge_id

    def review(
        self, challenge_id: str, action: ReviewAction, reviewer: str, note: str = ""
    ) -> ChallengeState:
        return self._append(challenge_id, action.event, reviewer, {"note": note})

    def add_info(
        self, challenge_id: str, submitter: str, reason: str, evidence: list[dict[str, Any]]
    ) -> ChallengeState:
        """The submitter answers a request for more information; the challenge goes back in the queue."""
        view = self.challenge(challenge_id)
        if view.events[0].actor != submitter:
            raise ChallengeError(f"only the submitter of {challenge_id} can add information to it")
        return self._append(
            challenge_id, EventKind.INFO_ADDED, submitter, {"reason": reason, "evidence": evidence}
        )

    def _append(
        self, challenge_id: str, kind: EventKind, actor: str, payload: dict[str, Any]
    ) -> ChallengeState:
        with self._sessions.begin() as session:
            return self._append_in(session, challenge_id, kind, actor, payload)

    def _append_in(
        self, session: Session, challenge_id: str, kind: EventKind, actor: str, payload: dict[str, Any]
    ) -> ChallengeState:
        rows = self._event_rows(session, challenge_id)
        state = fold_state(EventKind(r.kind) for r in rows)
        new_state = next_state(state, kind)  # refuses, e.g., using a challenge that is not accepted
        session.add(
            EventRow(
                challenge_id=challenge_id,
                seq=rows[-1].seq + 1,
                run_id=rows[0].run_id,
                kind=kind.value,
                actor=actor,
                at=self._clock(),
                payload_json=json.dumps(payload, ensure_ascii=False, sort_keys=True),
            )
        )
        return new_state

    @staticmethod
    def _event_rows(session: Session, challenge_id: str) -> list[EventRow]:
        rows = list(
            session.scalars(
                select(EventRow).where(EventRow.challenge_id == challenge_id).order_by(EventRow.seq)
            ).all()
        )
        if not rows:
            raise UnknownRecord(f"no challenge {challenge_id}")
        return rows

    def challenge(self, challenge_id: str) -> ChallengeView:
        with self._sessions() as session:
            rows = self._event_rows(session, challenge_id)
            votes = session.scalar(
                select(func.count()).select_from(VoteRow).where(VoteRow.challenge_id == challenge_id)
            )
            return _view(rows, votes or 0)

    def challenges(self) -> list[ChallengeView]:
        with self._sessions() as session:
            rows = session.scalars(select(EventRow).order_by(EventRow.challenge_id, EventRow.seq)).all()
            counts: dict[str, int] = {
                challenge_id: count
                for challenge_id, count in session.execute(
                    select(VoteRow.challenge_id, func.count()).group_by(VoteRow.challenge_id)
                ).all()
            }
        grouped: dict[str, list[EventRow]] = {}
        for row in rows:
            grouped.setdefault(row.challenge_id, []).append(row)
        return [_view(events, counts.get(cid, 0)) for cid, events in sorted(grouped.items())]

    def accepted_for_run(self, ledger_id: str) -> list[ChallengeView]:
        """Accepted challenges against runs of ``ledger_id``: evidence to consider in a later run."""
        runs = {r.run_id for r in self.runs() if r.run.ledger_id == ledger_id}
        return [c for c in self.challenges() if c.run_id in runs and c.state is ChallengeState.ACCEPTED]

    def accepted_challenges(
        self, ledger_id: str | None = None, claim_id: str | None = None, *, unused_only: bool = False
    ) -> list[AcceptedChallenge]:
        """Accepted challenges (of one ledger and claim when given) with their evidence, by challenge id.
        ``unused_only``: only those no stored run has read yet."""
        with self._sessions() as session:
            subjects = {
                run_id: (ledger, claim)
                for run_id, ledger, claim in session.execute(
                    select(RunRow.id, RunRow.ledger_id, RunRow.claim_id)
                ).all()
            }
        found = []
        for view in self.challenges():
            ledger, claim = subjects[view.run_id]
            if view.state is not ChallengeState.ACCEPTED or (unused_only and view.used_by):
                continue
            if (ledger_id is not None and ledger != ledger_id) or (
                claim_id is not None and claim != claim_id
            ):
                continue
            accepted_at = next(e.at for e in view.events if e.kind is EventKind.ACCEPTED)
            found.append(
                AcceptedChallenge(
                    challenge_id=view.challenge_id,
                    challenged_run_id=view.run_id,
                    ledger_id=ledger,
                    claim_id=claim,
                    accepted_at=accepted_at,
                    evidence=view.evidence,
                    used_by=view.used_by,
                )
            )
        return found

    # --- votes ----------------------------------------------------------------------------------------

    def vote(self, challenge_id: str, voter: str) -> bool:
        """One vote per voter per challenge; False if this voter had already voted. Votes only reorder
        the review queue."""
        self.challenge(challenge_id)
        try:
            with self._sessions.begin() as session:
                session.add(VoteRow(challenge_id=challenge_id, voter=voter, at=self._clock()))
        except IntegrityError:
            return False
        return True

    def review_queue(self) -> list[QueueEntry]:
        entries = [
            QueueEntry(c.challenge_id, c.run_id, c.state, c.submitted_at, c.votes) for c in self.challenges()
        ]
        return review_order(entries)


def _view(rows: list[EventRow], votes: int) -> ChallengeView:
    events = tuple(
        ChallengeEvent(r.seq, EventKind(r.kind), r.actor, r.at, json.loads(r.payload_json)) for r in rows
    )
    return ChallengeView(
        challenge_id=rows[0].challenge_id,
        run_id=rows[0].run_id,
        state=fold_state(e.kind for e in events),
        submitted_at=rows[0].at,
        votes=votes,
        events=events,
    )
