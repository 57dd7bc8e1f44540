"""``icarus worker``: repair schedules, then consume the queue with a few threads until stopped.

The huey consumer installs signal handlers, which only the main thread may do, so a worker is always a
process of its own (``icarus serve`` starts one as a subprocess).

Stopping: SIGTERM is graceful. The worker takes no new job, lets the running ones finish for up to
``ICARUS_WORKER_GRACE_S``, hands any still running back to the queue (due now, for another worker), records
that it stopped and exits. A SIGKILL leaves its leases to run out; the other workers' heartbeats hand those
jobs out again within one lease and one heartbeat.
"""

from __future__ import annotations

import logging
import os
import sys
from datetime import UTC, datetime
from typing import Final

from icarus.debates.jobs import bind_debate_worker
from icarus.jobs.heartbeat import Heartbeat, worker_name
from icarus.jobs.queue import bind_tasks, create_huey, queue_probe
from icarus.jobs.runner import JobRunner, RunnerConfig, settings_services
from icarus.jobs.sweep import DeletionSweep, x_status_source
from icarus.settings import Settings
from icarus.store import Store, WorkerRegistry

__all__ = ["run_worker"]

log = logging.getLogger("icarus.jobs")

QUEUE_POLL_MAX_S: Final = 2.0  # how long an idle worker may wait before it looks at the SQLite queue again
HANDED_BACK: Final = "the worker stopped before this run finished; queued again"


def run_worker(settings: Settings, threads: int) -> None:
    """Run a worker until SIGTERM or SIGINT; then exit the process (it does not return)."""
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
    runner.enqueue, runner.enqueue_first = tasks.enqueue, tasks.enqueue_first
    bind_debate_worker(huey, store, settings)
    heartbeat = Heartbeat(
        runner, WorkerRegistry(store), worker_name(), settings.job_heartbeat_s, queue_probe(huey)
    )
    heartbeat.beat()
    added = runner.repair()
    due = runner.dispatch_due()
    log.info(
        "worker %s: schedule repair: %d recheck(s) added, %d due job(s) queued", heartbeat.name, added, due
    )
    log.info(
        "reputation files: %s; review queue: %s",
        ", ".join(map(str, settings.reputation_files)) or "none (the shipped records only)",
        settings.resolved_review_queue_path,
    )
    consumer = huey.create_consumer(
        workers=max(1, threads),
        worker_type="thread",
        periodic=True,
        max_delay=QUEUE_POLL_MAX_S,
        graceful_signal="TERM",
        shutdown_timeout=settings.worker_grace_s,
    )
    heartbeat.start()
    exit_code = 0
    try:
        consumer.run()
    except Exception:  # logged here: the exit below skips the interpreter's own report
        log.exception("worker %s: the queue consumer failed", heartbeat.name)
        exit_code = 1
    finally:
        heartbeat.stop()
        try:
            handed = runner.hand_back_held(HANDED_BACK)
            if handed:
                log.warning(
                    "worker %s: %d unfinished job(s) handed back to the queue", heartbeat.name, handed
                )
        finally:
            store.close()
            log.info("worker %s stopped", heartbeat.name)
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
            # Worker threads still inside a check (native code: the ONNX runtime's thread pool, the search
            # index) must not be torn down by interpreter finalisation, which aborts the process with
            # "terminate called without an active exception". Their jobs were handed back above.
            os._exit(exit_code)
