"""The debate tasks on the job queue: research a panel, run a detection, and a periodic dispatcher.

As for checks, the queue carries only ids: the database says what is due (``debate_panels``,
``debates.detection_state``), so a message lost with a killed worker costs nothing. Every minute the
dispatcher hands out again whatever is due: panels whose retry time came, whose worker died (lease run
out) or whose message was lost; detections requested or abandoned; deferred detections whose voices are
now all named; live segments that were stored but never read by detection.

Producers (the API) bind the tasks without a service: they only enqueue. ``icarus worker`` binds them
with one (``bind_debate_worker``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from huey import Huey, crontab

from icarus.debates.service import DebatePipeline, DebateService, ServiceConfig
from icarus.settings import Settings
from icarus.store.repository import Store

__all__ = ["DebateTasks", "bind_debate_tasks", "bind_debate_worker", "debate_service"]

log = logging.getLogger("icarus.debates")


@dataclass(frozen=True)
class DebateTasks:
    """The bound tasks; also the service's ``Dispatcher`` (it enqueues)."""

    huey: Huey
    research_task: Any
    detect_task: Any
    dispatch_task: Any

    def research(self, panel_id: int) -> None:
        self.research_task(panel_id)

    def detect(self, debate_id: str) -> None:
        self.detect_task(debate_id)


def bind_debate_tasks(huey: Huey, service: DebateService | None = None) -> DebateTasks:
    """Register the debate tasks on ``huey``; with ``service`` this process also runs them."""

    def runner() -> DebateService:
        if service is None:
            raise RuntimeError("this process only enqueues; run `icarus worker` to research debate panels")
        return service

    def research_panel(panel_id: int) -> None:
        log.info("debate panel %d: %s", panel_id, runner().research_panel(panel_id))

    def run_detection(debate_id: str) -> None:
        log.info("debate %s detection: %s", debate_id, runner().detect(debate_id))

    def dispatch_due() -> None:
        handed = runner().dispatch_due()
        if handed:
            log.info("debates: %d due item(s) handed out", handed)

    task: Any = huey.task(name="icarus.debate_research")
    detect: Any = huey.task(name="icarus.debate_detect")
    every_minute: Any = huey.periodic_task(crontab(minute="*"), name="icarus.debate_dispatch_due")
    return DebateTasks(huey, task(research_panel), detect(run_detection), every_minute(dispatch_due))


def debate_service(
    store: Store,
    settings: Settings,
    tasks: DebateTasks | None = None,
    *,
    pipeline: DebatePipeline | None = None,
) -> DebateService:
    """The service as ``settings`` configure it, handing work to ``tasks`` (the queue) when given."""
    return DebateService(
        store,
        pipeline or DebatePipeline.from_settings(settings),
        config=ServiceConfig.from_settings(settings),
        dispatcher=tasks,
    )


def bind_debate_worker(huey: Huey, store: Store, settings: Settings) -> DebateService:
    """What ``icarus worker`` calls: bind the debate tasks to a service that runs them, and hand out what
    is already due. Returns the service."""
    service = debate_service(store, settings)
    tasks = bind_debate_tasks(huey, service)
    service.dispatcher = tasks  # follow-ups (escalations, retries) go through the queue too
    handed = service.dispatch_due()
    log.info("debates: %d due item(s) handed out at start-up", handed)
    return service
