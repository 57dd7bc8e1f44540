"""Rate limits: per-minute counters, kept in this process or in Redis (the page-load middleware that counts
with them is ``icarus.http.page_limits``).

Every count is a fixed one-minute window per key. With ``ICARUS_REDIS_URL`` set the counters live in Redis,
so every API process of one deployment (one database) shares them: a client's limit, a token's limit and
the budgets that all anonymous callers share together are each enforced once, however many processes
serve. Without Redis each process counts on its own.

The shared anonymous budgets (``ICARUS_API_RATE_ANONYMOUS_TOTAL``, ``ICARUS_PAGE_RATE_ANONYMOUS_TOTAL``)
exist because an address can be claimed: behind a proxy that forwards whatever ``X-Forwarded-For`` a
client sends, every request may come "from" a new address and pass its per-address limit. The budgets cap
what all anonymous callers together can take, whatever addresses they claim; token holders are never
counted against them.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Final, Protocol

from icarus.settings import Settings

__all__ = [
    "ANONYMOUS_PAGES_KEY",
    "ANONYMOUS_REQUESTS_KEY",
    "WINDOW_S",
    "Limiter",
    "RateLimiter",
    "RedisRateLimiter",
    "limiter_for",
]

log = logging.getLogger("icarus.api")

WINDOW_S: Final = 60.0
ANONYMOUS_REQUESTS_KEY: Final = "anonymous:api"  # the API budget every anonymous caller shares
ANONYMOUS_PAGES_KEY: Final = "anonymous:pages"  # the page-load budget every anonymous caller shares
# Redis is asked with short timeouts, on the request's own path: a slow Redis must not stall every request.
REDIS_TIMEOUT_S: Final = 0.25
# After Redis fails, count in this process for this long before asking Redis again, so an outage costs
# one timeout per process and pause instead of one per request.
REDIS_RETRY_AFTER_S: Final = 5.0
FORGET_AFTER_KEYS: Final = 100_000  # the in-process limiter forgets idle keys past this many


class Limiter(Protocol):
    def hit(self, key: str, limit: int) -> float | None:
        """Count one request against ``key``: None if within ``limit`` a minute, else seconds to wait."""
        ...


class RateLimiter:
    """Fixed one-minute windows per key, in this process; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._windows: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str, limit: int) -> float | None:
        now = self._clock()
        with self._lock:
            start, count = self._windows.get(key, (now, 0))
            if now - start >= WINDOW_S:
                start, count = now, 0
            if count >= limit:
                return max(0.0, WINDOW_S - (now - start))
            self._windows[key] = (start, count + 1)
            if len(self._windows) > FORGET_AFTER_KEYS:  # forget idle callers rather than grow without bound
                self._windows = {k: v for k, v in self._windows.items() if now - v[0] < WINDOW_S}
            return None


class RedisRateLimiter:
    """Fixed one-minute windows per key in Redis, shared by every limiter with the same ``prefix``.

    A window is the wall-clock minute; its counter is one ``INCR`` (and an ``EXPIRE`` so it goes away)
    per request. When Redis cannot be reached the limiter counts in this process (``fallback``) for
    ``REDIS_RETRY_AFTER_S`` and says so in the log, so requests keep their limits and never wait on it."""

    def __init__(
        self,
        url: str,
        prefix: str,
        *,
        clock: Callable[[], float] = time.time,
        fallback: RateLimiter | None = None,
    ) -> None:
        import redis

        self._redis = redis.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
        )
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)
        self.prefix = prefix
        self._clock = clock
        self.fallback = fallback or RateLimiter()
        self._down_until = 0.0

    def hit(self, key: str, limit: int) -> float | None:
        now = self._clock()
        if now < self._down_until:
            return self.fallback.hit(key, limit)
        window = int(now // WINDOW_S)
        name = f"{self.prefix}:{key}:{window}"
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.incr(name)
            pipe.expire(name, int(2 * WINDOW_S))
            count = int(pipe.execute()[0])
        except self._errors as exc:
            self._down_until = now + REDIS_RETRY_AFTER_S
            log.warning("rate limits: Redis unavailable (%s); counting in this process for a while", exc)
            return self.fallback.hit(key, limit)
        if count > limit:
            return max(0.0, (window + 1) * WINDOW_S - now)
        return None


def limiter_for(settings: Settings, deployment: str) -> Limiter:
    """Redis-backed limits when ``ICARUS_REDIS_URL`` is set, else this process's own. ``deployment`` names
    what the processes sharing the counters have in common (the database URL): deployments, and tests,
    sharing one Redis never share counts."""
    if not settings.redis_url:
        return RateLimiter()
    digest = hashlib.sha256(deployment.encode()).hexdigest()[:16]
    return RedisRateLimiter(settings.redis_url, f"icarus:rate:{settings.queue_name}:{digest}")
