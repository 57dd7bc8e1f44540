"""Budgets cut research and still end in a summary; a search outage leaves the panel pending, while a
search that answers with nothing is normal research."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from icarus.debates.model import ResearchDelay, ResearchMode, Verdict
from icarus.debates.research import Budget, ClaimToResearch, ResearchServices, run_method
from icarus.debates.research.base import PAGE_COST, SEARCH_COST
from icarus.research import PlannedQuery, ProviderResult, SearchProvider, UnavailableProvider, web
from icarus.research.web import SearxngProvider
from tests.debates.research.corpora import NOW, SAMPLE, sample_services, services_for
from tests.research.conftest import FakeServer

CLAIM = ClaimToResearch("Container traffic at Halden harbor fell 12% in October", NOW)
RESEARCHING = (ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE, ResearchMode.DECOMPOSE_INVEST)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def fresh_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web._WebProvider, "_next_start", {})


def searxng(server: FakeServer) -> SearxngProvider:
    return SearxngProvider(server.url, timeout_s=2, sleep=lambda _seconds: None)


def web_only(tmp_path: Path, provider: SearchProvider) -> ResearchServices:
    services = services_for(tmp_path, [], SAMPLE / "reputation.json")
    return ResearchServices(
        providers=[provider],
        judge=services.judge,
        registry=services.registry,
        policy=services.policy,
        snapshots=services.snapshots,
    )


# --- budgets ----------------------------------------------------------------------------------------------


def test_one_search_is_all_a_tight_budget_allows_and_the_panel_is_still_summarised(tmp_path: Path) -> None:
    budget = Budget(max_searches=1, max_pages=12, max_depth=0, max_seconds=60)
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, sample_services(tmp_path), budget)
    assert panel.trace["budget_limit"] == "max_searches"
    assert panel.trace["spent"]["searches"] == 1
    assert panel.explanation.endswith(
        "Research stopped at its search budget; the verdict rests on what was found."
    )
    assert panel.verdict is not Verdict.PENDING  # what one search found is summarised
    assert panel.sources
    skipped = [s for s in panel.trace["searches"] if s["status"] == "not_run"]
    assert skipped and all(s["detail"] == "research budget spent" for s in skipped)


def test_a_page_budget_stops_reading_at_its_limit(tmp_path: Path) -> None:
    budget = Budget(max_searches=24, max_pages=2, max_depth=0, max_seconds=60)
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, sample_services(tmp_path), budget)
    assert panel.trace["budget_limit"] == "max_pages"
    assert panel.trace["spent"]["pages"] == 2
    assert panel.trace["documents"]["read"] == 2
    searches = panel.trace["spent"]["searches"]
    assert panel.cost == pytest.approx(searches * SEARCH_COST + 2 * PAGE_COST)  # billed by what was spent
    assert panel.verdict is not Verdict.PENDING


def test_no_time_left_means_no_search_and_an_unverifiable_summary_not_an_outage(tmp_path: Path) -> None:
    budget = Budget(max_searches=24, max_pages=12, max_depth=0, max_seconds=0)
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, sample_services(tmp_path), budget)
    assert panel.trace["budget_limit"] == "max_seconds"
    assert panel.verdict is Verdict.UNVERIFIABLE
    assert panel.research_delay_reason is None


def test_decompose_invest_without_depth_skips_the_follow_up_and_says_why(tmp_path: Path) -> None:
    budget = Budget(max_searches=72, max_pages=36, max_depth=0, max_seconds=180)
    panel = run_method(ResearchMode.DECOMPOSE_INVEST, CLAIM, sample_services(tmp_path), budget)
    assert panel.trace["budget_limit"] == "max_depth"
    assert all(sub.follow_up is None for sub in panel.sub_questions)
    assert panel.verdict is Verdict.TRUE


def test_the_default_budgets_are_not_hit_on_a_small_corpus(tmp_path: Path) -> None:
    panel = run_method(ResearchMode.DECOMPOSE, CLAIM, sample_services(tmp_path))
    assert panel.trace["budget_limit"] is None
    assert panel.trace["budget"]["max_searches"] == 48
    assert "budget" not in panel.explanation


# --- outage ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", RESEARCHING)
def test_every_search_failing_leaves_the_panel_pending_for_a_retry(
    tmp_path: Path, server: FakeServer, mode: ResearchMode
) -> None:
    server.add("/search", {"error": "upstream down"}, status=503)
    panel = run_method(mode, CLAIM, web_only(tmp_path, searxng(server)))
    assert panel.verdict is Verdict.PENDING
    assert panel.research_delay_reason is ResearchDelay.SEARCH_UNAVAILABLE
    assert panel.confidence == 0.0 and not panel.sources
    assert panel.cost == 0.0  # not billed: it will be researched again


def test_a_search_answering_with_no_hits_is_normal_research(tmp_path: Path, server: FakeServer) -> None:
    server.add("/search", {"query": "x", "results": []})
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, web_only(tmp_path, searxng(server)))
    assert panel.verdict is Verdict.UNVERIFIABLE
    assert panel.research_delay_reason is None
    assert {s["status"] for s in panel.trace["searches"]} == {"ok"}


def test_one_provider_answering_is_enough_to_research(tmp_path: Path, server: FakeServer) -> None:
    server.add("/search", {"error": "upstream down"}, status=503)
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, sample_services(tmp_path, web=[searxng(server)]))
    assert panel.verdict is Verdict.TRUE
    assert panel.research_delay_reason is None


def test_a_missing_local_corpus_is_an_outage_for_local(tmp_path: Path) -> None:
    missing = UnavailableProvider("local_corpus", "no local corpus")
    services = web_only(tmp_path, missing)
    services.local_provider = missing
    panel = run_method(ResearchMode.LOCAL, CLAIM, services)
    assert panel.verdict is Verdict.PENDING
    assert panel.research_delay_reason is ResearchDelay.SEARCH_UNAVAILABLE


def test_no_local_corpus_at_all_is_an_outage_for_local(tmp_path: Path) -> None:
    services = sample_services(tmp_path)
    services.local_provider = None
    panel = run_method(ResearchMode.LOCAL, CLAIM, services)
    assert panel.verdict is Verdict.PENDING
    assert panel.research_delay_reason is ResearchDelay.SEARCH_UNAVAILABLE


def test_a_provider_that_raises_counts_as_failed(tmp_path: Path) -> None:
    class Broken:
        name = "broken"

        def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
            raise TimeoutError("read timed out")

    panel = run_method(ResearchMode.TWO_STEP, CLAIM, web_only(tmp_path, Broken()))
    assert panel.verdict is Verdict.PENDING
    assert any("TimeoutError" in s["detail"] for s in panel.trace["searches"])
