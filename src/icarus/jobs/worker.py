"""``icarus worker``: repair schedules, then consume the queue with a few threads until stopped.

The huey consumer installs signal handlers, which only the main thread may do, so a worker is always a
process of its own (``icarus serve`` starts one as a subprocess).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from icarus.jobs.queue import bind_tasks, create_huey
from icarus.jobs.runner import JobRunner, RunnerConfig, settings_services
from icarus.jobs.sweep import DeletionSweep, x_status_source
from icarus.settings import Settings
from icarus.store import Store

__all__ = ["run_worker"]

log = logging.getLogger("icarus.jobs")


def run_worker(settings: Settings, threads: int) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    store = Store(settings.resolved_database_url).open()
    huey = create_huey(settings)
    runner = JobRunner(
        store,
        settings_services(settings),
        config=RunnerConfig.from_settings(settings),
        settings=settings,
    )
    sweep = DeletionSweep(runner.service, x_status_source(settings), clock=lambda: datetime.now(UTC))
    tasks = bind_tasks(
        huey,
        run=runner.run,
        dispatch=runner.dispatch_due,
        sweep=sweep.run,
        sweep_minutes=settings.deletion_sweep_minutes,
        prune=runner.prune_events,
    )
    runner.enqueue = tasks.enqueue
    added = runner.repair()
    due = runner.dispatch_due()
    log.info("schedule repair: %d recheck(s) added, %d due job(s) queued", added, due)
    log.info(
        "reputation files: %s; review queue: %s",
        ", ".join(map(str, settings.reputation_files)) or "none (the shipped records only)",
        settings.resolved_review_queue_path,
    )
    consumer = huey.create_consumer(workers=max(1, threads), worker_type="thread", periodic=True)
    try:
        consumer.run()
    finally:
        store.close()
