"""``icarus check``: the whole pipeline on the configured providers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from icarus.commands.collector import collection_paused
from icarus.commands.errors import fail


def check(
    text: Annotated[
        str | None, typer.Argument(help="Text to check, or an http(s) URL to fetch and check.")
    ] = None,
    post: Annotated[
        Path | None, typer.Option("--post", help="X API v2 payload of the tagging reply.")
    ] = None,
    post_id: Annotated[
        str | None, typer.Option("--post-id", help="Id or URL of the tagging reply, fetched from the X API.")
    ] = None,
    policy: Annotated[str | None, typer.Option(help="Policy name@version (default from settings).")] = None,
    reputation: Annotated[
        list[Path] | None, typer.Option("--reputation", help="JSON file of reputation records on file.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    as_md: Annotated[bool, typer.Option("--md", help="Print the result as Markdown.")] = False,
    as_html: Annotated[bool, typer.Option("--html", help="Print the result as an HTML page.")] = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="Run no network look-up (RDAP, Crossref, drift re-fetch, archive); each is reported as "
            "not run. The same as ICARUS_OFFLINE=1 for this check.",
        ),
    ] = False,
) -> None:
    """Check a text, a URL or a tagged X post end to end on the configured providers."""
    if sum((as_json, as_md, as_html)) > 1:
        fail("choose one of --json, --md and --html")
    if sum(given is not None for given in (text, post, post_id)) != 1:
        fail("give one of: a TEXT or URL argument, --post FILE.json, --post-id ID")
    output = "json" if as_json else "md" if as_md else "html" if as_html else "console"
    with collection_paused():  # for the pipeline's imports and the run (commands.collector)
        # imported once the arguments are known good: the pipeline loads the judges and the providers
        from icarus.judges.background import JudgeInBackground
        from icarus.judges.registry import JudgeConfigError
        from icarus.settings import Settings

        settings = Settings()
        if offline:
            settings = settings.model_copy(update={"offline": True})
        judge = JudgeInBackground(settings)  # built while the rest of the pipeline is imported

        from icarus.pipeline.cli import run_check_command
        from icarus.scoring.icarus.config import UnknownPolicyError

        try:
            run_check_command(
                text, post, post_id, policy, reputation or [], output, settings=settings, judge=judge.result
            )
        except (UnknownPolicyError, JudgeConfigError) as exc:
            fail(str(exc))
