"""The debate tasks on the queue: ids in, the database deciding what runs; the dispatcher finds lost work."""

from __future__ import annotations

from pathlib import Path

import pytest
from huey import Huey

from icarus.debates.jobs import DebateTasks, bind_debate_tasks, debate_service
from icarus.debates.model import DebateSettings, ResearchMode
from icarus.debates.service import DebatePipeline
from icarus.jobs.queue import create_huey
from icarus.settings import Settings
from icarus.store import Store
from tests.debates.store_fixtures import (
    OPERATOR,
    FakeClock,
    ScriptedResearch,
    make_service,
    segment,
    sentence_claims,
)
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

TRANSCRIPT = b"SPEAKER_1: Unemployment fell to 3.9 percent in 2023.\nSPEAKER_2: Crime fell 10 percent.\n"


@pytest.fixture
def huey(tmp_path: Path) -> Huey:
    return create_huey(Settings(data_dir=tmp_path / "queue"), immediate=True)


def test_panels_and_detections_go_through_the_queue(store: Store, clock: FakeClock, huey: Huey) -> None:
    research = ScriptedResearch()
    service = make_service(store, clock, research, inline=False)
    service.dispatcher = bind_debate_tasks(huey, service)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[ResearchMode.TWO_STEP]))
    service.ingest_transcript(OPERATOR, debate.id, TRANSCRIPT, "text")
    claims = service.list_claims(OPERATOR, debate.id)
    assert len(claims) == 2 and all(c.claim_verdict is not None for c in claims)
    assert len(research.calls) == 2


def test_a_producer_only_enqueues_and_a_worker_picks_the_work_up(
    store: Store, clock: FakeClock, huey: Huey
) -> None:
    sent: list[tuple[str, object]] = []

    class Recorder:
        def research(self, panel_id: int) -> None:
            sent.append(("research", panel_id))

        def detect(self, debate_id: str) -> None:
            sent.append(("detect", debate_id))

    api = make_service(store, clock, inline=False)
    api.dispatcher = Recorder()
    debate = api.create_debate(OPERATOR, DebateSettings(research_modes=[ResearchMode.TWO_STEP]))
    api.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = api.list_claims(OPERATOR, debate.id)
    assert sent == [("research", api.claim_results(OPERATOR, claim.claim_id).panels[0].panel_id)]
    assert api.list_claims(OPERATOR, debate.id)[0].claim_verdict is None  # the message alone did nothing

    # The message was lost: a minute on, the worker's periodic dispatcher finds the due panel in the database.
    worker = make_service(store, clock, inline=False)
    tasks: DebateTasks = bind_debate_tasks(huey, worker)
    worker.dispatcher = tasks
    tasks.dispatch_task()
    assert api.list_claims(OPERATOR, debate.id)[0].claim_verdict is None  # its message may still be queued
    clock.advance(minutes=1)
    tasks.dispatch_task()
    assert api.list_claims(OPERATOR, debate.id)[0].claim_verdict is not None


def test_a_process_bound_without_a_service_refuses_to_run_tasks(huey: Huey) -> None:
    tasks = bind_debate_tasks(huey)
    with pytest.raises(RuntimeError, match="only enqueues"):
        tasks.research_task.call_local(1)


def test_live_segments_stored_but_never_detected_are_detected_by_the_dispatcher(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    from icarus.debates import repository as repo

    # The process died between storing the batch and detecting it.
    store.transaction(
        lambda s: repo.add_segments(s, debate.id, [segment("s1", "Taxes rose 5 percent.")], clock.now)
    )
    assert service.dispatch_due() == 0  # within the grace minute a live request may still be detecting
    clock.advance(minutes=2)
    assert service.dispatch_due() == 1
    assert [c.text for c in service.list_claims(OPERATOR, debate.id)] == ["Taxes rose 5 percent."]


def test_the_service_from_settings_uses_the_debate_budgets(store: Store, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, debate_max_pages=3, strong_language_auto_retry=True)
    service = debate_service(
        store, settings, pipeline=DebatePipeline(detect=sentence_claims, research=ScriptedResearch())
    )
    assert service.config.strong_language_auto_retry is True
    from icarus.debates.research.base import default_budget
    from icarus.debates.service import debate_budget

    budget = debate_budget(settings, default_budget(ResearchMode.AGENTIC))
    assert budget.max_pages == 3 and budget.max_searches == default_budget(ResearchMode.AGENTIC).max_searches
