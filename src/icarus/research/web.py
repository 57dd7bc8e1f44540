"""Web search providers: Wikipedia, GDELT DOC 2.0, SearXNG, Brave Search and Google Fact Check Tools.

Each implements ``SearchProvider`` over one HTTP JSON API, with its base URL as a constructor argument (so
tests point it at a local fake server). They share one discipline:

- Never raise into the check. A missing key or URL is ``not_run``; a timeout, a non-200 status, a redirect,
  an oversized or malformed body is ``error``. Neither is evidence about the claim.
- Keys are ``SecretStr``, sent in request headers (never in the URL, which HTTP logs print), and kept out
  of ``repr``, log lines and result details. Redirects are not followed, so a key header never travels to
  another host.
- Hits carry the engine's title, snippet and date; the page itself is fetched and snapshotted later.
  ``score`` is 1/rank in the engine's own order, since engines' raw scores are not comparable.
- Date bounds go to the API where it has a parameter for them; otherwise hits with a known date outside the
  bounds are dropped here, and undated hits are kept.
- Politeness: each provider class keeps a minimum interval between the starts of its requests
  (``min_interval_s``: 5 s for GDELT, which asks for one request every 5 s, 1 s for the others), shared by
  every instance of that class in the process. A connect error, a timeout, HTTP 429 or 5xx is retried at
  most ``max_retries`` times, after 1 s then 2 s, or after the server's ``Retry-After`` seconds (at most
  30 s); other failures are final. ``clock`` and ``sleep`` are injectable so tests take no real time.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable
from datetime import date
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit

from pydantic import SecretStr

from icarus.provenance.canonical import registered_domain
from icarus.remote import AnswerError, parse_json, read_capped
from icarus.research._text import parse_datetime, strip_markup, tokens
from icarus.research.providers import ClaimReviewRecord, ProviderResult, SearchHit
from icarus.research.queries import PlannedQuery, web_query

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_USER_AGENT",
    "BraveSearchProvider",
    "FactCheckToolsProvider",
    "GdeltDocProvider",
    "SearxngProvider",
    "WikipediaSearchProvider",
]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 15.0
DEFAULT_USER_AGENT = "IcarusEvidenceReview/0.1 (+https://icarus.invalid/bot)"
_MAX_RESPONSE_BYTES = 5 * 1024 * 1024  # a search answer is small; anything bigger is not one
_BACKOFF_BASE_S = 1.0  # first retry after 1 s, then 2 s
_MAX_RETRY_AFTER_S = 30.0  # a longer Retry-After is cut to this

Clock = Callable[[], float]
Sleep = Callable[[float], None]


class _Failure(Exception):
    """A provider failure; the message is safe to show (no URL query, no key).

    ``retryable`` marks a transient failure (connect error, timeout, 429, 5xx); ``retry_after`` is the
    server's ``Retry-After`` in seconds, when it sent one.
    """

    def __init__(self, detail: str, *, retryable: bool = False, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.retryable = retryable
        self.retry_after = retry_after


class _WebProvider:
    """Shared plumbing: configuration checks, rate limit, one GET returning JSON with retries, and
    failure → result mapping."""

    name = "web"
    max_limit = 50
    min_interval_s: ClassVar[float] = 1.0  # between request starts, for all instances of the class
    max_retries: ClassVar[int] = 2

    # Per provider class: the clock time before which its next request may not start.
    _next_start: ClassVar[dict[type, float]] = {}
    _next_start_lock: ClassVar[threading.Lock] = threading.Lock()

    default_base_url: ClassVar[str | None] = None  # used when no base URL is given

    def __init__(
        self,
        base_url: str | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        user_agent: str = DEFAULT_USER_AGENT,
        api_key: SecretStr | None = None,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        base_url = base_url or self.default_base_url
        self.base_url = base_url.rstrip("/") if base_url else None
        self.timeout_s = timeout_s
        self.user_agent = user_agent
        self._api_key = api_key
        self._clock = clock or time.monotonic
        self._sleep = sleep or time.sleep

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def _not_configured(self) -> str | None:
        return None if self.base_url else "no base URL configured"

    def _key(self) -> str | None:
        value = self._api_key.get_secret_value().strip() if self._api_key is not None else ""
        return value or None

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        reason = self._not_configured()
        if reason is not None:
            return ProviderResult.not_run(self.name, reason)
        if limit <= 0:
            return ProviderResult.ok(self.name, [])
        try:
            hits = self._search(query, min(limit, self.max_limit))
        except _Failure as exc:
            return ProviderResult.error(self.name, str(exc))
        except Exception as exc:  # the check must go on; say what kind of failure, nothing more
            log.debug("%s: unexpected %s", self.name, type(exc).__name__)
            return ProviderResult.error(self.name, f"unexpected failure ({type(exc).__name__})")
        return ProviderResult.ok(self.name, _within(hits, query.since, query.until)[:limit])

    def _search(self, query: PlannedQuery, limit: int) -> list[SearchHit]:
        raise NotImplementedError

    def _wait_turn(self) -> None:
        """Reserve the class's next request slot under the lock, then sleep (unlocked) until it comes."""
        with _WebProvider._next_start_lock:
            now = self._clock()
            start = max(now, _WebProvider._next_start.get(type(self), now))
            _WebProvider._next_start[type(self)] = start + self.min_interval_s
        if start > now:
            self._sleep(start - now)

    def _get_json(self, url: str, params: dict[str, str | int], headers: dict[str, str] | None = None) -> Any:
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            self._wait_turn()
            try:
                return self._get_json_once(url, params, headers)
            except _Failure as exc:
                if not exc.retryable:
                    raise
                if attempt + 1 == attempts:
                    raise _Failure(f"{exc} (gave up after {attempts} attempts)") from None
                delay = exc.retry_after if exc.retry_after is not None else _BACKOFF_BASE_S * 2**attempt
                log.debug("%s: %s; retrying in %g s", self.name, exc, delay)
                self._sleep(delay)
        raise AssertionError("unreachable")

    def _get_json_once(
        self, url: str, params: dict[str, str | int], headers: dict[str, str] | None = None
    ) -> Any:
        import httpx  # here, not above: a check whose providers are all local never needs it

        request_headers = {"Accept": "application/json", "User-Agent": self.user_agent, **(headers or {})}
        path = urlsplit(url).path  # logged and reported without the query string
        try:
            with (
                httpx.Client(timeout=self.timeout_s, follow_redirects=False) as client,
                client.stream("GET", url, params=params, headers=request_headers) as response,
            ):
                log.debug("%s: GET %s -> %s", self.name, path, response.status_code)
                status = response.status_code
                if status != 200:
                    transient = status == 429 or status >= 500
                    raise _Failure(
                        self._status_detail(status),
                        retryable=transient,
                        retry_after=_retry_after(response.headers.get("Retry-After")) if transient else None,
                    )
                body = read_capped(response, _MAX_RESPONSE_BYTES)
        except AnswerError as exc:  # larger than the cap
            raise _Failure(f"response {exc}") from None
        except httpx.TimeoutException:
            raise _Failure(f"timed out after {self.timeout_s:g} s", retryable=True) from None
        except httpx.TransportError as exc:  # connect, read or protocol failure on the wire
            raise _Failure(f"request failed ({type(exc).__name__})", retryable=True) from None
        except httpx.HTTPError as exc:
            raise _Failure(f"request failed ({type(exc).__name__})") from None
        try:
            return parse_json(body)
        except AnswerError:
            raise _Failure("response is not valid JSON") from None

    def _status_detail(self, status: int) -> str:
        if 300 <= status < 400:
            return f"HTTP {status}: redirect not followed"
        if status in (401, 403):
            return f"HTTP {status}: not authorised (check the API key or instance settings)"
        if status == 429:
            return "HTTP 429: rate limited"
        return f"HTTP {status}"


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds, capped; ``None`` when absent or an HTTP date (then back off as usual)."""
    try:
        seconds = float(value) if value is not None else math.nan
    except ValueError:
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, _MAX_RETRY_AFTER_S)


def _within(hits: list[SearchHit], since: date | None, until: date | None) -> list[SearchHit]:
    """Drop hits dated outside the bounds; keep undated ones (unknown is not outside)."""
    kept = []
    for hit in hits:
        day = hit.published_at.date() if hit.published_at else None
        if day is not None and ((since and day < since) or (until and day > until)):
            continue
        kept.append(hit)
    return kept


def _domain(url: str, host: str | None = None) -> str:
    if not host:
        try:
            host = urlsplit(url).hostname
        except ValueError:
            host = None
    return registered_domain(host) if host else ""


def _items(data: Any, *path: str) -> list[dict[str, Any]]:
    """The list of objects at ``path`` in ``data``; a missing path is an empty list, a wrong shape fails."""
    node = data
    for key in path:
        if not isinstance(node, dict):
            raise _Failure("unexpected response shape")
        node = node.get(key)
        if node is None:
            return []
    if not isinstance(node, list):
        raise _Failure("unexpected response shape")
    return [item for item in node if isinstance(item, dict)]


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _rank_score(index: int) -> float:
    return 1.0 / (index + 1)


class WikipediaSearchProvider(_WebProvider):
    """MediaWiki full-text search (``action=query&list=search``); no key needed.

    Date bounds are not applied: an article is a living page, and its timestamp is its last edit, not a
    publication date, so ``published_at`` is left empty.
    """

    name = "wikipedia"
    default_base_url = "https://en.wikipedia.org/w/api.php"  # the API endpoint itself

    def _search(self, query: PlannedQuery, limit: int) -> list[SearchHit]:
        assert self.base_url is not None
        data = self._get_json(
            self.base_url,
            {
                "action": "query",
                "list": "search",
                # CirrusSearch has no grouping syntax, so alternatives would narrow the search; leave them out.
                "srsearch": web_query(query, with_any_of=False),
                "srlimit": limit,
                "srprop": "snippet|timestamp|wordcount",
                "format": "json",
                "formatversion": 2,
            },
        )
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            raise _Failure(f"API error: {_str(data['error'].get('code')) or 'unknown'}")
        parts = urlsplit(self.base_url)
        site = f"{parts.scheme}://{parts.netloc}"
        hits = []
        for index, item in enumerate(_items(data, "query", "search")):
            title = _str(item.get("title"))
            if not title:
                continue
            url = f"{site}/wiki/{quote(title.replace(' ', '_'), safe='/:()_,-.')}"
            hits.append(
                SearchHit(
                    doc_id=f"wikipedia:{item.get('pageid', title)}",
                    url=url,
                    title=title,
                    snippet=strip_markup(_str(item.get("snippet"))),
                    publisher="Wikipedia",
                    domain=_domain(url),
                    score=_rank_score(index),
                    provider=self.name,
                )
            )
        return hits


class GdeltDocProvider(_WebProvider):
    """GDELT DOC 2.0 article search (``mode=artlist&format=json``); no key needed.

    GDELT returns a plain-text message (not JSON) for queries it rejects, which becomes an ``error``. It
    gives no snippet and no publisher name; ``published_at`` is GDELT's first-seen time.
    """

    name = "gdelt"
    max_limit = 250
    min_interval_s = 5.0  # GDELT asks for no more than one request every 5 seconds
    default_base_url = "https://api.gdeltproject.org/api/v2/doc/doc"

    def _search(self, query: PlannedQuery, limit: int) -> list[SearchHit]:
        assert self.base_url is not None
        text = _gdelt_query(query)
        if not text:
            raise _Failure("query has no words GDELT accepts (three letters or more)")
        params: dict[str, str | int] = {
            "query": text,
            "mode": "artlist",
            "format": "json",
            "maxrecords": limit,
            "sort": "hybridrel",
        }
        if query.since:
            params["startdatetime"] = query.since.strftime("%Y%m%d000000")
        if query.until:
            params["enddatetime"] = query.until.strftime("%Y%m%d235959")
        data = self._get_json(self.base_url, params)
        hits = []
        for index, item in enumerate(_items(data, "articles")):
            url = _str(item.get("url"))
            if not url:
                continue
            hits.append(
                SearchHit(
                    doc_id=url,
                    url=url,
                    title=_str(item.get("title")),
                    domain=_domain(url, _str(item.get("domain")) or None),
                    published_at=parse_datetime(item.get("seendate")),
                    score=_rank_score(index),
                    provider=self.name,
                )
            )
        return hits


_QUOTED = re.compile(r'"([^"]*)"')


def _gdelt_query(query: PlannedQuery) -> str:
    # GDELT rejects words shorter than three characters and wants OR-ed terms inside parentheses.
    phrases = [" ".join(tokens(phrase)) for phrase in _QUOTED.findall(query.text)]
    words = [word for word in tokens(_QUOTED.sub(" ", query.text)) if len(word) >= 3]
    parts = [f'"{phrase}"' for phrase in phrases if phrase] + words
    alternatives = [f'"{term}"' if " " in term else term for term in query.any_of if len(term) >= 3]
    if parts and len(alternatives) > 1:
        parts.append("(" + " OR ".join(alternatives) + ")")
    elif parts and alternatives:
        parts.append(alternatives[0])
    return " ".join(parts)


class SearxngProvider(_WebProvider):
    """A SearXNG instance's JSON API (``/search?format=json``); ``not_run`` until a base URL is given.

    The instance must list ``json`` under ``search.formats`` in its settings, or it answers 403.
    """

    name = "searxng"

    def _not_configured(self) -> str | None:
        return None if self.base_url else "no SearXNG URL configured"

    def _search(self, query: PlannedQuery, limit: int) -> list[SearchHit]:
        data = self._get_json(f"{self.base_url}/search", {"q": web_query(query), "format": "json"})
        hits = []
        for index, item in enumerate(_items(data, "results")):
            url = _str(item.get("url"))
            if not url:
                continue
            hits.append(
                SearchHit(
                    doc_id=url,
                    url=url,
                    title=strip_markup(_str(item.get("title"))),
                    snippet=strip_markup(_str(item.get("content"))),
                    domain=_domain(url),
                    published_at=parse_datetime(item.get("publishedDate")),
                    score=_rank_score(index),
                    provider=self.name,
                )
            )
        return hits[:limit]


class BraveSearchProvider(_WebProvider):
    """Brave Search web API (``/res/v1/web/search``, key in ``X-Subscription-Token``)."""

    name = "brave"
    max_limit = 20

    def __init__(
        self,
        api_key: SecretStr | None,
        base_url: str = "https://api.search.brave.com",
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        user_agent: str = DEFAULT_USER_AGENT,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        super().__init__(
            base_url, api_key=api_key, timeout_s=timeout_s, user_agent=user_agent, clock=clock, sleep=sleep
        )

    def _not_configured(self) -> str | None:
        return None if self._key() else "no API key configured"

    def _search(self, query: PlannedQuery, limit: int) -> list[SearchHit]:
        key = self._key()
        assert key is not None
        params: dict[str, str | int] = {"q": web_query(query), "count": limit}
        if query.since and query.until:
            params["freshness"] = f"{query.since.isoformat()}to{query.until.isoformat()}"
        data = self._get_json(
            f"{self.base_url}/res/v1/web/search", params, headers={"X-Subscription-Token": key}
        )
        hits = []
        for index, item in enumerate(_items(data, "web", "results")):
            url = _str(item.get("url"))
            if not url:
                continue
            profile = _object(item.get("profile"))
            meta_url = _object(item.get("meta_url"))
            hits.append(
                SearchHit(
                    doc_id=url,
                    url=url,
                    title=strip_markup(_str(item.get("title"))),
                    snippet=strip_markup(_str(item.get("description"))),
                    publisher=_str(profile.get("name")),
                    domain=_domain(url, _str(meta_url.get("hostname")) or None),
                    published_at=parse_datetime(item.get("page_age")),
                    score=_rank_score(index),
                    provider=self.name,
                )
            )
        return hits


class FactCheckToolsProvider(_WebProvider):
    """Google Fact Check Tools ``claims:search`` (key in ``X-goog-api-key``).

    Each ClaimReview becomes one hit on the review page, with the review in ``SearchHit.review``. The hit
    makes the fact check one origin to fetch and judge like any other; its ``textual_rating`` is never
    used as a verdict and is kept out of the snippet, which holds the claim as the checker worded it.
    """

    name = "google_factcheck"

    def __init__(
        self,
        api_key: SecretStr | None,
        base_url: str = "https://factchecktools.googleapis.com",
        *,
        language_code: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        user_agent: str = DEFAULT_USER_AGENT,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        super().__init__(
            base_url, api_key=api_key, timeout_s=timeout_s, user_agent=user_agent, clock=clock, sleep=sleep
        )
        self.language_code = language_code

    def _not_configured(self) -> str | None:
        return None if self._key() else "no API key configured"

    def _search(self, query: PlannedQuery, limit: int) -> list[SearchHit]:
        key = self._key()
        assert key is not None
        # The API searches claims that fact checkers reviewed; refutation words would only narrow it.
        params: dict[str, str | int] = {"query": web_query(query, with_any_of=False), "pageSize": limit}
        if self.language_code:
            params["languageCode"] = self.language_code
        data = self._get_json(
            f"{self.base_url}/v1alpha1/claims:search", params, headers={"X-goog-api-key": key}
        )
        hits: list[SearchHit] = []
        for claim in _items(data, "claims"):
            claim_text = _str(claim.get("text"))
            claimant = _str(claim.get("claimant"))
            for review in _items(claim, "claimReview"):
                url = _str(review.get("url"))
                if not url:
                    continue
                publisher = _object(review.get("publisher"))
                record = ClaimReviewRecord(
                    claim_text=claim_text,
                    claimant=claimant,
                    claim_date=parse_datetime(claim.get("claimDate")),
                    publisher_name=_str(publisher.get("name")),
                    publisher_site=_str(publisher.get("site")),
                    url=url,
                    title=_str(review.get("title")),
                    review_date=parse_datetime(review.get("reviewDate")),
                    textual_rating=_str(review.get("textualRating")),
                    language_code=_str(review.get("languageCode")),
                )
                snippet = f"{claimant}: {claim_text}" if claimant and claim_text else claim_text
                hits.append(
                    SearchHit(
                        doc_id=url,
                        url=url,
                        title=record.title or claim_text,
                        snippet=snippet,
                        publisher=record.publisher_name,
                        domain=_domain(url, _site_host(record.publisher_site)),
                        published_at=record.review_date,
                        score=_rank_score(len(hits)),
                        provider=self.name,
                        review=record,
                    )
                )
        return hits


def _site_host(site: str) -> str | None:
    # The API gives the site as a bare host ("politifact.com") or occasionally as a URL.
    if not site:
        return None
    return urlsplit(site).hostname if "//" in site else site.split("/")[0] or None
