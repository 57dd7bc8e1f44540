"""``icarus lvf``: score a ledger under LVF, show stored runs, and handle challenges.

``icarus lvf LEDGER.json`` is short for ``icarus lvf score LEDGER.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from icarus.jsonlines import json_error_reason
from icarus.ledger import Ledger, LedgerError, load_ledger
from icarus.lvf.llm import assessor_from_settings
from icarus.lvf.repository import LvfRepository, UnknownRecord, default_lvf_db
from icarus.reputation.manual import default_registry
from icarus.scoring.lvf.challenge_evidence import FedChallenge, feed_challenge
from icarus.scoring.lvf.challenges import AcceptedChallenge, ChallengeError, ReviewAction, parse_submission
from icarus.scoring.lvf.config import DEFAULT_LVF, UnknownLvfVersionError, load_lvf_config
from icarus.scoring.lvf.engine import run_lvf
from icarus.scoring.lvf.methodology import render_lvf_methodology
from icarus.scoring.lvf.record import LvfRun, RunStatus, public_summary, render_run
from icarus.settings import Settings

__all__ = ["lvf_app"]


class _DefaultToScore(TyperGroup):
    """Routes ``icarus lvf LEDGER.json`` to ``icarus lvf score LEDGER.json``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # ctx: typer's click Context
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["score", *args]
        return super().parse_args(ctx, args)


lvf_app = typer.Typer(
    cls=_DefaultToScore, no_args_is_help=True, help="LVF v3.0 assessments, stored runs and challenges."
)
challenge_app = typer.Typer(no_args_is_help=True, help="Challenges to stored LVF runs, and their review.")
lvf_app.add_typer(challenge_app, name="challenge")

