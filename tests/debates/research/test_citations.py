"""Citation fields: publication time (never the crawl time), source origin, official entity, primary
kind, scope decision and trust; recorded web search responses as the only provider."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from icarus.debates.citations import CitationContext, cite
from icarus.debates.model import PrimaryKind, ResearchMode, ScopeDecision, SourceOrigin, Verdict
from icarus.debates.research import BudgetMeter, ClaimToResearch, ResearchServices, default_budget, run_method
from icarus.debates.research.gather import investigate
from icarus.research import SearchHit, web
from icarus.research.web import SearxngProvider
from tests.debates.research.corpora import (
    NEWS,
    NOW,
    SAMPLE,
    Page,
    records,
    sample_services,
    services_for,
    write_pages,
)
from tests.research.conftest import FakeServer

CLAIM = ClaimToResearch("Container traffic at Halden harbor fell 12% in October", NOW)
RECORDED = Path(__file__).parent / "recorded"


@pytest.fixture(autouse=True)
def fresh_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web._WebProvider, "_next_start", {})


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def test_sample_corpus_citations_say_where_each_source_stands(tmp_path: Path) -> None:
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, sample_services(tmp_path))
    by_domain = {c.domain: c for c in panel.sources}
    official = by_domain["haldenport.example"]
    assert official.source_origin is SourceOrigin.OFFICIAL_SITE
    assert official.official_entity_label == "Halden Port Authority"
    assert official.is_primary and official.primary_kind is PrimaryKind.OFFICIAL_DATA
    assert official.trust == 1.0
    assert official.published_at == datetime(2026, 11, 14, 9, 0, tzinfo=UTC)  # the page's own time
    for relay in ("northwire.example", "coastaltimes.example", "baydaily.example"):
        # pages that credit the port authority relay it: never primary
        assert not by_domain[relay].is_primary and by_domain[relay].primary_kind is None
        assert by_domain[relay].source_origin is SourceOrigin.CURATED
        assert by_domain[relay].official_entity_label is None
    assert all(c.scope_decision in {ScopeDecision.SAME_SCOPE, ScopeDecision.UNCLEAR} for c in panel.sources)
    assert all(c.diagnostics and "cluster_id" in c.diagnostics for c in panel.sources)  # admin-only details


def test_an_unknown_publication_date_stays_null_and_the_crawl_time_is_not_used(tmp_path: Path) -> None:
    undated = Page(
        "jobs",
        "paper.example",
        "Ruritania jobs",
        "Our survey of employers shows the unemployment rate in Ruritania fell to 7.5% in October.",
        published=None,
    )
    pages = write_pages(tmp_path / "pages", [undated])
    services = services_for(tmp_path, pages, records(tmp_path, {"paper.example": NEWS}))
    claim = ClaimToResearch("The unemployment rate in Ruritania fell to 7.5% in October", NOW)
    findings = investigate(claim.text, claim, services, BudgetMeter(default_budget(ResearchMode.TWO_STEP)))
    (item,) = findings.judged
    assert item.retrieved_at is not None and item.published_at is None
    assert findings.scored is not None
    context = CitationContext(
        claim_id=findings.claim.claim_id,
        registry=services.registry,
        graph=findings.scored.graph,
        origins=findings.scored.origins,
        search_rows={},
    )
    assert cite(item, context, ScopeDecision.SAME_SCOPE).published_at is None
    # The search row that found it supplies the date the page lacks.
    row = SearchHit(doc_id="d", url=item.url, provider="web", published_at=datetime(2026, 10, 30, tzinfo=UTC))
    with_row = CitationContext(**{**context.__dict__, "search_rows": {item.url: row}})
    assert cite(item, with_row, ScopeDecision.SAME_SCOPE).published_at == datetime(2026, 10, 30, tzinfo=UTC)
    assert cite(item, context, None).scope_decision is None  # not checked


def test_a_domain_not_on_file_has_no_source_origin(tmp_path: Path) -> None:
    page = Page(
        "jobs",
        "unlisted.example",
        "Ruritania jobs",
        "Our survey of employers shows the unemployment rate in Ruritania fell to 7.5% in October.",
    )
    services = services_for(tmp_path, write_pages(tmp_path / "pages", [page]), records(tmp_path, {}))
    claim = ClaimToResearch("The unemployment rate in Ruritania fell to 7.5% in October", NOW)
    panel = run_method(ResearchMode.TWO_STEP, claim, services)
    (citation,) = panel.sources
    assert citation.source_origin is None  # an estimated reputation is not curation
    assert citation.trust < 1.0


def test_fact_checker_pages_are_marked_as_such(tmp_path: Path) -> None:
    page = Page(
        "check",
        "factdesk.example",
        "Fact check: Ruritania unemployment",
        "We checked the figures: the unemployment rate in Ruritania fell to 7.5% in October.",
    )
    reputation = records(tmp_path, {"factdesk.example": ("0.90", "fact_checker", "fact_checker")})
    services = services_for(tmp_path, write_pages(tmp_path / "pages", [page]), reputation)
    claim = ClaimToResearch("The unemployment rate in Ruritania fell to 7.5% in October", NOW)
    panel = run_method(ResearchMode.TWO_STEP, claim, services)
    (citation,) = panel.sources
    assert citation.source_origin is SourceOrigin.FACT_CHECKER


def test_recorded_web_search_results_are_researched_from_their_snippets(
    tmp_path: Path, server: FakeServer
) -> None:
    server.add("/search", (RECORDED / "searxng_halden.json").read_bytes())
    base = services_for(tmp_path, [], SAMPLE / "reputation.json")
    services = ResearchServices(
        providers=[SearxngProvider(server.url, timeout_s=2, sleep=lambda _seconds: None)],
        judge=base.judge,
        registry=base.registry,
        policy=base.policy,
        snapshots=base.snapshots,
    )
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, services)
    assert server.requests and server.requests[0].path == "/search"
    assert panel.verdict is not Verdict.PENDING and panel.research_delay_reason is None
    by_domain = {c.domain: c for c in panel.sources}
    assert by_domain["haldenport.example"].published_at == datetime(2026, 11, 14, 9, 0, tzinfo=UTC)
    assert by_domain["shiptrack.example"].published_at is None  # the row has no date: none is invented
    assert panel.corroboration is not None and panel.corroboration.official_source


def test_a_page_by_the_claims_own_speaker_is_its_own_statement(tmp_path: Path) -> None:
    claim = ClaimToResearch(CLAIM.text, NOW, speaker="ShipTrack Analytics")
    panel = run_method(ResearchMode.TWO_STEP, claim, sample_services(tmp_path))
    by_domain = {c.domain: c for c in panel.sources}
    assert by_domain["shiptrack.example"].primary_kind is PrimaryKind.OWN_STATEMENT
    assert by_domain["shiptrack.example"].is_primary
    assert by_domain["haldenport.example"].primary_kind is PrimaryKind.OFFICIAL_DATA  # official wins
    assert not by_domain["northwire.example"].is_primary  # a relay stays a relay
