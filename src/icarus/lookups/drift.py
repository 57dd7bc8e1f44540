"""H24 look-up: has an evidence page turned into a soft 404, or drifted since it was retrieved?

The adapter fetches the item's URL again (through the SSRF-guarded fetcher), extracts its text and compares
it with the text the ledger holds, which came from the item's own snapshot. When the live page cannot be
fetched and an archive is configured, the archive's newest copy stands in, and the detail says so.

Observations, for the policy to act on (icarus@1.1):

- ``soft_404``: the page answers 200 but is a not-found template: a not-found title, a redirect to the site's
  home page from a deeper path, or less text than the policy's minimum for a real page;
- ``content_changed``: the extracted text differs from the text on file (whitespace aside);
- ``excerpt_still_present``: the item's exact excerpt can still be found in the new text; false excludes it.

A page that is gone (HTTP 404 or 410) has changed and no longer shows the excerpt. A page whose host cannot
be resolved, connected to or heard from within ``max_seconds`` (retries included) is "not run"; after
``MISSES_TO_HOLD`` such pages in a row the machine is taken to be off the network, and drift is not run for
a while (``reachability``). Other failures are ``error`` results. The rules ignore both. A page under a name
reserved for examples and tests is not fetched. The new capture is stored as a snapshot of its own and named in the
detail: the original snapshot is never replaced. The adapter never raises.
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit

from icarus.fetching import (
    ArchiveSource,
    BadStatus,
    BudgetExceeded,
    ConnectFailed,
    ExtractionError,
    FetchBudget,
    FetchError,
    FetchResult,
    FetchTimeout,
    ResolutionFailed,
    SafeFetcher,
    SnapshotError,
    SnapshotStore,
    extract_page,
)
from icarus.ledger import EvidenceItem, LookupName, LookupResult, LookupStatus
from icarus.lookups.reachability import Reachability, reserved_name
from icarus.scoring.icarus.markers import NOT_FOUND_TITLE

PROVIDER = "drift@1"
GONE_STATUSES = frozenset({404, 410})
MISSES_TO_HOLD = 3
DEFAULT_MAX_SECONDS = 15.0
UNREACHED = (ResolutionFailed, ConnectFailed, FetchTimeout, BudgetExceeded)
_SPACE = re.compile(r"\s+")


def normalized(text: str) -> str:
    """Text compared for drift: runs of whitespace folded, ends trimmed."""
    return _SPACE.sub(" ", text).strip()


def homepage_redirect(asked: str, answered: str) -> bool:
    """A deep link that ended on the site's front page: the publisher's way of saying "gone"."""
    asked_path = urlsplit(asked).path.strip("/")
    answered_path = urlsplit(answered).path.strip("/")
    return bool(asked_path) and not answered_path


class DriftLookup:
    """Re-fetches an evidence page and reports soft 404s and drift (H24)."""

    name = LookupName.ARCHIVE
    provider = PROVIDER

    def __init__(
        self,
        fetcher: SafeFetcher,
        snapshots: SnapshotStore,
        *,
        min_chars: int,
        archive: ArchiveSource | None = None,
        max_seconds: float = DEFAULT_MAX_SECONDS,
    ) -> None:
        self.fetcher = fetcher
        self.snapshots = snapshots
        self.min_chars = min_chars
        self.archive = archive
        self.max_seconds = max_seconds
        self._reach = Reachability("evidence pages")
        self._misses = 0

    def _result(self, status: LookupStatus, detail: str, **observed: object) -> LookupResult:
        return LookupResult(
            name=self.name,
            status=status,
            provider=self.provider,
            detail=detail[:300],
            **observed,
        )

    def lookup(self, item: EvidenceItem) -> LookupResult:
        host = urlsplit(item.url).hostname or ""
        if reserved_name(host):
            return self._result(LookupStatus.NOT_RUN, f"{host} is a reserved name: no page is served there")
        down = self._reach.down()
        if down is not None:
            return self._result(LookupStatus.NOT_RUN, down)
        try:
            fetched, source = self._fetch(item.url)
            self._misses = 0
        except BadStatus as exc:
            self._misses = 0  # the host answered
            if exc.status in GONE_STATUSES:
                return self._result(
                    LookupStatus.OK,
                    f"page gone: HTTP {exc.status}",
                    observed_at=None,
                    soft_404=False,
                    content_changed=True,
                    excerpt_still_present=False,
                )
            return self._result(LookupStatus.ERROR, f"HTTP {exc.status}: {exc}")
        except UNREACHED as exc:
            self._misses += 1
            if self._misses >= MISSES_TO_HOLD:
                self._misses = 0
                self._reach.failed(exc)
            return self._result(LookupStatus.NOT_RUN, f"page not reached: {type(exc).__name__}: {exc}")
        except FetchError as exc:
            return self._result(LookupStatus.ERROR, f"{type(exc).__name__}: {exc}")
        if fetched is None:
            return self._result(LookupStatus.ERROR, "the live page failed and the archive has no copy")
        return self._compare(item, fetched, source)

    def _fetch(self, url: str) -> tuple[FetchResult | None, str]:
        try:
            return self.fetcher.fetch(url, budget=FetchBudget(1, self.max_seconds)), "live page"
        except BadStatus:
            raise
        except FetchError:
            if self.archive is None:
                raise
            copy = self.archive.find(url)
            if copy is None:
                return None, ""
            return copy.result, f"archive copy {copy.archive_url}"

    def _compare(self, item: EvidenceItem, fetched: FetchResult, source: str) -> LookupResult:
        observed_at: datetime = fetched.fetched_at
        try:
            page = extract_page(fetched.body, fetched.content_type, fetched.final_url)
        except ExtractionError as exc:
            return self._result(
                LookupStatus.ERROR, f"{source}: cannot extract: {exc}", observed_at=observed_at
            )
        ref = self._keep(fetched)
        text = normalized(page.text)
        reasons = []
        if page.title and NOT_FOUND_TITLE.search(page.title):
            reasons.append("not-found title")
        if homepage_redirect(item.url, fetched.final_url):
            reasons.append("redirected to the home page")
        if len(text) < self.min_chars:
            reasons.append(f"only {len(text)} characters of text")
        changed = text != normalized(item.text)
        excerpt_present = item.excerpt is None or normalized(item.excerpt.text) in text
        parts = [source]
        parts.append("soft 404: " + ", ".join(reasons) if reasons else "a real page")
        parts.append("changed since retrieval" if changed else "unchanged")
        if changed:
            parts.append("excerpt still present" if excerpt_present else "excerpt gone")
        if ref:
            parts.append(f"snapshot {ref}")
        return self._result(
            LookupStatus.OK,
            "; ".join(parts),
            observed_at=observed_at,
            soft_404=bool(reasons),
            content_changed=changed,
            excerpt_still_present=excerpt_present,
        )

    def _keep(self, fetched: FetchResult) -> str | None:
        meta = {
            "url": fetched.url,
            "final_url": fetched.final_url,
            "content_type": fetched.content_type or "application/octet-stream",
            "fetched_at": fetched.fetched_at,
        }
        try:
            return self.snapshots.put(fetched.body, meta)
        except SnapshotError:
            return None
