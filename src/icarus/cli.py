"""The ``icarus`` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from icarus.api.cli import serve_command, token_app
from icarus.evaluation.cli import eval_command
from icarus.evidenceverify.cli import evidence_verify_command
from icarus.jobs.cli import worker_command
from icarus.judges.cli import judge_app
from icarus.judges.registry import JudgeConfigError
from icarus.ledger import LedgerError, ledger_json_schema, load_ledger
from icarus.lvf.cli import lvf_app
from icarus.models_cli import compare_command, methodology_for, models_command, score_with_model
from icarus.reports.render import render_console, render_markdown
from icarus.reports.replay_cli import replay_command
from icarus.reputation.cli import registry_app
from icarus.research.cli import corpus_app
from icarus.scoring.icarus.config import DEFAULT_POLICY, UnknownPolicyError, load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.settings import Settings
from icarus.xbot.cli import x_bot_command

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="Icarus: evidence review for factual claims."
)
policy_app = typer.Typer(no_args_is_help=True, help="Published scoring policies.")
schema_app = typer.Typer(no_args_is_help=True, help="JSON Schemas of Icarus documents.")
app.add_typer(policy_app, name="policy")
app.add_typer(schema_app, name="schema")
app.add_typer(corpus_app, name="corpus")
app.add_typer(registry_app, name="registry")
app.add_typer(lvf_app, name="lvf")
app.command("evidence-verify")(evidence_verify_command)
app.add_typer(judge_app, name="judge")
app.command("replay")(replay_command)
app.command("serve")(serve_command)
app.command("worker")(worker_command)
app.add_typer(token_app, name="token")
app.command("x-bot")(x_bot_command)
app.command("models")(models_command)
app.command("compare")(compare_command)
app.command("eval")(eval_command)

err = Console(stderr=True)


def _fail(message: str, code: int = 2) -> None:
    # soft_wrap keeps a path or message on one line, so it can be read and grepped as written
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)


@app.command()
def score(
    ledger: Annotated[Path, typer.Argument(help="Evidence ledger JSON file.")],
    policy: Annotated[str, typer.Option(help="Policy name@version.")] = DEFAULT_POLICY,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the full result with its trace as JSON.")
    ] = False,
    as_md: Annotated[bool, typer.Option("--md", help="Print the result as Markdown.")] = False,
    as_html: Annotated[
        bool, typer.Option("--html", help="Print the result as the report page (one HTML file).")
    ] = False,
    model: Annotated[
        str | None, typer.Option("--model", help="Any registered model name@version (see `icarus models`).")
    ] = None,
    review_queue: Annotated[
        Path | None,
        typer.Option(
            "--review-queue",
            help="Also queue the result's H4 review requests in this queue file (off by default).",
        ),
    ] = None,
) -> None:
    """Score a prepared evidence ledger. Reads no network and no clock (--review-queue stamps its items)."""
    if sum((as_json, as_md, as_html)) > 1:
        _fail("choose one of --json, --md and --html")
    if review_queue is not None and model is not None and not model.startswith("icarus@"):
        _fail("--review-queue takes the review requests of the icarus@ policies; other models make none")
    if model is not None and policy != DEFAULT_POLICY and model != policy:
        _fail("give one of --model and --policy")
    if model is not None and not model.startswith("icarus@"):
        if as_html:
            _fail("--html shows results of the icarus@ policies; use --json or --md with other models")
        score_with_model(ledger, model, as_json, as_md)
        return
    try:
        config = load_policy(model or policy)
        evidence_ledger = load_ledger(ledger)
        result = score_ledger(evidence_ledger, config)
    except (LedgerError, UnknownPolicyError) as exc:
        _fail(str(exc))
        return
    if review_queue is not None:
        from icarus.reputation.review import enqueue_from_result

        try:
            queued = enqueue_from_result(result, evidence_ledger, review_queue)
        except OSError as exc:
            _fail(f"cannot write the review queue {review_queue}: {exc.strerror or exc}")
            return
        err.print(f"{len(queued)} estimated reputation(s) queued for review in {escape(str(review_queue))}")
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    elif as_md:
        sys.stdout.write(render_markdown(result))
    elif as_html:
        # imported here: the page templates are only needed for --html
        from icarus.web.model import Links, ReportPage
        from icarus.web.report import render_report_page

        page = ReportPage(result, evidence_ledger.model_dump(mode="json"))
        sys.stdout.write(render_report_page(page, Links.under(Settings().public_url)))
    else:
        render_console(result, Console())


@app.command()
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
) -> None:
    """Check a text, a URL or a tagged X post end to end on the configured providers."""
    from icarus.pipeline.cli import run_check_command

    if sum((as_json, as_md, as_html)) > 1:
        _fail("choose one of --json, --md and --html")
    if sum(given is not None for given in (text, post, post_id)) != 1:
        _fail("give one of: a TEXT or URL argument, --post FILE.json, --post-id ID")
    output = "json" if as_json else "md" if as_md else "html" if as_html else "console"
    try:
        run_check_command(text, post, post_id, policy, reputation or [], output)
    except (UnknownPolicyError, JudgeConfigError) as exc:
        _fail(str(exc))


@policy_app.command("show")
def policy_show(
    ref: Annotated[str, typer.Argument(help="Model name@version, e.g. icarus@1.0 or ledger-default@0.1.0.")],
) -> None:
    """Print a model's methodology page as Markdown, rendered from its config (any registered model)."""
    if not ref.startswith("icarus@"):
        sys.stdout.write(methodology_for(ref))
        return
    try:
        config = load_policy(ref)
    except UnknownPolicyError as exc:
        _fail(str(exc))
        return
    from icarus.reputation.methodology import published_methodology

    sys.stdout.write(published_methodology(config))


@policy_app.command("list")
def policy_list() -> None:
    """List the shipped policy versions with their config hashes."""
    from icarus.scoring.icarus.config import POLICY_FILES

    for ref in sorted(POLICY_FILES):
        sys.stdout.write(f"{ref}\t{load_policy(ref).config_hash}\n")


@schema_app.command("ledger")
def schema_ledger() -> None:
    """Print the evidence ledger's JSON Schema."""
    sys.stdout.write(json.dumps(ledger_json_schema(), indent=2) + "\n")


if __name__ == "__main__":  # pragma: no cover
    app()
