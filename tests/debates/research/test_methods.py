"""Each research method against the sample corpus: a distinct strategy, each with a correct panel."""

from __future__ import annotations

from pathlib import Path

import pytest

from icarus.debates.model import Panel, ResearchMode, Verdict
from icarus.debates.research import ClaimToResearch, ResearchServices, run_method
from icarus.research import PlannedQuery, ProviderResult
from tests.debates.research.corpora import NOW, sample_services

TRUE_CLAIM = "Container traffic at Halden harbor fell 12% in October"
WRONG_FIGURE = "Container traffic at Halden harbor fell 20% in October"


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> ResearchServices:
    return sample_services(tmp_path_factory.mktemp("sample"))


@pytest.fixture(scope="module")
def wrong_figure_panels(services: ResearchServices) -> dict[ResearchMode, Panel]:
    claim = ClaimToResearch(WRONG_FIGURE, NOW)
    modes = (ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE, ResearchMode.DECOMPOSE_INVEST)
    return {mode: run_method(mode, claim, services) for mode in modes}


def test_two_step_finds_the_claim_true_with_the_official_statistics_as_primary(
    services: ResearchServices,
) -> None:
    panel = run_method(ResearchMode.TWO_STEP, ClaimToResearch(TRUE_CLAIM, NOW), services)
    assert panel.research_mode is ResearchMode.TWO_STEP
    assert panel.verdict is Verdict.TRUE
    assert 0.5 < panel.confidence <= 1.0
    assert panel.research_delay_reason is None
    assert not panel.sub_questions  # two_step does not decompose
    official = next(c for c in panel.sources if c.domain == "haldenport.example")
    assert official.is_primary and official.primary_kind is not None
    assert panel.sources[0].trust >= panel.sources[-1].trust  # most trusted first
    assert panel.trace["label"] == "supported" and panel.trace["policy"]


def test_decompose_splits_the_figure_from_the_fact_and_finds_it_partially_true(
    wrong_figure_panels: dict[ResearchMode, Panel],
) -> None:
    panel = wrong_figure_panels[ResearchMode.DECOMPOSE]
    assert panel.verdict is Verdict.PARTIALLY_TRUE
    questions = {sub.question: sub.verdict for sub in panel.sub_questions}
    assert questions["Container traffic at Halden harbor fell in October"] is Verdict.TRUE
    assert questions[WRONG_FIGURE] in {Verdict.FALSE, Verdict.MISLEADING}
    assert panel.corroboration is not None and panel.corroboration.element == "20%"
    assert panel.corroboration.independent_confirmations == 0
    assert {entry.value for entry in panel.corroboration.contradicting} >= {"12%"}


def test_two_step_judges_the_wrong_figure_as_a_whole_and_differs_from_decompose(
    wrong_figure_panels: dict[ResearchMode, Panel],
) -> None:
    two_step = wrong_figure_panels[ResearchMode.TWO_STEP]
    assert two_step.verdict in {Verdict.FALSE, Verdict.MISLEADING}
    assert two_step.verdict is not wrong_figure_panels[ResearchMode.DECOMPOSE].verdict


def test_decompose_invest_follows_up_each_sub_question_one_level_deeper(
    wrong_figure_panels: dict[ResearchMode, Panel],
) -> None:
    panel = wrong_figure_panels[ResearchMode.DECOMPOSE_INVEST]
    assert panel.research_mode is ResearchMode.DECOMPOSE_INVEST
    assert panel.verdict is Verdict.PARTIALLY_TRUE
    follow_ups = [sub.follow_up for sub in panel.sub_questions]
    assert all(follow_ups)
    assert any("Halden Port Authority" in (text or "") for text in follow_ups)  # the credited originator
    assert any("20%" in (text or "") for text in follow_ups)  # the figure with its period
    assert panel.trace["spent"]["depth"] == 1
    rounds = {search["round"] for part in panel.trace["parts"] for search in part["searches"]}
    assert rounds == {0, 1}
    decompose = wrong_figure_panels[ResearchMode.DECOMPOSE]
    assert decompose.trace["spent"]["searches"] < panel.trace["spent"]["searches"]


def test_local_reads_the_local_corpus_only(tmp_path: Path) -> None:
    class Watched:
        name = "watched_web"
        calls = 0

        def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
            Watched.calls += 1
            raise AssertionError("local must not search the web")

    services = sample_services(tmp_path, web=[Watched()])
    panel = run_method(ResearchMode.LOCAL, ClaimToResearch(TRUE_CLAIM, NOW), services)
    assert panel.research_mode is ResearchMode.LOCAL
    assert panel.verdict is Verdict.TRUE
    assert Watched.calls == 0
    assert panel.trace["providers"] == ["local_corpus"]
    assert {search["provider"] for search in panel.trace["searches"]} == {"local_corpus"}


def test_a_claim_the_corpus_knows_nothing_about_is_unverifiable(services: ResearchServices) -> None:
    claim = ClaimToResearch("The Ruritanian lottery paid out 4 billion crowns to a single winner", NOW)
    panel = run_method(ResearchMode.TWO_STEP, claim, services)
    assert panel.verdict is Verdict.UNVERIFIABLE
    assert panel.research_delay_reason is None
    assert not panel.sources
