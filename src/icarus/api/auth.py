"""Who is calling, what they may do, and how often.

A caller is anonymous or presents ``Authorization: Bearer icr_…`` (or the same token as ``X-Auth-Token:
icr_…``, the header the debate clients send). Tokens are looked up by hash (see ``icarus.store.tokens``);
an unknown or revoked token is refused (401) rather than treated as anonymous. The debate pages may also
read the token from a ``SameSite=Strict`` cookie (``TOKEN_COOKIE``), which a browser cannot be made to
send from another site.

Roles nest: reader < api < reviewer < admin. Every caller is rate limited per minute: a token by its own
limit or its role's default, an anonymous caller by client address. Limits are counted in this process;
run the API as one process per limit you want enforced, or put a shared limiter in front.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from fastapi import HTTPException, Request, status

from icarus.settings import Settings
from icarus.store.tokens import Role, TokenInfo, TokenStore, hash_token

__all__ = [
    "PAGE_HEADER",
    "PAGE_HEADER_VALUE",
    "TOKEN_COOKIE",
    "TOKEN_HEADER",
    "Principal",
    "RateLimiter",
    "Security",
]

TOKEN_HEADER: Final = "x-auth-token"
TOKEN_COOKIE: Final = "icarus_token"
PAGE_HEADER: Final = "x-requested-with"
PAGE_HEADER_VALUE: Final = "icarus"
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
WINDOW_S: Final = 60.0
TOKEN_CACHE_S: Final = 5.0  # a revoked token stops working within this long


@dataclass(frozen=True)
class Principal:
    role: Role | None  # None: anonymous
    key: str  # what the rate limit counts against
    token_id: int | None = None
    token: TokenInfo | None = None  # the token presented; its organisation is looked up from it


class RateLimiter:
    """Fixed one-minute windows per key; thread-safe. ``hit`` returns seconds to wait, or None."""

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
            if len(self._windows) > 100_000:  # forget idle callers rather than grow without bound
                self._windows = {k: v for k, v in self._windows.items() if now - v[0] < WINDOW_S}
            return None


class Security:
    """The API's authentication, authorisation and rate limiting, as FastAPI dependencies.

    The dependencies are ``async`` so a request does not hop to a thread just to be authorised: the work is
    a dictionary look-up, and a database read only when a token is not in the short-lived cache."""

    def __init__(self, tokens: TokenStore, settings: Settings, limiter: RateLimiter | None = None) -> None:
        self.tokens = tokens
        self.settings = settings
        self.limiter = limiter or RateLimiter()
        self._cache: dict[str, tuple[float, TokenInfo | None]] = {}
        self._lock = threading.Lock()

    def principal(self, request: Request, *, cookie: bool = False) -> Principal:
        """Who calls. ``cookie``: also accept the token from the ``TOKEN_COOKIE`` cookie (pages only)."""
        secret = self._presented_secret(request, cookie=cookie)
        if secret is None:
            host = request.client.host if request.client else "unknown"
            caller = Principal(None, f"addr:{host}")
            limit = self.settings.api_rate_anonymous
        else:
            info = self._lookup(secret)
            if info is None:
                raise _unauthorised("unknown or revoked token")
            caller = Principal(info.role, f"token:{info.id}", info.id, info)
            limit = info.rate_per_minute or self._role_limit(info.role)
        wait = self.limiter.hit(caller.key, limit)
        if wait is not None:
            raise HTTPException(
                status.HTTP_429_TOO_MANY_REQUESTS,
                detail=f"rate limit of {limit} requests per minute reached",
                headers={"Retry-After": str(int(wait) + 1)},
            )
        request.state.principal = caller
        return caller

    def _presented_secret(self, request: Request, *, cookie: bool) -> str | None:
        """The token from ``Authorization: Bearer``, else ``X-Auth-Token``, else (pages) the cookie."""
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, secret = header.partition(" ")
            if scheme.lower() != "bearer" or not secret.strip():
                raise _unauthorised("use 'Authorization: Bearer <token>' or 'X-Auth-Token: <token>'")
            return secret.strip()
        if TOKEN_HEADER in request.headers:
            secret = request.headers[TOKEN_HEADER].strip()
            if not secret:
                raise _unauthorised("the X-Auth-Token header is empty")
            return secret
        if cookie and (secret := request.cookies.get(TOKEN_COOKIE, "").strip()):
            # Another site cannot make a browser send a custom header without our consent (CORS), so a
            # state-changing request authenticated by the cookie alone must carry one.
            if request.method not in SAFE_METHODS and request.headers.get(PAGE_HEADER) != PAGE_HEADER_VALUE:
                raise HTTPException(
                    status.HTTP_403_FORBIDDEN,
                    detail=f"a request signed in by cookie must send '{PAGE_HEADER}: {PAGE_HEADER_VALUE}'",
                )
            return secret
        return None

    async def reader(self, request: Request) -> Principal:
        """Reading reports: anyone when public reads are on, else a token with at least the reader role."""
        caller = self.principal(request)
        if caller.role is None and not self.settings.api_public_reads:
            raise _unauthorised("reading needs a token (ICARUS_API_PUBLIC_READS is off)")
        return caller

    async def api(self, request: Request) -> Principal:
        return self._at_least(request, Role.API)

    async def reviewer(self, request: Request) -> Principal:
        return self._at_least(request, Role.REVIEWER)

    def signed_in(self, request: Request, needed: Role, *, cookie: bool = False) -> Principal:
        """A caller with at least ``needed``; ``cookie`` also accepts the page cookie. Anonymous: 401."""
        return self._at_least(request, needed, cookie=cookie)

    async def admin(self, request: Request) -> Principal:
        return self._at_least(request, Role.ADMIN)

    async def hidden_admin(self, request: Request) -> Principal:
        """Admin-only routes that do not exist for anyone else: 404, not 401/403."""
        caller = self.principal(request)
        if caller.role is not Role.ADMIN:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail="Not Found")
        return caller

    def _at_least(self, request: Request, needed: Role, *, cookie: bool = False) -> Principal:
        caller = self.principal(request, cookie=cookie)
        if caller.role is None:
            raise _unauthorised(f"this needs a token with the {needed.value} role")
        if not caller.role.allows(needed):
            raise HTTPException(
                status.HTTP_403_FORBIDDEN,
                detail=f"this needs the {needed.value} role, not {caller.role.value}",
            )
        return caller

    def _role_limit(self, role: Role) -> int:
        return {
            Role.READER: self.settings.api_rate_reader,
            Role.API: self.settings.api_rate_api,
            Role.REVIEWER: self.settings.api_rate_api,
            Role.ADMIN: self.settings.api_rate_admin,
        }[role]

    def _lookup(self, secret: str) -> TokenInfo | None:
        now = time.monotonic()
        key = hash_token(secret)  # the cache holds hashes, like the database, never the tokens themselves
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and now - cached[0] < TOKEN_CACHE_S:
                return cached[1]
        info = self.tokens.authenticate(secret)
        with self._lock:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[key] = (now, info)
        return info


def _unauthorised(message: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail=message, headers={"WWW-Authenticate": "Bearer"})
