"""One planned search, as the research planner makes it and a model-proposed search text must pass it:
its kind, provider-neutral text, alternatives and date bounds. ``icarus.research.queries`` plans them;
``icarus.claims.proposals`` checks a proposed search text against the same rules.

No query names X or Twitter or uses a ``site:`` operator: X search is never used as corroboration.
"""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["FORBIDDEN_IN_QUERY", "X_HOSTS", "PlannedQuery", "QueryKind"]

X_HOSTS = frozenset({"x.com", "twitter.com", "mobile.twitter.com", "t.co", "mobile.x.com"})
"""X's hosts: never searched, never named in a query."""


class QueryKind(StrEnum):
    """The ways of searching for one claim; ``icarus.research.queries`` says what each finds."""

    CLOSE_WORDING = "close_wording"
    NORMALIZED = "normalized"
    REFUTATION = "refutation"
    EVENT_DATED = "event_dated"
    PRIMARY_SOURCE = "primary_source"
    CORRECTION = "correction"


# A site: operator or an X host anywhere in a query text.
FORBIDDEN_IN_QUERY = re.compile(
    r"\bsite:|(?<![\w.])(?:" + "|".join(re.escape(host) for host in sorted(X_HOSTS)) + r")(?!\.?\w)",
    re.IGNORECASE,
)


class PlannedQuery(BaseModel):
    """One search to run: its kind, its text, optional alternatives and optional date bounds (inclusive)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: QueryKind = Field(description="Which way of searching this query serves.")
    text: str = Field(min_length=1, description="Plain words and double-quoted phrases; no other syntax.")
    since: date | None = Field(default=None, description="Earliest publication date wanted (inclusive).")
    until: date | None = Field(default=None, description="Latest publication date wanted (inclusive).")
    any_of: tuple[str, ...] = Field(
        default=(), description="Words or phrases of which a match should contain at least one."
    )

    @field_validator("text")
    @classmethod
    def _no_operators(cls, value: str) -> str:
        if FORBIDDEN_IN_QUERY.search(value):
            raise ValueError("query text may not name X/Twitter or use site: operators")
        return value
