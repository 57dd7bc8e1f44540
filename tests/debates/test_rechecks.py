"""Which methods one ``POST /v1/claim`` runs: a named method runs again, a list fills in what is missing,
and a re-check is a new panel that the queue's worker researches."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from huey import Huey

from icarus.debates.jobs import bind_debate_tasks
from icarus.debates.model import DebateSettings, ResearchMode, Verdict
from icarus.debates.rechecks import plan_methods
from icarus.jobs.queue import create_huey
from icarus.settings import Settings
from icarus.store import Store
from tests.debates.store_fixtures import OPERATOR, FakeClock, ScriptedResearch, make_service, segment
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

TWO_STEP, DECOMPOSE, AGENTIC = ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE, ResearchMode.AGENTIC
CONFIGURED = [TWO_STEP, DECOMPOSE]


@dataclass(frozen=True)
class Had:
    research_mode: ResearchMode
    strong_language: bool = False


def test_a_named_method_runs_again_even_where_the_claim_has_it() -> None:
    plan = plan_methods(
        [TWO_STEP], recheck=True, strong_language=False, configured=CONFIGURED, existing=[Had(TWO_STEP)]
    )
    assert (plan.to_run, plan.already_researched) == ([TWO_STEP], [])


def test_a_list_runs_only_the_methods_the_claim_lacks() -> None:
    plan = plan_methods(
        [TWO_STEP, DECOMPOSE, TWO_STEP],
        recheck=False,
        strong_language=False,
        configured=CONFIGURED,
        existing=[Had(TWO_STEP)],
    )
    assert (plan.considered, plan.to_run, plan.already_researched) == (
        [TWO_STEP, DECOMPOSE],
        [DECOMPOSE],
        [TWO_STEP],
    )


def test_naming_nothing_takes_the_debates_missing_methods_and_an_empty_list_runs_nothing() -> None:
    had = [Had(TWO_STEP)]
    default = plan_methods(None, recheck=False, strong_language=False, configured=CONFIGURED, existing=had)
    assert (default.to_run, default.already_researched) == ([DECOMPOSE], [TWO_STEP])
    nothing = plan_methods([], recheck=False, strong_language=False, configured=CONFIGURED, existing=had)
    assert (nothing.considered, nothing.to_run) == ([], [])
    # recheck applies to named methods only: with none named it reruns nothing
    unnamed = plan_methods(None, recheck=True, strong_language=False, configured=CONFIGURED, existing=had)
    assert unnamed.to_run == [DECOMPOSE]


def test_strong_language_reruns_the_claims_own_methods() -> None:
    had = [Had(TWO_STEP), Had(AGENTIC), Had(TWO_STEP, strong_language=True)]
    plan = plan_methods(None, recheck=False, strong_language=True, configured=CONFIGURED, existing=had)
    assert plan.to_run == [TWO_STEP, AGENTIC]


@pytest.fixture
def huey(tmp_path: Path) -> Huey:
    return create_huey(Settings(data_dir=tmp_path / "queue"), immediate=True)


def test_a_recheck_goes_through_the_queue_and_keeps_the_earlier_panel(
    store: Store, clock: FakeClock, huey: Huey
) -> None:
    research = ScriptedResearch()
    service = make_service(store, clock, research, inline=False)
    service.dispatcher = bind_debate_tasks(huey, service)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    research.default = Verdict.FALSE
    clock.advance(minutes=5)
    submitted = service.submit_claim(OPERATOR, debate.id, claim.text, [TWO_STEP], recheck=True)
    assert submitted.research_modes == [TWO_STEP] and submitted.already_researched == []
    assert [mode for mode, _text, _strong in research.calls] == [TWO_STEP, TWO_STEP]
    results = service.claim_results(OPERATOR, claim.claim_id, debate.id)
    assert [(p.research_mode, p.verdict) for p in results.panels] == [
        (TWO_STEP, Verdict.TRUE),
        (TWO_STEP, Verdict.FALSE),
    ]
    assert results.claim_verdict is not None and results.claim_verdict.verdict is Verdict.FALSE
    # the same list again runs nothing: the claim has a two_step panel
    assert service.submit_claim(OPERATOR, debate.id, claim.text, [TWO_STEP]).panel_ids == []
    assert len(research.calls) == 2
