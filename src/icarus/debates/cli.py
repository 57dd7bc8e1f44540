"""``icarus debate``: create a debate, feed it a transcript, name its speakers, read its claims and answers.

The commands act as the local operator (an administrator of the database ``ICARUS_DATABASE_URL`` names).
Research runs in this process unless ``--no-wait`` leaves it to ``icarus worker``. Output is JSON, so it
can be piped; ``claims`` prints a table unless ``--json``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from icarus.debates.access import Caller
from icarus.debates.dating import parse_held_at
from icarus.debates.errors import DebateError
from icarus.debates.model import DebateSettings, ResearchMode
from icarus.debates.service import DebatePipeline, DebateService, ServiceConfig
from icarus.settings import Settings
from icarus.store import Store

__all__ = ["app"]

WATCH_STATE_FILE: Final = "debate-watch.json"
DEFAULT_WATCH_INTERVAL_S: Final = 10.0

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Live debates: create one, feed it a transcript, name its speakers, read its claims and answers.",
)
OPERATOR: Final = Caller.operator()

WaitOption = Annotated[
    bool,
    typer.Option(
        "--wait/--no-wait", help="Run detection and research here now, or leave them to `icarus worker`."
    ),
]


@contextmanager
def _service(wait: bool = True) -> Iterator[DebateService]:
    settings = Settings()
    store = Store(settings.resolved_database_url).open()
    try:
        service = DebateService(
            store,
            DebatePipeline.from_settings(settings),
            config=ServiceConfig.from_settings(settings),
            inline=wait,
        )
        yield service
    except DebateError as exc:
        Console(stderr=True).print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        raise typer.Exit(1) from None
    finally:
        store.close()


def _print(value: Any) -> None:
    sys.stdout.write(json.dumps(_plain(value), indent=2, sort_keys=True, default=str) + "\n")


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _modes(values: list[str] | None, none: bool) -> list[ResearchMode] | None:
    if none:
        return []
    if not values:
        return None
    try:
        return [ResearchMode(v.strip()) for value in values for v in value.split(",") if v.strip()]
    except ValueError as exc:
        known = ", ".join(m.value for m in ResearchMode)
        raise typer.BadParameter(f"{exc}; the methods are {known}") from None


@app.command("create")
def create_command(
    title: Annotated[str, typer.Option("--title", help="A title for the debate.")] = "",
    research_mode: Annotated[
        list[str] | None,
        typer.Option("--research-mode", "-m", help="A research method (repeat, or comma-separated)."),
    ] = None,
    no_research: Annotated[
        bool, typer.Option("--no-research", help="Detect and persist claims only; research nothing.")
    ] = False,
    speaker_gate: Annotated[
        bool, typer.Option("--speaker-gate", help="Hold detection until every speaker is named.")
    ] = False,
    escalate: Annotated[
        bool, typer.Option("--escalate", help="Escalate unsettled claims up the ladder.")
    ] = False,
    escalate_max_steps: Annotated[
        int, typer.Option("--escalate-max-steps", min=0, max=5, help="Rungs escalation may climb.")
    ] = 2,
    held_at: Annotated[
        str | None,
        typer.Option(
            "--held-at",
            help="When the debate took place: 2020-10-22, or a time with its offset, 2020-10-22T21:00:00Z (default: now).",
        ),
    ] = None,
) -> None:
    """Create a debate and print it (its id first of all)."""
    modes = _modes(research_mode, no_research)
    fields: dict[str, Any] = {
        "speaker_gate_enabled": speaker_gate,
        "escalate_enabled": escalate,
        "escalate_max_steps": escalate_max_steps,
    }
    if modes is not None:
        fields["research_modes"] = modes
    with _service() as service:
        held = parse_held_at(held_at) if held_at is not None else None
        _print(service.create_debate(OPERATOR, DebateSettings(**fields), title, held))


@app.command("ingest")
def ingest_command(
    debate_id: Annotated[str, typer.Argument(help="The debate id.")],
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A .txt, .vtt or .srt transcript.")
    ],
    fmt: Annotated[
        str | None, typer.Option("--format", help="text, vtt or srt (default: told from the file).")
    ] = None,
    wait: WaitOption = True,
) -> None:
    """Ingest a transcript file into a debate."""
    from icarus.debates.transcripts import TranscriptError, TranscriptTooLarge

    with _service(wait) as service:
        try:
            result = service.ingest_transcript(OPERATOR, debate_id, file.read_bytes(), fmt)
        except (TranscriptError, TranscriptTooLarge) as exc:
            Console(stderr=True).print(
                f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False
            )
            raise typer.Exit(1) from None
        _print(result)


@app.command("speakers")
def speakers_command(
    debate_id: Annotated[str, typer.Argument(help="The debate id.")],
    names: Annotated[list[str] | None, typer.Argument(help="LABEL=NAME pairs.")] = None,
    wait: WaitOption = True,
) -> None:
    """Name diarization labels (LABEL=NAME ...); with none, show who is heard and who still waits."""
    with _service(wait) as service:
        if not names:
            view = service.get_debate(OPERATOR, debate_id)
            _print(
                {"speakers": view.speakers, "heard": view.speakers_heard, "waiting": view.speakers_waiting}
            )
            return
        mapping = {}
        for pair in names:
            label, sep, name = pair.partition("=")
            if not sep or not label.strip():
                raise typer.BadParameter(f"{pair!r} is not LABEL=NAME")
            mapping[label.strip()] = name
        view = service.set_speaker_map(OPERATOR, debate_id, mapping)
        _print(
            {"speakers": view.speakers, "waiting": view.speakers_waiting, "detection": view.detection_state}
        )


@app.command("detect")
def detect_command(
    debate_id: Annotated[str, typer.Argument(help="The debate id.")],
    skip_speakers: Annotated[
        bool, typer.Option("--skip-speakers", help="Start although some speakers are unnamed.")
    ] = False,
    wait: WaitOption = True,
) -> None:
    """Run the deferred detection of an ingested transcript (refused while a speaker is unnamed)."""
    with _service(wait) as service:
        _print(service.run_detection(OPERATOR, debate_id, skip_speakers=skip_speakers))


@app.command("claims")
def claims_command(
    debate_id: Annotated[str, typer.Argument(help="The debate id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List a debate's claims with their answers."""
    with _service(False) as service:
        claims = service.list_claims(OPERATOR, debate_id)
    if as_json:
        _print(claims)
        return
    table = Table("id", "speaker", "claim", "answer", "basis", "panels")
    for claim in claims:
        verdict = claim.claim_verdict
        table.add_row(
            str(claim.claim_id),
            escape(claim.speaker_name or ""),
            escape(claim.text),
            verdict.verdict.value if verdict else "in progress",
            verdict.basis.value if verdict else "",
            f"{claim.panels_done}/{claim.panels_done + claim.panels_pending}",
        )
    Console().print(table)