DbOption = Annotated[
    Path | None, typer.Option("--db", help="LVF database file (default <ICARUS_DATA_DIR>/lvf.db).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def _fail(message: str, code: int = 2) -> None:
    Console(stderr=True).print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)


def _repository(db: Path | None) -> LvfRepository:
    return LvfRepository(db or default_lvf_db(), load_lvf_config(DEFAULT_LVF).challenges)


def _print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _fed_challenges(ledger: Ledger, db: Path | None) -> list[FedChallenge]:
    """Every accepted challenge about this ledger, its evidence turned into ledger items."""
    with _repository(db) as repository:
        accepted = repository.accepted_challenges(ledger.ledger_id)
    if not accepted:
        return []
    lookup = default_registry().ledger_lookup
    return [feed_challenge(a, lookup) for a in accepted]


def _note_unused(runs: tuple[LvfRun, ...], db: Path | None) -> None:
    """After storing runs that did not read challenges: say which accepted challenges were left unread."""
    with _repository(db) as repository:
        waiting = [
            a
            for run in runs
            if run.status is not RunStatus.SKIPPED
            for a in repository.accepted_challenges(run.ledger_id, run.claim_id, unused_only=True)
        ]
    if waiting:
        Console(stderr=True).print(
            f"note: {len(waiting)} accepted challenge(s) not read by any stored run "
            f"({', '.join(a.challenge_id for a in waiting)}); add --with-accepted-challenges to use them",
            soft_wrap=True,
            highlight=False,
            markup=False,
        )


@lvf_app.command("score")
def score(
    ledger: Annotated[Path, typer.Argument(help="Evidence ledger JSON file.")],
    version: Annotated[str, typer.Option("--version", help="LVF methodology name@version.")] = DEFAULT_LVF,
    claim: Annotated[
        list[str] | None, typer.Option("--claim", help="Only this claim id (repeatable).")
    ] = None,
    as_json: JsonOption = False,
    public: Annotated[
        bool, typer.Option("--public", help="Print only the public summary (counts and components).")
    ] = False,
    record: Annotated[bool, typer.Option("--record", help="Store each run in the LVF database.")] = False,
    with_challenges: Annotated[
        bool,
        typer.Option(
            "--with-accepted-challenges",
            help="Also read the evidence of every accepted challenge about these claims (from --db).",
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Assess each claim of a ledger under LVF. Uses the LLM assessor only when one is configured."""
    try:
        config = load_lvf_config(version)
        parsed = load_ledger(ledger)
        fed = _fed_challenges(parsed, db) if with_challenges else []
        extra = assessor_from_settings(Settings())
        runs = run_lvf(parsed, config, [extra] if extra is not None else [], claim, fed)
    except (LedgerError, UnknownLvfVersionError, ValueError) as exc:
        _fail(str(exc))
        return
    except KeyError as exc:
        _fail(str(exc.args[0]))
        return
    ids: list[int | None] = [None] * len(runs)
    if record:
        try:
            with _repository(db) as repository:
                ids = [repository.record_run(run) for run in runs]
        except (ChallengeError, UnknownRecord) as exc:
            _fail(str(exc))
            return
        if not with_challenges:
            _note_unused(runs, db)
    if as_json:
        documents = [public_summary(run) if public else json.loads(run.canonical_json()) for run in runs]
        for document, run_id in zip(documents, ids, strict=True):
            if run_id is not None:
                document["run_id"] = run_id
        _print_json(documents)
        return
    for run, run_id in zip(runs, ids, strict=True):
        if run_id is not None:
            sys.stdout.write(f"Stored as run {run_id}\n")
        sys.stdout.write(json.dumps(public_summary(run), indent=2) + "\n" if public else render_run(run))


@lvf_app.command("show")
def show(
    run_id: Annotated[int, typer.Argument(help="Stored run id.")],
    as_json: JsonOption = False,
    public: Annotated[bool, typer.Option("--public", help="Print only the public summary.")] = False,
    db: DbOption = None,
) -> None:
    """Render a stored run with its own methodology version and weights."""
    try:
        with _repository(db) as repository:
            stored = repository.get_run(run_id)
    except UnknownRecord as exc:
        _fail(str(exc))
        return
    run = stored.run
    if public:
        _print_json(public_summary(run))
    elif as_json:
        sys.stdout.write(stored.run_json + "\n")
    else:
        sys.stdout.write(render_run(run))


@lvf_app.command("runs")
def runs(db: DbOption = None) -> None:
    """List stored runs: id, methodology, ledger, claim, status, displayed score."""
    with _repository(db) as repository:
        for stored in repository.runs():
            run = stored.run
            score = "-" if run.display_score is None else str(run.display_score)
            sys.stdout.write(
                f"{stored.run_id}\t{run.methodology}\t{run.ledger_id}\t{run.claim_id}\t{run.status.value}\t{score}\n"
            )


@lvf_app.command("methodology")
def methodology(
    version: Annotated[str, typer.Argument(help="LVF methodology name@version.")] = DEFAULT_LVF,
) -> None:
    """Print an LVF version's methodology page, rendered from its config."""
    try:
        sys.stdout.write(render_lvf_methodology(load_lvf_config(version)))
    except UnknownLvfVersionError as exc:
        _fail(str(exc))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        _fail(f"cannot read {path}: {exc.strerror or exc}")
    except RecursionError:
        _fail(f"{path} nests too deeply to be a submission")
    except ValueError as exc:  # not UTF-8, not JSON, or an integer literal too long to read
        _fail(f"{path} is not valid JSON: {json_error_reason(exc)}")
    return None


@challenge_app.command("submit")
def challenge_submit(
    submission: Annotated[Path, typer.Argument(help="Challenge submission JSON file.")],
    db: DbOption = None,
) -> None:
    """Validate and queue a structured evidence submission against a stored run."""
    raw = _read_json(submission)
    try:
        parsed = parse_submission(raw, load_lvf_config(DEFAULT_LVF).challenges)
        with _repository(db) as repository:
            challenge_id = repository.submit(parsed)
    except (ChallengeError, UnknownRecord) as exc:
        _fail(str(exc))
        return
    sys.stdout.write(f"{challenge_id}\tqueued\n")


@challenge_app.command("queue")
def challenge_queue(as_json: JsonOption = False, db: DbOption = None) -> None:
    """List queued challenges in review order (most votes first, then oldest)."""
    with _repository(db) as repository:
        entries = repository.review_queue()
    rows = [
        {
            "challenge_id": e.challenge_id,
            "run_id": e.run_id,
            "votes": e.votes,
            "submitted_at": e.submitted_at.isoformat().replace("+00:00", "Z"),
        }
        for e in entries
    ]
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        sys.stdout.write(
            f"{row['challenge_id']}\trun {row['run_id']}\t{row['votes']} vote(s)\t{row['submitted_at']}\n"
        )


def _accepted_row(accepted: AcceptedChallenge) -> dict[str, Any]:
    return {
        "challenge_id": accepted.challenge_id,
        "run_id": accepted.challenged_run_id,
        "ledger_id": accepted.ledger_id,
        "claim_id": accepted.claim_id,
        "accepted_at": accepted.accepted_at.isoformat().replace("+00:00", "Z"),
        "evidence_items": len(accepted.evidence),
        "used_by": list(accepted.used_by),
    }


@challenge_app.command("accepted")
def challenge_accepted(
    claim: Annotated[str | None, typer.Option("--claim", help="Only challenges about this claim id.")] = None,
    ledger: Annotated[
        str | None, typer.Option("--ledger", help="Only challenges about this ledger id.")
    ] = None,
    include_used: Annotated[
        bool, typer.Option("--all", help="Also list accepted challenges a stored run has already read.")
    ] = False,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """List accepted challenges that no stored run has read yet (evidence waiting for a later run)."""
    with _repository(db) as repository:
        found = repository.accepted_challenges(ledger, claim, unused_only=not include_used)
    rows = [_accepted_row(a) for a in found]
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        used = ",".join(str(r) for r in row["used_by"]) or "unused"
        sys.stdout.write(
            f"{row['challenge_id']}\trun {row['run_id']}\t{row['ledger_id']}\t{row['claim_id']}\t"
            f"{row['evidence_items']} item(s)\t{row['accepted_at']}\t{used}\n"
        )


@challenge_app.command("show")
def challenge_show(
    challenge_id: Annotated[str, typer.Argument(help="Challenge id.")], db: DbOption = None
) -> None:
    """Print a challenge's full history as JSON (a reviewer's view: it includes reviewer notes)."""
    try:
        with _repository(db) as repository:
            view = repository.challenge(challenge_id)
    except UnknownRecord as exc:
        _fail(str(exc))
        return
    _print_json(
        {
            "challenge_id": view.challenge_id,
            "run_id": view.run_id,
            "state": view.state.value,
            "votes": view.votes,
            "events": [
                {
                    "seq": e.seq,
                    "kind": e.kind.value,
                    "actor": e.actor,
                    "at": e.at.isoformat(),
                    "payload": e.payload,
                }
                for e in view.events
            ],
        }
    )


@challenge_app.command("review")
def challenge_review(
    challenge_id: Annotated[str, typer.Argument(help="Challenge id.")],
    action: Annotated[ReviewAction, typer.Option("--action", help="request-more-info, reject or accept.")],
    reviewer: Annotated[str, typer.Option("--reviewer", help="Reviewer id.")],
    note: Annotated[str, typer.Option("--note", help="Reviewer note (private, never published).")] = "",
    db: DbOption = None,
) -> None:
    """Record a reviewer's decision. Accepting queues the evidence for a later run; the old run never changes."""
    try:
        with _repository(db) as repository:
            state = repository.review(challenge_id, action, reviewer, note)
    except (ChallengeError, UnknownRecord) as exc:
        _fail(str(exc))
        return
    sys.stdout.write(f"{challenge_id}\t{state.value}\n")


@challenge_app.command("respond")
def challenge_respond(
    challenge_id: Annotated[str, typer.Argument(help="Challenge id.")],
    submission: Annotated[Path, typer.Argument(help="Submission JSON with the added reason and evidence.")],
    db: DbOption = None,
) -> None:
    """Add the information a reviewer asked for; the challenge goes back in the queue."""
    raw = _read_json(submission)
    try:
        parsed = parse_submission(raw, load_lvf_config(DEFAULT_LVF).challenges)
        with _repository(db) as repository:
            state = repository.add_info(
                challenge_id,
                parsed.submitter,
                parsed.reason,
                [e.model_dump(mode="json") for e in parsed.evidence],
            )
    except (ChallengeError, UnknownRecord) as exc:
        _fail(str(exc))
        return
    sys.stdout.write(f"{challenge_id}\t{state.value}\n")


@challenge_app.command("vote")
def challenge_vote(
    challenge_id: Annotated[str, typer.Argument(help="Challenge id.")],
    voter: Annotated[str, typer.Option("--voter", help="Opaque voter id; one vote per voter.")],
    db: DbOption = None,
) -> None:
    """Vote a challenge up the review queue. Votes never enter a score."""
    try:
        with _repository(db) as repository:
            counted = repository.vote(challenge_id, voter)
    except UnknownRecord as exc:
        _fail(str(exc))
        return
    sys.stdout.write(f"{challenge_id}\t{'counted' if counted else 'already voted'}\n")
