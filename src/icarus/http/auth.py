"""Who is calling, what they may do, and how often.

A caller is anonymous or presents ``Authorization: Bearer icr_…`` (or the same token as ``X-Auth-Token:
icr_…``, the header the debate clients send). Tokens are looked up by hash (see ``icarus.store.tokens``);
an unknown or revoked token is refused (401) rather than treated as anonymous. The debate pages may also
read the token from a ``SameSite=Strict`` cookie (``TOKEN_COOKIE``), which a browser cannot be made to
send from another site.

Roles nest: reader < api < reviewer < admin. Every caller is rate limited per minute: a token by its own
limit or its role's default, an anonymous caller by client address and by the budget all anonymous callers
share. Limits are counted in Redis when one is configured, so every API process shares them, else in this
process (see ``icarus.http.limits``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Final

from fastapi import HTTPException, Request, status

from icarus.http.limits import ANONYMOUS_REQUESTS_KEY, Limiter, RateLimiter
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
TOKEN_CACHE_S: Final = 5.0  # a revoked token stops working within this long


@dataclass(frozen=True)
class Principal:
    role: Role | None  # None: anonymous
    key: str  # what the rate limit counts against
    token_id: int | None = None
    token: TokenInfo | None = None  # the token presented; its organisation is looked up from it


class Security:
    """The API's authentication, authorisation and rate limiting, as FastAPI dependencies.

    The dependencies are ``async`` so a request does not hop to a thread just to be authorised: the work is
    a dictionary look-up, and a database read only when a token is not in the short-lived cache."""

    def __init__(self, tokens: TokenStore, settings: Settings, limiter: Limiter | None = None) -> None:
        self.tokens = tokens
        self.settings = settings
        self.limiter: Limiter = limiter or RateLimiter()
        self._cache: dict[str, tuple[float, TokenInfo | None]] = {}
        self._lock = threading.Lock()

    def principal(self, request: Request, *, cookie: bool = False) -> Principal:
        """Who calls. ``cookie``: also accept the token from the ``TOKEN_COOKIE`` cookie (pages only)."""
        secret = self._presented_secret(request, cookie=cookie)
        if secret is None:
            caller = self._anonymous(request)
        else:
            info = self._lookup(secret)
            if info is None:
                self._anonymous(request)  # guessing tokens costs the anonymous budget: 429 once it is spent
                raise _unauthorised("unknown or revoked token")
            caller = Principal(info.role, f"token:{info.id}", info.id, info)
            _charge(self.limiter, caller.key, self.limit_of(caller), "rate limit of {} requests per minute")
        request.state.principal = caller
        return caller

    def _anonymous(self, request: Request) -> Principal:
        """An anonymous caller, charged to its address and then to the budget every anonymous caller
        shares (never to a token's)."""
        host = request.client.host if request.client else "unknown"
        caller = Principal(None, f"addr:{host}")
        _charge(self.limiter, caller.key, self.limit_of(caller), "rate limit of {} requests per minute")
        _charge(
            self.limiter,
            ANONYMOUS_REQUESTS_KEY,
            self.settings.api_rate_anonymous_total,
            "the limit of {} requests per minute that all callers without a token share",
        )
        return caller

    def identify(self, request: Request, *, cookie: bool = False) -> Principal | None:
        """The token holder calling, without counting the call; None for anyone without a valid token."""
        try:
            secret = self._presented_secret(request, cookie=cookie)
        except HTTPException:
            return None
        info = None if secret is None else self._lookup(secret)
        return None if info is None else Principal(info.role, f"token:{info.id}", info.id, info)

    def limit_of(self, caller: Principal) -> int:
        """Requests a minute: the token's own limit or its role's, else the per-address anonymous one."""
        if caller.token is None or caller.role is None:
            return self.settings.api_rate_anonymous
        return caller.token.rate_per_minute or self._role_limit(caller.role)

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


def _charge(limiter: Limiter, key: str, limit: int, what: str) -> None:
    """Count one request against ``key``; over ``limit``, 429 saying ``what`` was reached."""
    wait = limiter.hit(key, limit)
    if wait is not None:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            detail=f"{what.format(limit)} reached",
            headers={"Retry-After": str(int(wait) + 1)},
        )


def _unauthorised(message: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail=message, headers={"WWW-Authenticate": "Bearer"})
