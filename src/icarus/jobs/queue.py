"""The queue that wakes workers: SqliteHuey embedded, RedisHuey when ``ICARUS_REDIS_URL`` is set.

The queue carries only (check id, run key) pairs. What should run and when lives in the database, so a
message lost with a killed worker costs nothing: the periodic dispatcher hands the job out again once
its lease runs out. Task names are fixed, so every process that binds the tasks agrees on them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from huey import Huey, RedisHuey, SqliteHuey, crontab
from huey.storage import RedisStorage
from redis import ConnectionPool

from icarus.settings import Settings

__all__ = ["QueueProbe", "Tasks", "bind_tasks", "create_huey", "queue_probe"]

QUEUE_FILE: Final = "queue.db"
HANDED_BACK_PRIORITY: Final = 10  # above the default 0: handed-back runs go before new ones
# A Redis host that vanishes (a partition, not a refused connection) must cost a submission seconds, not the
# minutes TCP takes to give up: the check is in the database already and waits for the dispatcher. Set here
# because redis-py before 8 has no timeouts by default. Reads wait longer than huey's blocking pop (1 s),
# so an idle consumer never times out.
REDIS_CONNECT_TIMEOUT_S: Final = 2.0
REDIS_READ_TIMEOUT_S: Final = 5.0

QueueProbe = Callable[[], object]  # raises while the queue cannot be reached


def create_huey(settings: Settings, *, immediate: bool = False) -> Huey:
    """The queue for ``settings``; ``immediate`` runs tasks inline (huey's own testing switch)."""
    if settings.redis_url:
        pool = ConnectionPool.from_url(
            settings.redis_url,
            socket_connect_timeout=REDIS_CONNECT_TIMEOUT_S,
            socket_timeout=REDIS_READ_TIMEOUT_S,
        )
        return RedisHuey(settings.queue_name, connection_pool=pool, results=False, immediate=immediate)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(
        settings.queue_name,
        filename=str(settings.data_dir / QUEUE_FILE),
        results=False,
        immediate=immediate,
    )


@dataclass(frozen=True)
class Tasks:
    """The bound tasks: ``run_job(check_id, run_key)`` enqueues a run."""

    huey: Huey
    run_job: Any
    dispatch: Any
    sweep: Any
    prune: Any

    def enqueue(self, check_id: str, run_key: str) -> None:
        self.run_job(check_id, run_key)

    def enqueue_first(self, check_id: str, run_key: str) -> None:
        """Queue a run ahead of the waiting ones: a job handed back from a stopped worker runs next, not
        behind the backlog. SQLite keeps priorities; Redis keeps none, but its consumers pop the list's
        right end, so the message is pushed there. Any other queue takes it at the end."""
        storage = self.huey.storage
        if isinstance(storage, RedisStorage) and not self.huey.immediate:
            message = self.huey.serialize_task(self.run_job.s(check_id, run_key))
            storage.conn.rpush(storage.queue_key, message)
            return
        try:
            self.run_job(check_id, run_key, priority=HANDED_BACK_PRIORITY)
        except NotImplementedError:
            self.run_job(check_id, run_key)


def queue_probe(huey: Huey) -> QueueProbe | None:
    """A call that raises while ``huey``'s queue is unreachable; None for a queue on this machine's disk."""
    storage = huey.storage
    if isinstance(storage, RedisStorage) and not huey.immediate:
        return storage.conn.ping  # type: ignore[no-any-return]
    return None


def bind_tasks(
    huey: Huey,
    *,
    run: Callable[[str, str], object] | None = None,
    dispatch: Callable[[], object] | None = None,
    sweep: Callable[[], object] | None = None,
    sweep_minutes: int = 60,
    prune: Callable[[], object] | None = None,
) -> Tasks:
    """Register Icarus's tasks on ``huey``. Producers (the API) bind without callables: they only enqueue."""

    def missing() -> None:
        raise RuntimeError("this process only enqueues; run `icarus worker` to execute jobs")

    def run_job(check_id: str, run_key: str) -> None:
        (run or (lambda _c, _k: missing()))(check_id, run_key)

    def dispatch_due() -> None:
        (dispatch or missing)()

    def deletion_sweep() -> None:
        (sweep or missing)()

    def prune_events() -> None:
        (prune or missing)()

    task: Any = huey.task(name="icarus.run_job")
    every_minute: Any = huey.periodic_task(crontab(minute="*"), name="icarus.dispatch_due")
    sweeping: Any = huey.periodic_task(_every(sweep_minutes), name="icarus.deletion_sweep")
    daily: Any = huey.periodic_task(crontab(minute="17", hour="3"), name="icarus.prune_events")
    return Tasks(
        huey, task(run_job), every_minute(dispatch_due), sweeping(deletion_sweep), daily(prune_events)
    )


def _every(minutes: int) -> Any:
    """A crontab for "every ``minutes``" (at most daily), so deletions are hidden within that time."""
    minutes = max(1, min(minutes, 1440))
    if minutes < 60:
        return crontab(minute=f"*/{minutes}")
    hours = max(1, minutes // 60)
    return crontab(minute="0", hour="*" if hours == 1 else f"*/{min(hours, 23)}" if hours < 24 else "0")
