"""Rate limits: per-minute counters, kept in this process or in Redis, and the page-load middleware.

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

import asyncio
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol

from fastapi import status
from fastapi.responses import PlainTextResponse
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from icarus.settings import Settings

if TYPE_CHECKING:
    from icarus.http.auth import Security

__all__ = [
    "ANONYMOUS_PAGES_KEY",
    "ANONYMOUS_REQUESTS_KEY",
    "REFUSAL_PAUSE_S",
    "UNLIMITED_PREFIXES",
    "WINDOW_S",
    "Limiter",
    "PageRateLimit",
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


# Not pages: the API limits its own callers (by token or address), probes and icons must always answer.
UNLIMITED_PREFIXES: Final = ("/v1/", "/healthz", "/favicon.ico", "/static/")
# A refused page load is answered after this pause: a client that ignores Retry-After and asks again at
# once gets about one answer a second per connection, instead of taking the server's time in a tight loop.
REFUSAL_PAUSE_S: Final = 1.0


class PageRateLimit:
    """Page loads (everything outside ``/v1``: dashboard, reports, methodology, debate pages, ``/docs``),
    counted apart from the same caller's API calls. An anonymous load counts against its address
    (``ICARUS_PAGE_RATE_ANONYMOUS``) and against the budget all anonymous loads share
    (``ICARUS_PAGE_RATE_ANONYMOUS_TOTAL``); a load with a valid token (header or the page cookie) counts
    only against that token's own limit. Over a limit the page answers 429 with ``Retry-After``, after
    ``REFUSAL_PAUSE_S``. The address is the peer's, or the one a trusted proxy forwarded (``icarus serve
    --trusted-proxies``; none is trusted by default)."""

    def __init__(self, app: ASGIApp, security: Security) -> None:
        self.app, self.security = app, security

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or path.startswith(UNLIMITED_PREFIXES):
            await self.app(scope, receive, send)
            return
        settings, limiter = self.security.settings, self.security.limiter
        caller = self.security.identify(Request(scope), cookie=True)
        if caller is not None:
            limit = self.security.limit_of(caller)
            wait, message = (
                limiter.hit(f"page:{caller.key}", limit),
                f"at most {limit} a minute for your token",
            )
        else:
            client = scope.get("client")
            limit = settings.page_rate_anonymous
            wait = limiter.hit(f"page:addr:{client[0] if client else 'unknown'}", limit)
            message = f"at most {limit} a minute from your address"
            if wait is None:
                total = settings.page_rate_anonymous_total
                wait = limiter.hit(ANONYMOUS_PAGES_KEY, total)
                message = f"at most {total} a minute from all readers without a token together"
        if wait is None:
            await self.app(scope, receive, send)
            return
        await asyncio.sleep(REFUSAL_PAUSE_S)
        answer = PlainTextResponse(
            f"Too many page loads: {message}. Try again shortly.\n",
            status_code=status.HTTP_429_TOO_MANY_REQUESTS,
            headers={"Retry-After": str(int(wait) + 1), "Cache-Control": "no-store"},
        )
        await answer(scope, receive, send)
