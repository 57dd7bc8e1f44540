"""Page loads rate limited apart from API calls: the middleware the app puts in front of every page.

It reads the caller (``icarus.http.auth``) and counts with the per-minute limiters (``icarus.http.limits``),
so it sits above both, and neither of them reads it.
"""

from __future__ import annotations

import asyncio
from typing import Final

from fastapi import status
from fastapi.responses import PlainTextResponse
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from icarus.http.auth import Security
from icarus.http.limits import ANONYMOUS_PAGES_KEY

__all__ = ["REFUSAL_PAUSE_S", "UNLIMITED_PREFIXES", "PageRateLimit"]

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
