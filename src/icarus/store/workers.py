"""Workers and their heartbeats: which worker processes run, and when each last said it was alive.

A worker records a heartbeat every few seconds while it runs (revision 0004_workers). Diagnostics list the
rows, so an operator sees a worker that stopped beating; nothing depends on them for correctness (leases
on ``jobs`` decide who may run what).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import Integer, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from icarus.store.repository import Store
from icarus.store.tables import Base, UtcDateTime

__all__ = ["WorkerInfo", "WorkerRecord", "WorkerRegistry"]

WORKER_NAME_LENGTH: Final = 128


class WorkerRecord(Base):
    """One worker process: where it runs, when it started, its last heartbeat and when it stopped."""

    __tablename__ = "workers"

    name: Mapped[str] = mapped_column(String(WORKER_NAME_LENGTH), primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    heartbeat_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    jobs_held: Mapped[int] = mapped_column(Integer, default=0)
    stopped_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


@dataclass(frozen=True)
class WorkerInfo:
    name: str
    host: str
    pid: int
    started_at: datetime
    heartbeat_at: datetime
    jobs_held: int
    stopped_at: datetime | None


class WorkerRegistry:
    """Heartbeats of worker processes, in the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def beat(
        self, name: str, host: str, pid: int, started_at: datetime, now: datetime, jobs_held: int
    ) -> None:
        """Record that worker ``name`` is alive at ``now`` and holds ``jobs_held`` jobs."""

        def work(session: Session) -> None:
            row = session.get(WorkerRecord, name)
            if row is None:
                session.add(
                    WorkerRecord(
                        name=name,
                        host=host,
                        pid=pid,
                        started_at=started_at,
                        heartbeat_at=now,
                        jobs_held=jobs_held,
                    )
                )
                session.flush()  # a racing insert of the same name surfaces here and is retried as an update
                return
            row.heartbeat_at, row.jobs_held, row.stopped_at = now, jobs_held, None

        self.store.transaction(work)

    def stopped(self, name: str, now: datetime) -> None:
        """Record that worker ``name`` stopped cleanly."""

        def work(session: Session) -> None:
            row = session.get(WorkerRecord, name)
            if row is not None:
                row.stopped_at, row.jobs_held = now, 0

        self.store.transaction(work)

    def recent(self, limit: int = 20) -> list[WorkerInfo]:
        """The workers that beat most recently, newest first."""
        with self.store.reading() as session:
            rows = session.scalars(
                select(WorkerRecord)
                .order_by(WorkerRecord.heartbeat_at.desc(), WorkerRecord.name)
                .limit(limit)
            ).all()
            return [
                WorkerInfo(
                    row.name,
                    row.host,
                    row.pid,
                    row.started_at,
                    row.heartbeat_at,
                    row.jobs_held,
                    row.stopped_at,
                )
                for row in rows
            ]
