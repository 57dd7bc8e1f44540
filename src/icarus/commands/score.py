"""``icarus score``: score a prepared evidence ledger with no network."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from icarus.commands.errors import err, fail
from icarus.ledger import LedgerError, load_ledger
from icarus.reports.render import render_console, render_markdown
from icarus.scoring.icarus.config import DEFAULT_POLICY, UnknownPolicyError, load_policy
from icarus.scoring.icarus.engine import score_ledger


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
        fail("choose one of --json, --md and --html")
    if review_queue is not None and model is not None and not model.startswith("icarus@"):
        fail("--review-queue takes the review requests of the icarus@ policies; other models make none")
    if model is not None and policy != DEFAULT_POLICY and model != policy:
        fail("give one of --model and --policy")
    if model is not None and not model.startswith("icarus@"):
        if as_html:
            fail("--html shows results of the icarus@ policies; use --json or --md with other models")
        from icarus.commands.models import score_with_model

        score_with_model(ledger, model, as_json, as_md)
        return
    try:
        config = load_policy(model or policy)
        evidence_ledger = load_ledger(ledger)
        result = score_ledger(evidence_ledger, config)
    except (LedgerError, UnknownPolicyError) as exc:
        fail(str(exc))
    if review_queue is not None:
        from icarus.reputation.review import enqueue_from_result

        try:
            queued = enqueue_from_result(result, evidence_ledger, review_queue)
        except OSError as exc:
            fail(f"cannot write the review queue {review_queue}: {exc.strerror or exc}")
        err.print(f"{len(queued)} estimated reputation(s) queued for review in {escape(str(review_queue))}")
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    elif as_md:
        sys.stdout.write(render_markdown(result))
    elif as_html:
        # imported here: the page templates are only needed for --html
        from icarus.settings import Settings
        from icarus.web.model import Links, ReportPage
        from icarus.web.report import render_report_page

        page = ReportPage(result, evidence_ledger.model_dump(mode="json"))
        sys.stdout.write(render_report_page(page, Links.under(Settings().public_url)))
    else:
        render_console(result, Console())
