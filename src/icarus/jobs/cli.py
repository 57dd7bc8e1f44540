"""``icarus worker``: run checks, rechecks, retries and the deletion sweep from the queue."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

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
    from icarus.pipeline.services import check_reputation_files
    from icarus.reputation.registry import RegistryFileError

    settings = Settings()
    try:
        check_reputation_files(settings)
    except RegistryFileError as exc:
        Console(stderr=True).print(
            f"[red]error:[/red] ICARUS_REPUTATION_FILES: {escape(str(exc))}", soft_wrap=True, highlight=False
        )
        raise typer.Exit(2) from None
    run_worker(settings, threads or settings.worker_threads)