@app.command("results")
def results_command(
    claim_id: Annotated[int, typer.Argument(help="The claim id.")],
    debate_id: Annotated[str | None, typer.Option("--debate", help="The claim's debate id.")] = None,
) -> None:
    """Print a claim's answer (null while research is pending) and every research panel."""
    with _service(False) as service:
        results = service.claim_results(OPERATOR, claim_id, debate_id)
    body = _plain(results)
    body["best"] = body["claim_verdict"]
    _print(body)


@app.command("export")
def export_command(
    debate_id: Annotated[str, typer.Argument(help="The debate id.")],
    fmt: Annotated[str, typer.Option("--format", help="csv or json.")] = "json",
) -> None:
    """Print every claim with its speaker and final answer (pending while there is none)."""
    from icarus.debates.exports import ExportFormat, rows_csv

    try:
        chosen = ExportFormat(fmt.lower())
    except ValueError:
        raise typer.BadParameter(f"{fmt!r}: the formats are csv and json") from None
    with _service(False) as service:
        rows = service.export_claims(OPERATOR, debate_id)
    if chosen is ExportFormat.CSV:
        sys.stdout.write(rows_csv(rows))
        return
    _print({"debate_id": debate_id, "claims": [row.as_json() for row in rows]})


@app.command("digest")
def digest_command(
    debate_id: Annotated[str, typer.Argument(help="The debate id.")],
    since: Annotated[
        datetime | None, typer.Option("--since", help="Only answers decided since (ISO time, UTC).")
    ] = None,
) -> None:
    """Print the claims whose final answer is false, misleading or partially true."""
    when = since.replace(tzinfo=UTC) if since is not None and since.tzinfo is None else since
    with _service(False) as service:
        rows = service.alert_digest(OPERATOR, debate_id, when)
    _print({"debate_id": debate_id, "since": when, "alerts": [row.as_json() for row in rows]})


@app.command("rebuild")
def rebuild_command(
    debate_id: Annotated[
        str | None, typer.Argument(help="One debate (default: every debate).", show_default=False)
    ] = None,
) -> None:
    """Build every claim's answer again from its panels (agreements need no model call; an unchanged
    adjudicated answer stays); print how many changed."""
    with _service(False) as service:
        _print({"changed": service.rebuild_verdicts(OPERATOR, debate_id)})


@app.command("run")
def run_command() -> None:
    """Run every detection and panel that is due now, here, and print how many ran."""
    with _service(True) as service:
        _print({"ran": service.run_due()})


