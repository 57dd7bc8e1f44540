"""The `icarus check` command's work: capture the input, run the check with progress, print the report."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from icarus.capture import CaptureError, capture_text, capture_x_mention
from icarus.fetching import FetchError, SafeFetcher, SnapshotStore
from icarus.judges import Judge
from icarus.ledger import Subject
from icarus.pipeline.addresses import foreign_scheme, web_address
from icarus.pipeline.check import CheckOutput, CheckServices, run_check
from icarus.pipeline.services import build_services, capture_web_page
from icarus.reports.render import render_console, render_markdown
from icarus.reputation.registry import RegistryFileError
from icarus.reputation.review import enqueue_from_result
from icarus.settings import Settings

MAX_POST_BYTES = 5 * 1024 * 1024


def _fail(message: str) -> None:
    Console(stderr=True).print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def _x_payload(post: Path | None, post_id: str | None, settings: Settings) -> dict[str, Any]:
    if post_id is not None:
        if settings.x_bearer_token is None:
            _fail("--post-id needs an X API bearer token in ICARUS_X_BEARER_TOKEN")
        assert settings.x_bearer_token is not None
        from icarus.capture.x_api import XApiClient  # imported here: only --post-id reads the X API

        with XApiClient(settings.x_bearer_token) as client:
            return client.mention_payload(post_id)
    assert post is not None
    try:
        if post.stat().st_size > MAX_POST_BYTES:
            _fail(f"{post} is larger than {MAX_POST_BYTES} bytes")
        payload: object = json.loads(post.read_text(encoding="utf-8"))
    except RecursionError:
        _fail(f"cannot read X payload {post}: it nests too deeply to be a payload")
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, not JSON, or a number too long to read
        _fail(f"cannot read X payload {post}: {exc}")
    if not isinstance(payload, dict):
        _fail(f"{post} is not an X API v2 payload (a JSON object)")
        raise AssertionError  # unreachable: _fail exits
    return payload


def _subject(
    text: str | None,
    post: Path | None,
    post_id: str | None,
    settings: Settings,
    now: datetime,
    snapshots: SnapshotStore,
) -> Subject:
    if post is not None or post_id is not None:
        outcome = capture_x_mention(_x_payload(post, post_id, settings), now)
        if outcome.subject is None:
            refusal = outcome.refusal
            reason = f"{refusal.reason.value}: {refusal.detail}" if refusal else "unknown"
            _fail(f"no subject to check: {reason}")
        assert outcome.subject is not None
        return outcome.subject
    assert text is not None
    address = web_address(text.strip())
    if address is not None:
        with SafeFetcher() as fetcher:
            subject, _ref = capture_web_page(address, fetcher, snapshots)
        return subject
    scheme = foreign_scheme(text)
    if scheme is not None:
        _fail(
            f"{scheme}:// addresses cannot be checked: give an http:// or https:// address, or the text itself"
        )
    return capture_text(text, now)


def _report_page(outcome: CheckOutput, services: CheckServices, public_url: str) -> str:
    """The service's report page for this check (graph, evidence by origin, timeline, hashes), its links
    made absolute under ``public_url`` so that they reach the service from a saved file."""
    # imported here: the page templates are only needed for --html
    from icarus.web.model import Links, ReportPage
    from icarus.web.report import render_report_page
    from icarus.web.store_source import store_report_loader

    links = Links.under(public_url)
    if outcome.version is not None and services.store is not None:
        stored = store_report_loader(services.store)(outcome.version.check_id, outcome.version.version)
        if isinstance(stored, ReportPage):
            return render_report_page(stored, links)
    # nothing recorded: the page of this run alone, without a timeline
    return render_report_page(ReportPage(outcome.result, outcome.ledger.model_dump(mode="json")), links)


def run_check_command(
    text: str | None,
    post: Path | None,
    post_id: str | None,
    policy: str | None,
    reputation: list[Path],
    output: str,
    *,
    settings: Settings | None = None,
    judge: Callable[[], Judge] | None = None,
) -> None:
    """``judge``: gives the judge when the command started building it early (``judges.background``)."""
    settings = settings if settings is not None else Settings()
    now = datetime.now(UTC).replace(microsecond=0)
    console = Console(stderr=True)
    try:
        services = build_services(settings, policy_ref=policy, reputation_files=reputation, judge=judge)
        subject = _subject(text, post, post_id, settings, now, services.snapshots)
        with console.status("checking") as status:
            outcome = run_check(subject, services, now, progress=lambda m: status.update(escape(m)))
    except (CaptureError, FetchError, RegistryFileError) as exc:
        _fail(str(exc))
        return
    result = outcome.result
    queue = settings.resolved_review_queue_path
    try:
        queued = enqueue_from_result(result, outcome.ledger, queue, now)
    except OSError as exc:  # the check stands and is printed; the reviewer's queue did not get it
        console.print(
            f"[yellow]warning:[/yellow] review queue {escape(str(queue))} not written: "
            f"{escape(exc.strerror or str(exc))}",
            soft_wrap=True,
            highlight=False,
        )
        queued = []
    if queued:
        console.print(
            f"{len(queued)} estimated reputation(s) queued for review (icarus registry review list)"
        )
    if outcome.version is not None:
        console.print(f"recorded as {outcome.version.url_path}", highlight=False)
    for note in outcome.link_notes:
        console.print(escape(note), soft_wrap=True, highlight=False)
    skipped = {n.provider: n.detail for n in outcome.provider_notes if n.status != "ok"}
    for provider, detail in sorted(skipped.items()):
        console.print(f"provider {provider} not run: {escape(detail)}", highlight=False)
    if output == "json":
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    elif output == "md":
        sys.stdout.write(render_markdown(result, outcome.ledger))
    elif output == "html":
        sys.stdout.write(_report_page(outcome, services, settings.public_url))
    else:
        render_console(result, Console())
