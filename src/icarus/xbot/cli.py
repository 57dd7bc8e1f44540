"""``icarus x-bot``: poll the bot's mentions once (``--once``) or in a loop, and answer them."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from icarus.reputation.registry import RegistryFileError
from icarus.settings import Settings
from icarus.xbot.api import XBotApiError
from icarus.xbot.bot import PollReport
from icarus.xbot.service import BotNotConfigured, bot_from_settings

__all__ = ["x_bot_command"]


def _fail(message: str) -> None:
    Console(stderr=True).print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def x_bot_command(
    once: Annotated[bool, typer.Option("--once", help="Poll once, answer what is new, and exit.")] = False,
    interval: Annotated[
        float | None,
        typer.Option("--interval", help="Seconds between polls (default ICARUS_X_BOT_INTERVAL_S).", min=1.0),
    ] = None,
    since_id: Annotated[
        str | None,
        typer.Option(
            "--since-id",
            help="On a first run (nothing stored yet), answer only mentions newer than this post id.",
        ),
    ] = None,
    max_polls: Annotated[
        int | None, typer.Option("--max-polls", help="Stop after this many polls.", min=1)
    ] = None,
) -> None:
    """Answer X mentions: check each tagging reply's direct parent and reply with the conclusion and a
    report link. A first run with no stored position and no --since-id answers nothing and starts after
    the newest mention, so old mentions are never answered in bulk."""
    if since_id is not None and not since_id.isdigit():
        _fail(f"--since-id must be a numeric X post id, not {since_id!r}")
    from icarus.pipeline.services import check_reputation_files  # the check's stack, only when the bot runs

    settings = Settings()
    console = Console(stderr=True)
    try:
        check_reputation_files(settings)
        bot = bot_from_settings(settings)
    except BotNotConfigured as exc:
        _fail(str(exc))
        return
    except RegistryFileError as exc:
        _fail(f"ICARUS_REPUTATION_FILES: {exc}")
        return
    first_run = bot.state.since_id() is None
    if first_run and since_id is not None:
        bot.state.advance(since_id)
    elif first_run:
        try:
            bot.start_after_newest()
        except XBotApiError as exc:
            _fail(str(exc))
        console.print(f"first run: starting after mention {bot.state.since_id() or '(none yet)'}")

    def show(report: PollReport) -> None:
        console.print(
            f"read {report.read}, replied {report.replied}, ignored {report.ignored}, failed {report.failed}",
            highlight=False,
        )
        for note in report.notes:
            console.print(f"  {escape(note)}", highlight=False)

    try:
        bot.run(interval or settings.x_bot_interval_s, max_polls=1 if once else max_polls, on_poll=show)
    except KeyboardInterrupt:
        console.print("stopped")
    finally:
        bot.api.close()
        bot.state.close()