@app.command("watch")
def watch_command(
    folder: Annotated[Path, typer.Argument(exists=True, file_okay=False, help="The folder to watch.")],
    once: Annotated[bool, typer.Option("--once", help="Look once and exit.")] = False,
    interval: Annotated[
        float, typer.Option("--interval", min=0.5, help="Seconds between looks.")
    ] = DEFAULT_WATCH_INTERVAL_S,
    wait: WaitOption = True,
) -> None:
    """Turn each new or changed caption file in FOLDER into a debate researched with WATCH_RESEARCH_MODE.

    A file that cannot be read as captions is reported and skipped until it changes; the watch goes on."""
    from icarus.debates.transcripts import TranscriptError, TranscriptTooLarge, parse_transcript
    from icarus.debates.watch import UnknownResearchMode, scan_folder, watch_research_modes

    settings = Settings()
    try:
        modes = watch_research_modes(settings.watch_research_mode)
    except UnknownResearchMode as exc:
        Console(stderr=True).print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        raise typer.Exit(2) from None
    state_path = settings.data_dir / WATCH_STATE_FILE
    key = str(folder.resolve())
    errors = Console(stderr=True, soft_wrap=True, highlight=False)

    def remember(name: str, sha256: str) -> None:
        state = json.loads(state_path.read_text()) if state_path.exists() else {}
        state.setdefault(key, {})[name] = sha256
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        state_path.write_text(json.dumps(state, indent=2, sort_keys=True))

    with _service(wait) as service:
        while True:
            state = json.loads(state_path.read_text()) if state_path.exists() else {}
            scan = scan_folder(folder, state.get(key, {}))
            for rejected in scan.rejected:
                errors.print(f"skipped {escape(rejected.name)}: {escape(rejected.reason)}")
            for caption in scan.ready:
                try:
                    parse_transcript(caption.data, caption.fmt.value)  # no debate for unreadable captions
                except (TranscriptError, TranscriptTooLarge) as exc:
                    errors.print(f"[red]refused[/red] {escape(caption.name)}: {escape(str(exc))}")
                    remember(caption.name, caption.sha256)  # read again only once it changes
                    continue
                debate = service.create_debate(OPERATOR, DebateSettings(research_modes=modes), caption.name)
                result = service.ingest_transcript(OPERATOR, debate.id, caption.data, caption.fmt.value)
                _print({"file": caption.name, "debate_id": debate.id, "segments": result.segments})
                remember(caption.name, caption.sha256)
            if once:
                return
            service.dispatch_due()
            time.sleep(interval)


# --- organisations and plans --------------------------------------------------------------------------------


@app.command("plan-create")
def plan_create_command(
    name: Annotated[str, typer.Argument(help="The plan's name.")],
    research_mode: Annotated[
        list[str] | None,
        typer.Option("--research-mode", "-m", help="A method the plan allows (repeat, or comma-separated)."),
    ] = None,
    claim_quota: Annotated[
        int | None,
        typer.Option("--claim-quota", min=0, help="Claims researched per month (unset: no limit)."),
    ] = None,
    spend_limit: Annotated[
        float | None,
        typer.Option("--spend-limit", min=0.0, help="Research cost per month (unset: no limit)."),
    ] = None,
) -> None:
    """Create a plan: the research methods, monthly claim quota and spend limit of its organisations."""
    from icarus.debates.access import AccessStore

    modes = _modes(research_mode, False) or []
    with _service(False) as service:
        _print(
            AccessStore(service.store).create_plan(
                name, modes, claim_quota=claim_quota, spend_limit=spend_limit
            )
        )


@app.command("org-create")
def org_create_command(
    name: Annotated[str, typer.Argument(help="The organisation's name.")],
    plan_id: Annotated[
        int | None, typer.Option("--plan", help="The id of its plan (unset: no limits).")
    ] = None,
) -> None:
    """Create an organisation; its tokens see only its debates."""
    from icarus.debates.access import AccessStore

    with _service(False) as service:
        _print(AccessStore(service.store).create_organisation(name, plan_id))


@app.command("org-add-token")
def org_add_token_command(
    organisation_id: Annotated[int, typer.Argument(help="The organisation id.")],
    token_id: Annotated[int, typer.Argument(help="The token id (`icarus token list`).")],
) -> None:
    """Make a token a member of an organisation (moving it from any other)."""
    from icarus.debates.access import AccessStore
    from icarus.store import NotFound

    with _service(False) as service:
        try:
            AccessStore(service.store).assign_token(token_id, organisation_id)
        except NotFound as exc:
            Console(stderr=True).print(
                f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False
            )
            raise typer.Exit(1) from None
        _print({"token_id": token_id, "organisation_id": organisation_id})


@app.command("orgs")
def orgs_command() -> None:
    """List the organisations with their plans and this month's usage."""
    from icarus.debates.access import AccessStore

    with _service(False) as service:
        access = AccessStore(service.store)
        _print([{**_plain(org), "usage": _plain(access.usage(org.id))} for org in access.organisations()])
