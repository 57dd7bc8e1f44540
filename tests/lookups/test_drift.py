"""H24 drift look-up against a local page server: soft 404s, drift, a vanished excerpt, gone pages, archives."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from icarus.fetching import ArchivedCopy, FetchResult, SafeFetcher, SnapshotStore, extract_page
from icarus.ledger import Excerpt, LookupName, LookupStatus, Span
from icarus.lookups import LookupRegistry, enrich, registry_from_settings
from icarus.lookups.drift import DriftLookup, homepage_redirect, normalized
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from tests.builders import item, ledger
from tests.fetching.conftest import FakeServer, Reply
from tests.scoring.scoring_support import item_trace, score

MIN_CHARS = load_policy("icarus@1.1").media.soft_404_min_chars
PARAGRAPH = (
    "Halden port handled 412 container ship calls in October, down from 530 a year earlier, the port "
    "authority said in its monthly statistics release. Officials blamed the slowdown on dredging works. "
)
EXCERPT = "Halden port handled 412 container ship calls in October"


def article(body: str, title: str = "October port statistics") -> str:
    return f"<html><head><title>{title}</title></head><body><article><p>{body}</p></article></body></html>"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


@pytest.fixture
def lookup(tmp_path: Path) -> DriftLookup:
    fetcher = SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None)
    return DriftLookup(fetcher, SnapshotStore(tmp_path / "snapshots"), min_chars=MIN_CHARS)


def on_file(server: FakeServer, path: str, html: str, evidence_id: str = "a"):
    """An evidence item whose text is what the page said when it was retrieved."""
    text = extract_page(html.encode(), "text/html", server.url(path)).text
    start = text.index(EXCERPT)
    excerpt = Excerpt(span=Span(start=start, end=start + len(EXCERPT)), text=EXCERPT)
    return item(evidence_id, url=server.url(path), text=text, excerpt=excerpt)


def test_an_unchanged_page_is_a_real_page(server: FakeServer, lookup: DriftLookup) -> None:
    html = article(PARAGRAPH * 4)
    server.html("/stats", html)
    result = lookup.lookup(on_file(server, "/stats", html))
    assert result.status is LookupStatus.OK and result.name is LookupName.ARCHIVE
    assert (result.soft_404, result.content_changed, result.excerpt_still_present) == (False, False, True)
    assert "snapshot sha256:" in result.detail


def test_an_edit_that_keeps_the_excerpt_is_drift_only(server: FakeServer, lookup: DriftLookup) -> None:
    html = article(PARAGRAPH * 4)
    server.html("/stats", article(PARAGRAPH * 4 + " Update: figures revised for one terminal."))
    result = lookup.lookup(on_file(server, "/stats", html))
    assert (result.content_changed, result.excerpt_still_present) == (True, True)


def test_an_edit_that_removes_the_excerpt(server: FakeServer, lookup: DriftLookup) -> None:
    html = article(PARAGRAPH * 4)
    server.html("/stats", article(PARAGRAPH.replace("412", "398") * 4))
    result = lookup.lookup(on_file(server, "/stats", html))
    assert (result.content_changed, result.excerpt_still_present) == (True, False)


@pytest.mark.parametrize(
    ("title", "body"),
    [
        ("Page not found", PARAGRAPH * 4),  # a not-found template with plenty of filler
        ("October port statistics", "Sorry."),  # too little text to be the article
    ],
)
def test_soft_404_templates(server: FakeServer, lookup: DriftLookup, title: str, body: str) -> None:
    html = article(PARAGRAPH * 4)
    server.html("/stats", article(body, title))
    assert lookup.lookup(on_file(server, "/stats", html)).soft_404 is True


def test_soft_404_text_length_boundary(server: FakeServer, lookup: DriftLookup) -> None:
    html = article(PARAGRAPH * 4)
    exactly = ("x" * (MIN_CHARS - len(EXCERPT) - 1)) + " " + EXCERPT
    assert len(normalized(exactly)) == MIN_CHARS
    server.html("/ok", article(exactly))
    assert lookup.lookup(on_file(server, "/ok", html)).soft_404 is False
    server.html("/short", article(exactly[1:]))
    assert lookup.lookup(on_file(server, "/short", html)).soft_404 is True


def test_a_deep_link_redirected_home_is_a_soft_404(server: FakeServer, lookup: DriftLookup) -> None:
    html = article(PARAGRAPH * 4)
    server.redirect("/stats", server.url("/"))
    server.html("/", article(PARAGRAPH * 4, "Halden Port Authority"))
    assert lookup.lookup(on_file(server, "/stats", html)).soft_404 is True
    assert homepage_redirect("https://a.example/x/y", "https://a.example/")
    assert not homepage_redirect("https://a.example/", "https://a.example/")


def test_a_page_that_is_gone(server: FakeServer, lookup: DriftLookup) -> None:
    server.reply("/stats", Reply(410, b"gone", {"Content-Type": "text/plain"}))
    result = lookup.lookup(on_file(server, "/stats", article(PARAGRAPH * 4)))
    assert result.status is LookupStatus.OK
    assert (result.content_changed, result.excerpt_still_present) == (True, False)


def test_a_server_error_is_an_error_not_an_observation(server: FakeServer, lookup: DriftLookup) -> None:
    server.reply("/stats", Reply(503, b"busy", {"Content-Type": "text/plain"}))
    result = lookup.lookup(on_file(server, "/stats", article(PARAGRAPH * 4)))
    assert result.status is LookupStatus.ERROR and result.content_changed is None


class _OneCopy:
    name = "fake-archive"

    def __init__(self, html: str) -> None:
        self.html = html

    def find(self, url: str, *, near=None, budget=None) -> ArchivedCopy | None:
        body = self.html.encode()
        moment = datetime(2026, 11, 29, tzinfo=UTC)
        fetched = FetchResult(url, url, 200, "text/html", body, "0" * 64, moment)
        return ArchivedCopy(f"https://archive.example/web/2026/{url}", url, moment, fetched)


def test_the_archive_stands_in_when_the_live_page_cannot_be_reached(tmp_path: Path) -> None:
    unreachable = "http://127.0.0.1:9/stats"  # the discard port: nothing listens
    fetcher = SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None)
    html = article(PARAGRAPH * 4)
    lookup = DriftLookup(
        fetcher, SnapshotStore(tmp_path / "s"), min_chars=MIN_CHARS, archive=_OneCopy(article(PARAGRAPH * 3))
    )
    text = extract_page(html.encode(), "text/html", unreachable).text
    start = text.index(EXCERPT)
    evidence = item(
        "a",
        url=unreachable,
        text=text,
        excerpt=Excerpt(span=Span(start=start, end=start + len(EXCERPT)), text=EXCERPT),
    )
    result = lookup.lookup(evidence)
    assert result.status is LookupStatus.OK and "archive copy https://archive.example" in result.detail
    assert (result.content_changed, result.excerpt_still_present) == (True, True)


def test_H24_a_vanished_excerpt_excludes_the_item_under_1_1(server: FakeServer, lookup: DriftLookup) -> None:
    html = article(PARAGRAPH * 4)
    server.html("/stats", article(PARAGRAPH.replace("412", "398") * 4))
    evidence = on_file(server, "/stats", html)
    registry = LookupRegistry({LookupName.ARCHIVE: lookup})
    enriched = enrich(ledger([evidence, item("b")]), registry, load_policy("icarus@1.1"))
    trace = item_trace(score(enriched, "icarus@1.1"), "a")
    assert Decimal(trace["weight"]) == 0
    assert {"rule": "H24", "reason": "excerpt no longer on the page"} in trace["excluded_by"]
    unwired = enrich(ledger([evidence]), registry, load_policy("icarus@1.0"))
    assert unwired.evidence[0].lookups == []  # icarus@1.0 holds drift detection inert


def test_settings_switch_the_drift_lookup(tmp_path: Path) -> None:
    off = registry_from_settings(Settings(data_dir=tmp_path, offline=False, drift_check=False))
    assert off.adapter(LookupName.ARCHIVE).provider == "offline"
    offline = registry_from_settings(Settings(data_dir=tmp_path, offline=True, drift_check=True))
    assert offline.adapter(LookupName.ARCHIVE).provider == "offline"
    on = registry_from_settings(Settings(data_dir=tmp_path, offline=False))  # on by default
    assert isinstance(on.adapter(LookupName.ARCHIVE), DriftLookup)


def test_a_check_shares_its_fetcher_and_policy_with_the_drift_lookup(tmp_path: Path) -> None:
    from icarus.pipeline.services import build_services

    settings = Settings(data_dir=tmp_path, offline=False, drift_check=True, fetch_cited_links=True)
    services = build_services(settings, policy_ref="icarus@1.0", record=False)
    drift = services.lookups.adapter(LookupName.ARCHIVE)
    assert isinstance(drift, DriftLookup)
    assert drift.fetcher is services.fetcher and drift.snapshots is services.snapshots
    assert drift.min_chars == services.policy.media.soft_404_min_chars
