"""The one interface every search provider implements, and the records it returns.

A provider answers a ``PlannedQuery`` with a ``ProviderResult``. It never raises into the check: a missing
key or URL is ``not_run``, a timeout, HTTP error or unreadable response is ``error``, and either one is only
a gap in the search — never evidence against the claim (finding nothing is ❔, not ❌).

The embedded default is the local corpus (``icarus.research.corpus``); the web providers in
``icarus.research.web`` implement the same protocol.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from icarus.fetching.scholarly import ScholarlyMetadata
from icarus.research.queries import PlannedQuery

__all__ = [
    "ClaimReviewRecord",
    "ProviderResult",
    "ProviderStatus",
    "SearchHit",
    "SearchProvider",
]


class ProviderStatus(StrEnum):
    """``ok``: the search ran (zero hits is still ok). ``not_run``: not configured. ``error``: it failed."""

    OK = "ok"
    NOT_RUN = "not_run"
    ERROR = "error"


class ClaimReviewRecord(BaseModel):
    """A professional fact check (schema.org ClaimReview) as a search returned it.

    It makes the review page one high-reputation origin to fetch and judge like any other. Icarus does not
    inherit its rating: ``textual_rating`` is kept for display and audit, and no rule reads it as a verdict.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    claim_text: str = Field(default="", description="The claim as the fact checker worded it.")
    claimant: str = Field(default="", description="Who the fact checker says made the claim.")
    claim_date: datetime | None = Field(default=None, description="When the claim was made, if given.")
    publisher_name: str = Field(default="", description="The fact-checking organisation.")
    publisher_site: str = Field(default="", description="Its site, as the API gives it.")
    url: str = Field(description="The review page.")
    title: str = Field(default="", description="The review's title.")
    review_date: datetime | None = Field(default=None, description="When the review was published.")
    textual_rating: str = Field(
        default="", description="The checker's own rating, display only: never used as a verdict."
    )
    language_code: str = Field(default="", description="Language of the review (BCP-47).")


class SearchHit(BaseModel):
    """One search result: where it is, who published it, when, and the matching text a search returned.

    Web hits carry the engine's snippet and an empty ``text``; the page is fetched and snapshotted later.
    Local-corpus hits carry the whole indexed text.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    doc_id: str = Field(description="The provider's id for the document (local corpus: content SHA-256).")
    url: str = Field(description="Address of the document (a file: URI for local files without one).")
    title: str = Field(default="", description="Document title.")
    snippet: str = Field(default="", description="Matching passage, plain text.")
    text: str = Field(default="", description="Full text when the provider holds it; else empty.")
    publisher: str = Field(default="", description="Publisher or site name, when known.")
    domain: str = Field(default="", description="Registered domain of the URL ('' for files).")
    published_at: datetime | None = Field(default=None, description="Publication time, when known.")
    score: float = Field(default=0.0, description="Provider's relevance score; higher is better.")
    provider: str = Field(description="Name of the provider that returned the hit.")
    review: ClaimReviewRecord | None = Field(
        default=None, description="The fact check, for hits from a ClaimReview search."
    )
    scholarly: ScholarlyMetadata | None = Field(
        default=None, description="Scholarly metadata the provider read from the document (local corpus)."
    )

    @property
    def quotable_snippet(self) -> str:
        """The snippet as something a judge may read for the source. A fact check's snippet is the claim it
        reviewed, in the claimant's words, not the checker's finding: judged, it would read as support for
        the claim the checker rated, so it is never quoted."""
        return "" if self.review is not None else self.snippet


class ProviderResult(BaseModel):
    """What one provider returned for one query, including why it returned nothing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str = Field(description="Provider name.")
    status: ProviderStatus = Field(description="ok, not_run or error.")
    hits: list[SearchHit] = Field(default_factory=list, description="Hits, best first; empty unless ok.")
    detail: str = Field(default="", description="Why not run, or what failed; never holds a secret.")

    @classmethod
    def ok(cls, provider: str, hits: list[SearchHit], detail: str = "") -> ProviderResult:
        return cls(provider=provider, status=ProviderStatus.OK, hits=hits, detail=detail)

    @classmethod
    def not_run(cls, provider: str, detail: str) -> ProviderResult:
        return cls(provider=provider, status=ProviderStatus.NOT_RUN, detail=detail)

    @classmethod
    def error(cls, provider: str, detail: str) -> ProviderResult:
        return cls(provider=provider, status=ProviderStatus.ERROR, detail=detail)


@runtime_checkable
class SearchProvider(Protocol):
    """A source of search hits. ``search`` must not raise: failures come back as ``error``/``not_run``."""

    name: str

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult: ...
