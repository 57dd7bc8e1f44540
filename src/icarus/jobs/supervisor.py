"""Keep one worker process running beside ``icarus serve``: restart it when it dies, and say so.

A worker that exits on its own (a crash, the out-of-memory killer, a SIGKILL) is started again after a
short pause that doubles while it keeps dying quickly. Stopping sends SIGTERM, which the worker takes as a
graceful stop (see ``icarus.jobs.worker``), and waits the grace period before killing it.
"""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Final

__all__ = ["WorkerSupervisor"]

log = logging.getLogger("icarus.serve")

POLL_S: Final = 0.5
FIRST_PAUSE_S: Final = 1.0
LONGEST_PAUSE_S: Final = 30.0
STABLE_S: Final = 60.0  # a worker that ran this long before dying is restarted after the first pause again
STOP_MARGIN_S: Final = 10.0  # beyond the worker's grace period, for its hand-back and exit

Spawn = Callable[[Sequence[str]], "subprocess.Popen[bytes]"]


def _spawn(command: Sequence[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(list(command))


class WorkerSupervisor:
    """Runs ``command`` as a child process and restarts it whenever it exits until ``stop``."""

    def __init__(self, command: Sequence[str], *, grace_s: float, spawn: Spawn = _spawn) -> None:
        self.command, self.grace_s, self._spawn = list(command), grace_s, spawn
        self.restarts = 0
        self._child: subprocess.Popen[bytes] | None = None
        self._started = 0.0
        self._pause = FIRST_PAUSE_S
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._watch, name="icarus-worker-supervisor", daemon=True)

    @property
    def pid(self) -> int | None:
        with self._lock:
            return None if self._child is None else self._child.pid

    def start(self) -> None:
        self._launch()
        self._thread.start()

    def stop(self) -> int | None:
        """Stop the worker gracefully (SIGTERM, then SIGKILL after the grace period); its exit code."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout=POLL_S * 4)
        with self._lock:
            child = self._child
        if child is None:
            return None
        if child.poll() is None:
            child.terminate()
        try:
            return child.wait(timeout=self.grace_s + STOP_MARGIN_S)
        except subprocess.TimeoutExpired:
            log.warning("worker %d did not stop within its grace period; killed", child.pid)
            child.kill()
            return child.wait()

    def _launch(self) -> None:
        with self._lock:
            self._child = self._spawn(self.command)
            self._started = time.monotonic()

    def _watch(self) -> None:
        while not self._stopping.wait(POLL_S):
            with self._lock:
                child = self._child
            code = None if child is None else child.poll()
            if child is None or code is None:
                continue
            lived = time.monotonic() - self._started
            pause = FIRST_PAUSE_S if lived >= STABLE_S else self._pause
            self._pause = min(pause * 2, LONGEST_PAUSE_S)
            log.warning(
                "worker %d exited with code %s after %.0f s; starting a new one in %.0f s",
                child.pid,
                code,
                lived,
                pause,
            )
            if self._stopping.wait(pause):
                return
            self._launch()
            self.restarts += 1
            log.warning("worker restarted as process %s (restart %d)", self.pid, self.restarts)
