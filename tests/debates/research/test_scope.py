"""The scope check: same quantity, place and period as the claim; the present-tense boundary; a panel
whose every document is out of scope is unverifiable and says what the sources measure instead."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from icarus.debates.model import ResearchMode, ScopeDecision, Verdict
from icarus.debates.research import ClaimToResearch, run_method
from icarus.debates.scope import ClaimScope, check_scope, describe_set_aside
from icarus.ledger.judgments import ScopeAnswer, ScopeDimension
from tests.debates.research.corpora import NEWS, NOW, OFFICIAL, Page, records, services_for, write_pages

AS_OF = datetime(2026, 11, 20, tzinfo=UTC)
PRESENT = ClaimScope.of("The unemployment rate in Ruritania is 7.5%", AS_OF)
DATED = ClaimScope.of("GDP growth in Ruritania was 3% in 2025", AS_OF)


@pytest.mark.parametrize(
    ("year", "decision"),
    [
        (2026, ScopeDecision.SAME_SCOPE),
        (2025, ScopeDecision.SAME_SCOPE),  # one year old: still speaks to the present
        (2024, ScopeDecision.SAME_SCOPE),  # two years old: the last year kept
        (2023, ScopeDecision.DIFFERENT_PERIOD),  # three years old: set aside
    ],
)
def test_a_present_tense_claim_keeps_figures_up_to_two_years_old(year: int, decision: ScopeDecision) -> None:
    text = f"The unemployment rate in Ruritania stood at 7.5% in {year}."
    assert check_scope(PRESENT, text).decision is decision


def test_an_undated_page_is_dated_by_its_publication_for_a_present_tense_claim() -> None:
    text = "The unemployment rate in Ruritania stands at 7.5%."
    assert check_scope(PRESENT, text, datetime(2024, 3, 1, tzinfo=UTC)).kept
    three_years = check_scope(PRESENT, text, datetime(2023, 12, 31, tzinfo=UTC))
    assert three_years.decision is ScopeDecision.DIFFERENT_PERIOD
    assert "2023" in three_years.measures


def test_a_dated_claim_wants_its_own_year() -> None:
    assert check_scope(DATED, "GDP growth in Ruritania was 3% in 2025.").decision is ScopeDecision.SAME_SCOPE
    older = check_scope(DATED, "GDP growth in Ruritania was 3% in 2019.")
    assert older.decision is ScopeDecision.DIFFERENT_PERIOD
    assert older.measures == "figures for 2019"


def test_another_indicator_is_a_different_quantity_and_says_which() -> None:
    found = check_scope(DATED, "Inflation in Ruritania reached 3% in 2025.")
    assert found.decision is ScopeDecision.DIFFERENT_QUANTITY
    assert found.measures == "inflation"


def test_another_country_is_a_different_geography() -> None:
    found = check_scope(DATED, "GDP growth in Freedonia was 3% in 2025.")
    assert found.decision is ScopeDecision.DIFFERENT_GEOGRAPHY
    assert "freedonia" in found.measures


def test_a_page_naming_no_place_is_not_set_aside_for_geography() -> None:
    assert check_scope(DATED, "GDP growth was 3% in 2025, the ministry said.").kept


def test_a_differing_value_for_the_same_measure_is_in_scope_despite_the_judge() -> None:
    judged = ScopeAnswer(matches=False, mismatched=[ScopeDimension.QUANTITY])
    text = "GDP growth in Ruritania was 1.2% in 2025."
    assert check_scope(DATED, text, judged=judged).decision is ScopeDecision.SAME_SCOPE
    period = ScopeAnswer(matches=False, mismatched=[ScopeDimension.PERIOD])
    assert check_scope(DATED, text, judged=period).decision is ScopeDecision.UNCLEAR


def test_a_page_stating_no_figure_and_not_the_measure_is_unclear() -> None:
    assert check_scope(DATED, "Ruritania's economy in 2025: a review.").decision is ScopeDecision.UNCLEAR


def test_the_set_aside_sentence_lists_each_measure_once() -> None:
    sentence = describe_set_aside(["inflation", "inflation", "figures for freedonia"])
    assert sentence.endswith(": inflation; figures for freedonia.")


def test_when_every_document_is_out_of_scope_the_panel_is_unverifiable_and_says_why(tmp_path: Path) -> None:
    pages = write_pages(
        tmp_path / "pages",
        [
            Page(
                "inflation",
                "stats.example",
                "Inflation in 2025",
                "Inflation in Ruritania reached 3% in 2025.",
            ),
            Page("freedonia", "news.example", "Freedonia growth", "GDP growth in Freedonia was 3% in 2025."),
        ],
    )
    services = services_for(
        tmp_path, pages, records(tmp_path, {"stats.example": OFFICIAL, "news.example": NEWS})
    )
    claim = ClaimToResearch("GDP growth in Ruritania was 3% in 2025", NOW)
    for mode in (ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE):
        panel = run_method(mode, claim, services)
        assert panel.verdict is Verdict.UNVERIFIABLE
        assert not panel.sources  # set-aside documents are never cited
        decisions = {doc.domain: doc.scope_decision for doc in panel.out_of_scope_sources}
        assert decisions == {
            "stats.example": ScopeDecision.DIFFERENT_QUANTITY,
            "news.example": ScopeDecision.DIFFERENT_GEOGRAPHY,
        }
    two_step = run_method(ResearchMode.TWO_STEP, claim, services)
    assert "inflation" in two_step.explanation and "freedonia" in two_step.explanation


def test_an_old_figure_is_set_aside_while_recent_ones_are_cited(tmp_path: Path) -> None:
    pages = write_pages(
        tmp_path / "pages",
        [
            Page(f"jobs-{year}", f"paper{year}.example", f"Jobs {year}", text, published=None)
            for year, text in (
                (
                    2025,
                    "The unemployment rate in Ruritania stood at 7.5% in 2025, our survey of employers shows.",
                ),
                (
                    2024,
                    "Hotels and farms hired all year: the unemployment rate in Ruritania was 7.5% in 2024.",
                ),
                (2023, "Back in 2023 the unemployment rate in Ruritania was 7.5%, the census bureau found."),
            )
        ],
    )
    reputation = records(tmp_path, {f"paper{year}.example": NEWS for year in (2023, 2024, 2025)})
    claim = ClaimToResearch("The unemployment rate in Ruritania is 7.5%", NOW)
    panel = run_method(ResearchMode.TWO_STEP, claim, services_for(tmp_path, pages, reputation))
    assert [(d.domain, d.scope_decision) for d in panel.out_of_scope_sources] == [
        ("paper2023.example", ScopeDecision.DIFFERENT_PERIOD)
    ]
    cited = {c.domain for c in panel.sources}
    assert "paper2023.example" not in cited
    assert cited <= {"paper2024.example", "paper2025.example"}
    assert all(c.scope_decision in {ScopeDecision.SAME_SCOPE, ScopeDecision.UNCLEAR} for c in panel.sources)


def test_the_debate_country_stands_in_for_a_claim_that_names_no_place() -> None:
    claim = ClaimScope.of("Unemployment was 11% in 2025", AS_OF, country="ES")
    assert claim.places == frozenset({"spain"})
    assert check_scope(claim, "Unemployment in Spain was 11% in 2025.").kept
    assert (
        check_scope(claim, "Unemployment in France was 11% in 2025.").decision
        is ScopeDecision.DIFFERENT_GEOGRAPHY
    )
    named = ClaimScope.of("Unemployment in France was 11% in 2025", AS_OF, country="es")
    assert named.places == frozenset({"france"})  # the claim's own place wins
    unknown = ClaimScope.of("Unemployment was 11% in 2025", AS_OF, country="zz")
    assert not unknown.places  # a code not known here sets nothing aside
