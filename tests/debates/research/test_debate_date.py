"""A debate's date, not the day it is checked, is what its claims speak for: the scope check's
present-tense rule, a claim fixed at a past moment, and the research methods' date bounds."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from icarus.debates.model import ResearchMode, ScopeDecision
from icarus.debates.research import ClaimToResearch, run_method
from icarus.debates.scope import ClaimScope, check_scope, names_past_moment
from icarus.research import PlannedQuery, ProviderResult, QueryKind
from tests.debates.research.corpora import NEWS, NOW, Page, records, services_for, write_pages

HELD_2020 = datetime(2020, 10, 22, 21, 0, tzinfo=UTC)  # a 2020 debate, checked in 2026 (NOW)
PRESENT_2020 = "The unemployment rate in Ruritania is 8.4%"
INDEPENDENCE = "At independence, Nigeria had a population of 45 million; today we are over 200 million."
FIGURE_1960 = "In 1960, the year of independence, the population of Nigeria was 45.1 million."


@pytest.mark.parametrize("year", [2019, 2020])
def test_a_2020_debate_keeps_its_own_years_figures_for_a_present_tense_claim(year: int) -> None:
    text = f"The unemployment rate in Ruritania stood at 8.4% in {year}."
    assert check_scope(ClaimScope.of(PRESENT_2020, HELD_2020), text).decision is ScopeDecision.SAME_SCOPE
    checked_today = check_scope(ClaimScope.of(PRESENT_2020, NOW), text)  # the server clock's reading
    assert checked_today.decision is ScopeDecision.DIFFERENT_PERIOD
    assert "too old for a claim about the present" in checked_today.measures


def test_the_figures_of_independence_are_not_too_old_for_a_claim_about_independence() -> None:
    claim = ClaimScope.of(INDEPENDENCE, HELD_2020)
    assert claim.present_tense and claim.past_moment  # "today we are": read as present, yet fixed at 1960
    assert check_scope(claim, FIGURE_1960).kept
    worded_now = ClaimScope.of("At independence, the population of Nigeria is put at 45 million.", HELD_2020)
    assert check_scope(worded_now, FIGURE_1960).kept


def test_without_a_past_moment_a_present_tense_claim_still_sets_old_figures_aside() -> None:
    claim = ClaimScope.of("The population of Nigeria is 45 million; today we are growing.", HELD_2020)
    found = check_scope(claim, FIGURE_1960)
    assert found.decision is ScopeDecision.DIFFERENT_PERIOD
    assert found.measures == "figures for 1960, too old for a claim about the present"


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("At independence, Nigeria had 45 million people", True),
        ("When Nigeria became independent it had three universities", True),
        ("Back then, inflation was 20 percent", True),
        ("Ten years ago unemployment was 10 percent", True),
        ("In the 1960s the rate was 4 percent", True),
        ("When we took office the deficit was 5 percent", True),
        ("Unemployment is 8 percent", False),
        ("Since independence we have had 16 presidents", False),  # a span that runs to the present
    ],
)
def test_a_past_moment_is_named_without_a_year(text: str, fixed: bool) -> None:
    assert names_past_moment(text) is fixed


def test_figures_for_years_after_the_debate_do_not_measure_its_present() -> None:
    claim = ClaimScope.of(PRESENT_2020, HELD_2020)
    later = check_scope(claim, "The unemployment rate in Ruritania fell to 5.1% in 2024.")
    assert later.decision is ScopeDecision.DIFFERENT_PERIOD
    assert later.measures == "figures for 2024, after the claim was made"
    both = "The unemployment rate in Ruritania was 8.4% in 2020 and 5.1% in 2024."
    assert check_scope(claim, both).kept  # it states the debate's year too


def test_an_undated_page_published_well_after_the_debate_is_set_aside() -> None:
    claim = ClaimScope.of(PRESENT_2020, HELD_2020)
    text = "The unemployment rate in Ruritania stands at 8.4%."
    assert check_scope(claim, text, datetime(2021, 2, 1, tzinfo=UTC)).kept  # a year's figures, next year
    late = check_scope(claim, text, datetime(2023, 5, 1, tzinfo=UTC))
    assert late.decision is ScopeDecision.DIFFERENT_PERIOD
    assert late.measures == "material published in 2023, after the claim was made"


def _pages(tmp_path: Path) -> list[Path]:
    return write_pages(
        tmp_path / "pages",
        [
            Page(
                "jobs-2019",
                "paper2019.example",
                "Jobs 2019",
                "The unemployment rate in Ruritania stood at 8.4% in 2019, the statistics office said.",
                published=None,
            ),
            Page(
                "jobs-2020",
                "paper2020.example",
                "Jobs 2020",
                "Employers kept hiring: the unemployment rate in Ruritania was 8.4% in 2020.",
                published=None,
            ),
        ],
    )


def test_research_for_a_2020_debate_cites_its_2019_and_2020_figures(tmp_path: Path) -> None:
    reputation = records(tmp_path, {"paper2019.example": NEWS, "paper2020.example": NEWS})
    services = services_for(tmp_path, _pages(tmp_path), reputation)
    dated = run_method(ResearchMode.TWO_STEP, ClaimToResearch(PRESENT_2020, NOW, held_at=HELD_2020), services)
    assert dated.out_of_scope_sources == []
    assert {c.domain for c in dated.sources} == {"paper2019.example", "paper2020.example"}
    undated = run_method(ResearchMode.TWO_STEP, ClaimToResearch(PRESENT_2020, NOW), services)
    assert {d.scope_decision for d in undated.out_of_scope_sources} == {ScopeDecision.DIFFERENT_PERIOD}
    assert not undated.sources  # read as of 2026, both are too old: what the debate's date fixes


def test_research_for_nigeria_at_independence_keeps_the_1960_figure(tmp_path: Path) -> None:
    pages = write_pages(
        tmp_path / "pages",
        [Page("nigeria-1960", "history.example", "Nigeria at independence", FIGURE_1960, published=None)],
    )
    services = services_for(tmp_path, pages, records(tmp_path, {"history.example": NEWS}))
    claim = ClaimToResearch(INDEPENDENCE, NOW, held_at=datetime(2020, 10, 1, tzinfo=UTC), country="NG")
    panel = run_method(ResearchMode.TWO_STEP, claim, services)
    assert panel.out_of_scope_sources == []
    assert [c.domain for c in panel.sources] == ["history.example"]


class _Recorder:
    """A search provider that finds nothing and keeps every query it was asked."""

    name = "recorder"

    def __init__(self) -> None:
        self.queries: list[PlannedQuery] = []

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        self.queries.append(query)
        return ProviderResult.ok(self.name, [])


@pytest.mark.parametrize("mode", [ResearchMode.TWO_STEP, ResearchMode.AGENTIC, ResearchMode.RICOCHET])
def test_search_date_bounds_end_on_the_debates_date(tmp_path: Path, mode: ResearchMode) -> None:
    recorder = _Recorder()
    services = services_for(tmp_path, [], records(tmp_path, {}), web=[recorder])  # nothing found: every query
    run_method(mode, ClaimToResearch(PRESENT_2020, NOW, held_at=HELD_2020), services)
    dated = [q for q in recorder.queries if q.kind is QueryKind.EVENT_DATED]
    assert dated, [q.kind for q in recorder.queries]
    assert {q.until for q in dated} == {date(2020, 10, 22)}


def test_a_claim_to_research_needs_an_aware_held_at() -> None:
    with pytest.raises(ValueError, match="held_at must be timezone-aware"):
        ClaimToResearch(PRESENT_2020, NOW, held_at=datetime(2020, 10, 22))
    assert ClaimToResearch(PRESENT_2020, NOW).said_at == NOW
    assert ClaimToResearch(PRESENT_2020, NOW, held_at=HELD_2020).said_at == HELD_2020
