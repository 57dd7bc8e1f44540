"""``icarus worker``: run checks, rechecks, retries and the deletion sweep from the queue."""

from __future__ import annotations

from typing import Annotated

import typer

from icarus.settings import Settings

__all__ = ["worker_command"]


def worker_command(
    threads: Annotated[
        int | None,
        typer.Option("--threads", min=1, max=64, help="Worker threads (default ICARUS_WORKER_THREADS)."),
    ] = None,
) -> None:
    """Consume the job queue: repairs recheck schedules at start-up, then runs jobs until stopped."""
    from icarus.jobs.worker import run_worker

    settings = Settings()
    run_worker(settings, threads or settings.worker_threads)
