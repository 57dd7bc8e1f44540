"""The worker's heartbeat: a thread that says the worker is alive, renews its leases and rescues jobs.

Every ``interval`` it records the worker's heartbeat (shown by diagnostics), extends the lease of each job
the worker runs, and hands out again any job whose lease ran out because its worker died. So a killed
worker's checks run again within one lease and one heartbeat, without waiting for a periodic task.

Beside it, a second thread watches a queue on another host (Redis): while the queue cannot be reached,
submissions are accepted into the database but their messages are not queued, and a restarted Redis keeps
none. Once the queue answers again, every due job is handed to it at once instead of at the next
minute's dispatch. It has its own thread because a vanished queue host costs seconds per call, which must
never delay a lease renewal.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import UTC, datetime

from sqlalchemy.exc import SQLAlchemyError

from icarus.jobs.queue import QueueProbe
from icarus.jobs.runner import JobRunner
from icarus.store import WorkerRegistry

__all__ = ["Heartbeat", "worker_name"]

log = logging.getLogger("icarus.jobs")


def worker_name() -> str:
    """A name no other worker process has, now or later: host, process id and a random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Heartbeat:
    """Beats every ``interval_s`` seconds on a daemon thread until ``stop``; ``beat`` does one beat."""

    def __init__(
        self,
        runner: JobRunner,
        registry: WorkerRegistry,
        name: str,
        interval_s: float,
        queue_probe: QueueProbe | None = None,
    ) -> None:
        self.runner, self.registry, self.name, self.interval_s = runner, registry, name, interval_s
        self.queue_probe = queue_probe
        self.queue_down = False
        self.started_at = datetime.now(UTC)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="icarus-heartbeat", daemon=True)
        self._queue_thread = threading.Thread(
            target=self._watch_queue, name="icarus-queue-watch", daemon=True
        )

    def beat(self) -> None:
        """Record the heartbeat, renew this worker's leases and hand out jobs whose leases ran out."""
        held = len(self.runner.held())
        self.registry.beat(
            self.name, socket.gethostname(), os.getpid(), self.started_at, datetime.now(UTC), held
        )
        self.runner.heartbeat()

    def check_queue(self) -> int | None:
        """Probe the queue; when it answers after it did not, queue every due job and return how many."""
        if self.queue_probe is None:
            return None
        try:
            self.queue_probe()
        except Exception as exc:
            if not self.queue_down:
                log.warning("worker %s: the queue is unreachable (%s)", self.name, type(exc).__name__)
            self.queue_down = True
            return None
        if not self.queue_down:
            return None
        due = self.runner.dispatch_due()  # raises while the database is down: the next probe tries again
        self.queue_down = False
        log.warning("worker %s: the queue answers again; %d due job(s) queued", self.name, due)
        return due

    def start(self) -> None:
        self._thread.start()
        if self.queue_probe is not None:
            self._queue_thread.start()

    def stop(self) -> None:
        """Stop beating and record that the worker stopped."""
        self._stop.set()
        for thread in (self._thread, self._queue_thread):
            if thread.is_alive():
                thread.join(timeout=self.interval_s + 5)
        try:
            self.registry.stopped(self.name, datetime.now(UTC))
        except SQLAlchemyError:
            log.warning("worker %s: could not record that it stopped (database unavailable)", self.name)

    def _watch_queue(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.check_queue()
            except Exception:
                log.exception("worker %s: queue watch failed", self.name)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.beat()
            except Exception:  # a database outage must not end the heartbeat: the next beat tries again
                log.exception("worker %s: heartbeat failed", self.name)
