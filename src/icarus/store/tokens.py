"""API tokens: created once and shown once, stored only as a SHA-256 hash, with a role and a rate limit.

A token is ``icr_`` followed by 32 random URL-safe bytes; that is enough entropy that a fast unsalted hash
is the right tool (the same reasoning as GitHub's token scanning). The first characters are kept as a
``prefix`` so an admin can tell tokens apart in a listing without seeing any of them whole.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from icarus.store.repository import NotFound, Store
from icarus.store.tables import ApiToken

__all__ = ["TOKEN_PREFIX", "IssuedToken", "Role", "TokenInfo", "TokenStore", "hash_token"]

TOKEN_PREFIX: Final = "icr_"
_VISIBLE_CHARS: Final = 8


class Role(StrEnum):
    """``reader``: read reports. ``api``: read and submit checks. ``reviewer``: also choose and correct
    debate verdicts. ``admin``: everything, diagnostics too."""

    READER = "reader"
    API = "api"
    REVIEWER = "reviewer"
    ADMIN = "admin"

    def allows(self, needed: Role) -> bool:
        order = (Role.READER, Role.API, Role.REVIEWER, Role.ADMIN)
        return order.index(self) >= order.index(needed)


def hash_token(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenInfo:
    id: int
    name: str
    role: Role
    prefix: str
    rate_per_minute: int | None
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True)
class IssuedToken:
    """A new token: ``secret`` exists only here, never in the database."""

    info: TokenInfo
    secret: str


class TokenStore:
    def __init__(self, store: Store) -> None:
        self.store = store

    def create(self, name: str, role: Role, now: datetime, rate_per_minute: int | None = None) -> IssuedToken:
        if rate_per_minute is not None and rate_per_minute < 1:
            raise ValueError("a rate limit is at least 1 request per minute")
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)

        def work(session: Session) -> TokenInfo:
            row = ApiToken(
                token_hash=hash_token(secret),
                prefix=secret[: len(TOKEN_PREFIX) + _VISIBLE_CHARS],
                name=name,
                role=role.value,
                rate_per_minute=rate_per_minute,
                created_at=now,
            )
            session.add(row)
            session.flush()
            return _info(row)

        return IssuedToken(self.store.transaction(work), secret)

    def authenticate(self, secret: str) -> TokenInfo | None:
        """The live token ``secret`` names, or None (unknown or revoked)."""
        with self.store.reading() as session:
            row = session.scalars(select(ApiToken).where(ApiToken.token_hash == hash_token(secret))).first()
            if row is None or row.revoked_at is not None:
                return None
            return _info(row)

    def list(self) -> list[TokenInfo]:
        with self.store.reading() as session:
            return [_info(row) for row in session.scalars(select(ApiToken).order_by(ApiToken.id))]

    def revoke(self, token_id: int, now: datetime) -> TokenInfo:
        def work(session: Session) -> TokenInfo:
            row = session.get(ApiToken, token_id)
            if row is None:
                raise NotFound(f"no token {token_id}")
            if row.revoked_at is None:
                row.revoked_at = now
            return _info(row)

        return self.store.transaction(work)


def _info(row: ApiToken) -> TokenInfo:
    return TokenInfo(
        id=row.id,
        name=row.name,
        role=Role(row.role),
        prefix=row.prefix,
        rate_per_minute=row.rate_per_minute,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )
