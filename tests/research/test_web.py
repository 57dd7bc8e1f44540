"""Web providers against recorded responses served on 127.0.0.1: ok, failures, missing keys, secrecy."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime

import pytest
from pydantic import SecretStr

from icarus.research import web
from icarus.research.providers import ProviderStatus, SearchProvider
from icarus.research.queries import REFUTATION_TERMS, PlannedQuery, QueryKind
from icarus.research.web import (
    BraveSearchProvider,
    FactCheckToolsProvider,
    GdeltDocProvider,
    SearxngProvider,
    WikipediaSearchProvider,
)
from tests.research.conftest import FakeServer, Route, recorded

KEY = "sk-test-4f9a1c2e8b7d6e5f"
QUERY = PlannedQuery(kind=QueryKind.CLOSE_WORDING, text="measles Europe 2024")
REFUTE = PlannedQuery(
    kind=QueryKind.REFUTATION, text='measles "European Region" 2024', any_of=REFUTATION_TERMS
)

Factory = Callable[[str, SecretStr | None], SearchProvider]


class FakeTime:
    """A clock that moves only when slept on, recording each sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture(autouse=True)
def fake_time(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    """No test waits for real: providers built without a clock get this one, and start with no history."""
    fake = FakeTime()
    monkeypatch.setattr(web, "time", fake)
    monkeypatch.setattr(web._WebProvider, "_next_start", {})
    return fake


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    fixture: str
    make: Factory
    keyed: bool

    def __str__(self) -> str:
        return self.name


CASES = [
    Case(
        "wikipedia",
        "/w/api.php",
        "wikipedia_search.json",
        lambda url, key: WikipediaSearchProvider(f"{url}/w/api.php", timeout_s=2),
        keyed=False,
    ),
    Case(
        "gdelt",
        "/api/v2/doc/doc",
        "gdelt_artlist.json",
        lambda url, key: GdeltDocProvider(f"{url}/api/v2/doc/doc", timeout_s=2),
        keyed=False,
    ),
    Case(
        "searxng",
        "/search",
        "searxng_search.json",
        lambda url, key: SearxngProvider(url, timeout_s=2),
        keyed=False,
    ),
    Case(
        "brave",
        "/res/v1/web/search",
        "brave_web_search.json",
        lambda url, key: BraveSearchProvider(key, url, timeout_s=2),
        keyed=True,
    ),
    Case(
        "google_factcheck",
        "/v1alpha1/claims:search",
        "factcheck_claims_search.json",
        lambda url, key: FactCheckToolsProvider(key, url, timeout_s=2),
        keyed=True,
    ),
]
KEYED = [case for case in CASES if case.keyed]


def provider_for(case: Case, server: FakeServer) -> SearchProvider:
    return case.make(server.url, SecretStr(KEY))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_recorded_response_gives_ok_hits(case: Case, fake_server: FakeServer) -> None:
    fake_server.add(case.path, recorded(case.fixture))
    provider = provider_for(case, fake_server)
    assert isinstance(provider, SearchProvider)
    result = provider.search(QUERY, 10)
    assert result.status is ProviderStatus.OK, result.detail
    assert result.provider == provider.name == case.name
    assert result.hits
    assert all(
        hit.provider == case.name and hit.url.startswith(("https://", fake_server.url)) for hit in result.hits
    )
    assert [hit.score for hit in result.hits] == sorted((hit.score for hit in result.hits), reverse=True)
    assert len(fake_server.requests) == 1


@pytest.mark.parametrize("case", CASES, ids=str)
def test_http_500_is_an_error_result(case: Case, fake_server: FakeServer) -> None:
    fake_server.add(case.path, b"upstream exploded", status=500, content_type="text/plain")
    result = provider_for(case, fake_server).search(QUERY, 10)
    assert (result.status, result.hits, result.detail) == (
        ProviderStatus.ERROR,
        [],
        "HTTP 500 (gave up after 3 attempts)",
    )
    assert len(fake_server.requests) == 3


@pytest.mark.parametrize("case", CASES, ids=str)
def test_malformed_json_is_an_error_result(case: Case, fake_server: FakeServer) -> None:
    fake_server.add(case.path, b'{"results": [ {"url": "https://a.example', content_type="application/json")
    result = provider_for(case, fake_server).search(QUERY, 10)
    assert result.status is ProviderStatus.ERROR
    assert result.detail == "response is not valid JSON"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_wrong_shape_is_an_error_result(case: Case, fake_server: FakeServer) -> None:
    body = {"query": {"search": "x"}, "articles": 3, "results": {}, "web": {"results": 1}, "claims": "x"}
    fake_server.add(case.path, body)
    result = provider_for(case, fake_server).search(QUERY, 10)
    assert (result.status, result.detail) == (ProviderStatus.ERROR, "unexpected response shape")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_timeout_is_an_error_result(case: Case, fake_server: FakeServer) -> None:
    fake_server.add(case.path, recorded(case.fixture), delay_s=1.5)
    provider = case.make(fake_server.url, SecretStr(KEY))
    provider.timeout_s = 0.2  # type: ignore[attr-defined]
    result = provider.search(QUERY, 10)
    assert result.status is ProviderStatus.ERROR
    assert result.detail.startswith("timed out")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_redirect_is_not_followed(case: Case, fake_server: FakeServer) -> None:
    fake_server.add(case.path, b"", status=302, headers={"Location": "http://elsewhere.invalid/steal"})
    result = provider_for(case, fake_server).search(QUERY, 10)
    assert (result.status, result.detail) == (ProviderStatus.ERROR, "HTTP 302: redirect not followed")
    assert len(fake_server.requests) == 1


@pytest.mark.parametrize("case", CASES, ids=str)
def test_unreachable_server_is_an_error_result(case: Case, fake_server: FakeServer) -> None:
    url = fake_server.url
    fake_server.stop()
    result = case.make(url, SecretStr(KEY)).search(QUERY, 10)
    assert result.status is ProviderStatus.ERROR
    assert result.detail.startswith("request failed")


@pytest.mark.parametrize("case", KEYED, ids=str)
@pytest.mark.parametrize("key", [None, SecretStr(""), SecretStr("   ")], ids=["none", "empty", "blank"])
def test_missing_key_is_not_run_and_sends_nothing(
    case: Case, key: SecretStr | None, fake_server: FakeServer
) -> None:
    fake_server.add(case.path, recorded(case.fixture))
    result = case.make(fake_server.url, key).search(QUERY, 10)
    assert (result.status, result.detail, result.hits) == (
        ProviderStatus.NOT_RUN,
        "no API key configured",
        [],
    )
    assert fake_server.requests == []


def test_searxng_without_url_is_not_run() -> None:
    result = SearxngProvider(None).search(QUERY, 10)
    assert (result.status, result.detail) == (ProviderStatus.NOT_RUN, "no SearXNG URL configured")


@pytest.mark.parametrize("case", KEYED, ids=str)
def test_key_travels_in_a_header_and_never_leaks(
    case: Case, fake_server: FakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    provider = provider_for(case, fake_server)
    fake_server.add(case.path, recorded(case.fixture))
    ok = provider.search(QUERY, 10)
    fake_server.add(case.path, b"nope", status=403, content_type="text/plain")
    denied = provider.search(QUERY, 10)
    fake_server.add(case.path, b"{not json")
    broken = provider.search(QUERY, 10)

    assert ok.status is ProviderStatus.OK
    assert denied.detail.startswith("HTTP 403")
    header = {"brave": "X-Subscription-Token", "google_factcheck": "X-goog-api-key"}[case.name]
    for request in fake_server.requests:
        assert request.headers[header] == KEY
        assert KEY not in request.raw_query
    visible = [repr(provider), str(vars(provider)), caplog.text]
    visible += [result.model_dump_json() for result in (ok, denied, broken)]
    for text in visible:
        assert KEY not in text
    assert "**********" in str(vars(provider))


def test_wikipedia_hits(fake_server: FakeServer) -> None:
    fake_server.add("/w/api.php", recorded("wikipedia_search.json"))
    result = WikipediaSearchProvider(f"{fake_server.url}/w/api.php").search(REFUTE, 5)
    first, second = result.hits
    assert first.title == "Measles"
    assert first.url == f"{fake_server.url}/wiki/Measles"
    assert second.url.endswith("/wiki/2024_measles_outbreaks_in_Europe")
    assert first.snippet.startswith("Measles is a highly contagious") and "&amp;" not in first.snippet
    assert first.publisher == "Wikipedia" and first.published_at is None  # a last edit is not a publication
    params = fake_server.requests[0].params
    assert params["action"] == ["query"] and params["list"] == ["search"] and params["srlimit"] == ["5"]
    assert params["srsearch"] == ['measles "European Region" 2024']  # no OR group: CirrusSearch can't group


def test_wikipedia_api_error(fake_server: FakeServer) -> None:
    fake_server.add("/w/api.php", recorded("wikipedia_error.json"))
    result = WikipediaSearchProvider(f"{fake_server.url}/w/api.php").search(QUERY, 5)
    assert (result.status, result.detail) == (ProviderStatus.ERROR, "API error: nosrsearch")


def test_gdelt_hits_dates_and_query(fake_server: FakeServer) -> None:
    fake_server.add("/api/v2/doc/doc", recorded("gdelt_artlist.json"))
    dated = REFUTE.model_copy(update={"since": date(2025, 3, 1), "until": date(2025, 3, 31)})
    result = GdeltDocProvider(f"{fake_server.url}/api/v2/doc/doc").search(dated, 10)
    first = result.hits[0]
    assert first.title == "Measles cases in Europe highest in 25 years, WHO says"
    assert first.published_at == datetime(2025, 3, 13, 10, 45, tzinfo=UTC)
    assert first.domain == "example.co.uk"
    params = fake_server.requests[0].params
    assert params["mode"] == ["artlist"] and params["format"] == ["json"]
    assert params["startdatetime"] == ["20250301000000"] and params["enddatetime"] == ["20250331235959"]
    assert params["query"] == ['"European Region" measles 2024 (false OR debunked OR "no evidence" OR myth)']


def test_gdelt_text_error_and_empty_answer(fake_server: FakeServer) -> None:
    provider = GdeltDocProvider(f"{fake_server.url}/api/v2/doc/doc")
    fake_server.add("/api/v2/doc/doc", "The specified phrase is too short.", content_type="text/html")
    assert provider.search(QUERY, 5).status is ProviderStatus.ERROR
    fake_server.add("/api/v2/doc/doc", {})
    empty = provider.search(QUERY, 5)
    assert (empty.status, empty.hits) == (ProviderStatus.OK, [])
    short = provider.search(PlannedQuery(kind=QueryKind.CLOSE_WORDING, text="EU UK"), 5)
    assert short.status is ProviderStatus.ERROR and "three letters" in short.detail


def test_searxng_hits_and_client_side_date_bounds(fake_server: FakeServer) -> None:
    fake_server.add("/search", recorded("searxng_search.json"))
    provider = SearxngProvider(fake_server.url)
    all_hits = provider.search(QUERY, 10).hits
    assert [hit.domain for hit in all_hits] == ["example.int", "example.net", "example.org"]
    assert all_hits[0].snippet.startswith("The European Region reported 127 350 measles cases")
    bounded = provider.search(QUERY.model_copy(update={"since": date(2025, 1, 1)}), 10).hits
    # The 2019 post is dropped; the undated encyclopedia page is kept (unknown is not out of bounds).
    assert [hit.url.split("/")[2] for hit in bounded] == ["www.who.example.int", "encyclopedia.example.org"]
    assert fake_server.requests[0].params["format"] == ["json"]


def test_brave_hits_and_freshness(fake_server: FakeServer) -> None:
    fake_server.add("/res/v1/web/search", recorded("brave_web_search.json"))
    provider = BraveSearchProvider(SecretStr(KEY), fake_server.url)
    dated = QUERY.model_copy(update={"since": date(2025, 3, 1), "until": date(2025, 3, 31)})
    first, second = provider.search(dated, 5).hits
    assert first.title == "Measles cases in Europe highest in 25 years"
    assert first.publisher == "Example News" and first.domain == "example.co.uk"
    assert first.published_at == datetime(2025, 3, 13, 10, 45, tzinfo=UTC)
    assert second.snippet == "Key facts about measles & vaccination." and second.published_at is None
    params = fake_server.requests[0].params
    assert params["freshness"] == ["2025-03-01to2025-03-31"] and params["count"] == ["5"]


def test_factcheck_carries_the_review_but_not_its_rating_as_text(fake_server: FakeServer) -> None:
    fake_server.add("/v1alpha1/claims:search", recorded("factcheck_claims_search.json"))
    result = FactCheckToolsProvider(SecretStr(KEY), fake_server.url).search(REFUTE, 10)
    assert len(result.hits) == 3  # one hit per review
    first = result.hits[0]
    assert first.url == "https://factcheck.example.org/2025/03/measles-europe-2024"
    assert first.publisher == "Example Fact Check" and first.domain == "example.org"
    assert first.published_at == datetime(2025, 3, 5, tzinfo=UTC)
    assert first.review is not None and first.review.textual_rating == "False"
    assert first.review.claimant == "Social media posts"
    assert first.snippet == "Social media posts: Measles cases in Europe fell sharply in 2024."
    assert all(hit.review and hit.review.textual_rating not in hit.snippet for hit in result.hits)
    params = fake_server.requests[0].params
    assert params["query"] == ['measles "European Region" 2024'] and params["pageSize"] == ["10"]


def test_factcheck_client_side_date_bounds(fake_server: FakeServer) -> None:
    fake_server.add("/v1alpha1/claims:search", recorded("factcheck_claims_search.json"))
    provider = FactCheckToolsProvider(SecretStr(KEY), fake_server.url)
    recent = provider.search(QUERY.model_copy(update={"since": date(2025, 1, 1)}), 10)
    assert [hit.published_at.year for hit in recent.hits if hit.published_at] == [2025, 2025]


def test_oversized_response_is_an_error(fake_server: FakeServer) -> None:
    fake_server.add("/search", b'{"results": [' + b" " * (6 * 1024 * 1024) + b"]}")
    result = SearxngProvider(fake_server.url).search(QUERY, 10)
    assert result.status is ProviderStatus.ERROR and "larger than" in result.detail


def test_limit_is_respected(fake_server: FakeServer) -> None:
    fake_server.add("/search", recorded("searxng_search.json"))
    assert len(SearxngProvider(fake_server.url).search(QUERY, 1).hits) == 1
    assert SearxngProvider(fake_server.url).search(QUERY, 0).hits == []


def _searxng(server: FakeServer, clock: FakeTime) -> SearxngProvider:
    return SearxngProvider(server.url, clock=clock.monotonic, sleep=clock.sleep)


def test_503_then_200_is_retried_to_ok(fake_server: FakeServer) -> None:
    clock = FakeTime()
    fake_server.add_sequence("/search", Route(503), Route(200, recorded("searxng_search.json")))
    result = _searxng(fake_server, clock).search(QUERY, 10)
    assert result.status is ProviderStatus.OK and result.hits
    assert len(fake_server.requests) == 2
    assert clock.sleeps == [1.0]  # one backoff; the 1 s interval has passed by then


def test_429_retry_after_is_honoured(fake_server: FakeServer) -> None:
    clock = FakeTime()
    fake_server.add_sequence(
        "/search", Route(429, headers={"Retry-After": "2"}), Route(200, recorded("searxng_search.json"))
    )
    result = _searxng(fake_server, clock).search(QUERY, 10)
    assert result.status is ProviderStatus.OK
    assert clock.sleeps == [2.0] and clock.now == 1002.0
    assert len(fake_server.requests) == 2


def test_retry_after_is_capped(fake_server: FakeServer) -> None:
    clock = FakeTime()
    fake_server.add_sequence("/search", Route(429, headers={"Retry-After": "3600"}), Route(200, b"{}"))
    assert _searxng(fake_server, clock).search(QUERY, 10).status is ProviderStatus.OK
    assert clock.sleeps == [30.0]


def test_404_is_not_retried(fake_server: FakeServer) -> None:
    clock = FakeTime()
    fake_server.add("/search", b"gone", status=404, content_type="text/plain")
    result = _searxng(fake_server, clock).search(QUERY, 10)
    assert (result.status, result.detail) == (ProviderStatus.ERROR, "HTTP 404")
    assert len(fake_server.requests) == 1 and clock.sleeps == []


def test_repeated_500_gives_up_after_backoff(fake_server: FakeServer) -> None:
    clock = FakeTime()
    fake_server.add("/search", b"down", status=500, content_type="text/plain")
    result = _searxng(fake_server, clock).search(QUERY, 10)
    assert (result.status, result.detail) == (ProviderStatus.ERROR, "HTTP 500 (gave up after 3 attempts)")
    assert len(fake_server.requests) == 3
    assert clock.sleeps == [1.0, 2.0]


def test_429_without_retry_after_gives_up_with_a_clear_detail(fake_server: FakeServer) -> None:
    clock = FakeTime()
    fake_server.add("/search", b"slow down", status=429, content_type="text/plain")
    result = _searxng(fake_server, clock).search(QUERY, 10)
    assert result.detail == "HTTP 429: rate limited (gave up after 3 attempts)"
    assert clock.sleeps == [1.0, 2.0]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_searches_in_a_row_are_spaced_by_the_provider_interval(case: Case, fake_server: FakeServer) -> None:
    fake_server.add(case.path, recorded(case.fixture))
    clock = FakeTime()
    first = case.make(fake_server.url, SecretStr(KEY))
    second = case.make(fake_server.url, SecretStr(KEY))  # a second instance shares the class's interval
    for provider in (first, first, second):
        provider._clock, provider._sleep = clock.monotonic, clock.sleep  # type: ignore[attr-defined]
        assert provider.search(QUERY, 10).status is ProviderStatus.OK
    interval = 5.0 if case.name == "gdelt" else 1.0
    assert type(first).min_interval_s == interval  # type: ignore[attr-defined]
    assert clock.sleeps == [interval, interval]
    assert len(fake_server.requests) == 3


def test_interval_is_per_provider_class(fake_server: FakeServer) -> None:
    clock = FakeTime()
    fake_server.add("/search", b"{}")
    fake_server.add("/w/api.php", b"{}")
    _searxng(fake_server, clock).search(QUERY, 10)
    WikipediaSearchProvider(f"{fake_server.url}/w/api.php", clock=clock.monotonic, sleep=clock.sleep).search(
        QUERY, 10
    )
    assert clock.sleeps == []
