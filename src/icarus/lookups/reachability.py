"""A service that could not be reached is asked again only after a pause.

A check looks up every evidence item; when the look-up's service is down, or this machine has no network,
each item would otherwise wait out its own timeout. The first failure to connect (or to answer within the
timeout) is remembered for ``HOLD_S``; meanwhile every item answers "not run" at once, naming the failure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["HOLD_S", "RESERVED_SUFFIXES", "Reachability", "reserved_name"]

HOLD_S = 60.0
RESERVED_SUFFIXES = (".example", ".invalid", ".localhost", ".test")
"""Names reserved for examples and tests (RFC 2606, RFC 6761): registered nowhere, served by no one."""


def reserved_name(host: str) -> bool:
    """Whether ``host`` lies under a reserved name, so that no service can answer for it."""
    return f".{host.strip().lower().rstrip('.')}".endswith(RESERVED_SUFFIXES)


class Reachability:
    """What is known of one service's reachability. Thread-safe: a worker's checks share their adapters."""

    def __init__(self, service: str, *, hold_s: float = HOLD_S, clock: Callable[[], float] = time.monotonic):
        self.service = service
        self.hold_s = hold_s
        self._clock = clock
        self._down: tuple[float, str] | None = None
        self._lock = threading.Lock()

    def down(self) -> str | None:
        """Why the service is not being asked now, or None when it may be."""
        with self._lock:
            if self._down is None:
                return None
            until, why = self._down
            if self._clock() >= until:
                self._down = None
                return None
            return f"{why} (not asked again for {self.hold_s:g} s)"

    def failed(self, exc: BaseException) -> str:
        """Record that the service could not be reached; the words a "not run" result gives."""
        why = f"{self.service} could not be reached: {type(exc).__name__}"
        with self._lock:
            self._down = (self._clock() + self.hold_s, why)
        return why

    def answered(self) -> None:
        with self._lock:
            self._down = None
