"""``icarus registry``: import reputation datasets, build the default registry, show a domain's record.

The sub-app ``registry_app`` is mounted by ``icarus.cli``. Datasets are read from wherever the user keeps
them; the project ships the default registry built from them, not the datasets.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from icarus.ledger import ReputationMethod, RiskRating, SourceTier
from icarus.reputation.default import (
    build_document,
    datasets_folder,
    default_path,
    render_document,
    sources_manifest,
)
from icarus.reputation.entry import source_label
from icarus.reputation.history import history_path, read_history
from icarus.reputation.importers import (
    DEFAULT_POLICY_REF,
    KINDS,
    ImportFormatError,
    import_file,
    update_registry,
    write_registry,
)
from icarus.reputation.manual import default_registry
from icarus.reputation.registry import Registry, RegistryEntry, RegistryFileError, domain_of, load_registry
from icarus.reputation.review import ReviewError, accept, default_queue_path, override, read_queue
from icarus.scoring.icarus.config import load_policy

__all__ = ["registry_app"]

registry_app = typer.Typer(no_args_is_help=True, help="The source-reputation registry.")

_MAX_REASONS_SHOWN = 20


def _console() -> Console:
    return Console(soft_wrap=True, highlight=False)


def _fail(message: str) -> None:
    Console(stderr=True).print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


@registry_app.command("import")
def import_command(
    kind: Annotated[str, typer.Argument(help=f"Dataset kind: {', '.join(KINDS)}.")],
    path: Annotated[Path, typer.Argument(help="The dataset file, where you keep it.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Registry JSON to write; an existing file is merged by precedence."),
    ] = None,
) -> None:
    """Import one dataset file into registry records and print what was imported and skipped."""
    if kind not in KINDS:
        _fail(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    if not path.is_file():
        _fail(f"not a file: {path}" if path.exists() else f"no such file: {path}")
    console = _console()
    reputation = load_policy(DEFAULT_POLICY_REF).reputation
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task(f"importing {kind} from {path.name}", total=None)
        try:
            result = import_file(kind, path, reputation, recorded_at=datetime.now(UTC))
        except (ImportFormatError, OSError) as exc:
            progress.stop()
            _fail(f"{path}: {exc}")
            return
        update = None
        if out is not None:
            progress.update(task, description=f"writing {out}")
            existing: list[RegistryEntry] = []
            if out.exists():
                try:
                    existing = list(load_registry(out).entries.values())
                except RegistryFileError as exc:
                    progress.stop()
                    _fail(str(exc))
            taken: dict[str, set[str]] = {}
            for old in read_history(out):
                taken.setdefault(old.record.domain, set()).add(old.record.version)
            update = update_registry(existing, result.entries, taken)
            try:
                write_registry(update.entries, out, update.replaced, datetime.now(UTC))
            except OSError as exc:
                progress.stop()
                _fail(f"cannot write {out}: {exc.strerror or exc}")
    console.print(f"{result.produced_by} (version {result.version})")
    console.print(f"imported: {len(result.entries)} domains")
    console.print(f"skipped: {len(result.skipped)} rows")
    for reason, count in result.skip_reasons.most_common(_MAX_REASONS_SHOWN):
        console.print(f"  {count:6d}  {escape(reason)}")
    if out is not None and update is not None:
        console.print(f"added: {update.added}   changed: {update.changed}   unchanged: {update.unchanged}")
        if update.changed:
            console.print(f"replaced versions kept in: {history_path(out)}")
        console.print(f"written: {out}")
    else:
        console.print("not written (no --out given)")


def explain(entry: RegistryEntry, registry: Registry) -> list[str]:
    """Why the record has its score, in plain lines."""
    record = entry.record
    reputation = load_policy(DEFAULT_POLICY_REF).reputation
    lines: list[str] = []
    if record.method is ReputationMethod.HEURISTIC:
        lines.append("reputation estimated, not on file")
        lines.append(
            f"heuristic {record.produced_by} from the domain name only (accountable suffix, noisy name); "
            f"the policy discounts an estimate by its provenance discount"
        )
        return lines
    lines.append(f"on file: {record.method.value} record from {record.produced_by}")
    if record.risk_rating is RiskRating.DEPRECATED:
        lines.append("deprecated on a risk list: evidence from it is excluded (H5)")
    elif record.risk_rating is RiskRating.GENERALLY_UNRELIABLE:
        lines.append(f"generally unreliable: R capped at {reputation.generally_unreliable_cap} (H5)")
    elif record.risk_rating is RiskRating.NO_CONSENSUS:
        lines.append(f"no consensus on reliability: R at most {reputation.no_consensus}")
    elif record.risk_rating is RiskRating.GENERALLY_RELIABLE:
        rated_by = entry.field_sources.get("risk_rating")
        if rated_by is not None and rated_by == entry.field_sources.get("score"):
            lines.append(f"generally reliable: baseline {reputation.generally_reliable}")
        else:
            lines.append("rated generally reliable; the score comes from a source that takes precedence")
    if record.on_iffy_index:
        lines.append("on the Iffy Index: excluded where the policy's Iffy rule is live (H5)")
    if entry.source_class.value in {"satire", "aggregator", "content_farm", "platform"}:
        lines.append(f"class {entry.source_class.value}: carries no corroboration weight (H6)")
    if " + " in record.produced_by:
        lines.append(
            "several sources name this domain: a reviewed class, tier and score win; otherwise the baseline "
            "by precedence; risk flags only lower it"
        )
    return lines


_FIELD_LABELS = (
    ("score", "score (R)"),
    ("tier", "tier"),
    ("source_class", "class"),
    ("risk_rating", "risk rating"),
    ("on_iffy_index", "on the Iffy Index"),
)


def _field_value(entry: RegistryEntry, name: str) -> str:
    record = entry.record
    if name == "score":
        return str(record.score)
    if name == "tier":
        return record.tier.value
    if name == "source_class":
        return entry.source_class.value
    if name == "risk_rating":
        return record.risk_rating.value if record.risk_rating else "none"
    return "yes" if record.on_iffy_index else "no"


@registry_app.command("show")
def show_command(
    domain: Annotated[str, typer.Argument(help="A domain, host or URL.")],
    registry: Annotated[
        list[Path] | None,
        typer.Option(
            "--registry", help="Registry JSON file(s), layered over the shipped records like --reputation."
        ),
    ] = None,
) -> None:
    """Print the record the scorer uses for a domain (shipped manual records, the shipped default registry
    and the given files, merged), where each field came from, its version and why it has that score."""
    try:
        reg = default_registry(*(registry or []))
    except RegistryFileError as exc:
        _fail(str(exc))
        return
    entry = reg.lookup(domain)
    record = entry.record
    console = _console()
    console.print(f"domain: {domain_of(domain)}")
    sources = entry.field_sources
    for name, label in _FIELD_LABELS:
        value = _field_value(entry, name)
        origin = sources.get(name)
        if origin is None and name in ("risk_rating", "on_iffy_index"):
            console.print(f"{label}: {value}   (no source lists one)")
        else:
            console.print(f"{label}: {value}   from {escape(origin or source_label(entry))}")
    if record.estimated:
        console.print("on file: no -- a heuristic estimate, not a record")
    else:
        console.print("on file: yes")
    if entry.note:
        console.print(f"held by: {escape(entry.note)}")
    console.print(f"method: {record.method.value}   produced by: {escape(record.produced_by)}")
    for name, licence in [] if record.estimated else _licences(record.produced_by):
        console.print(f"licence: {escape(name)}: {escape(licence)}")
    console.print(f"version: {record.version}   recorded at: {record.recorded_at or 'not recorded'}")
    for line in explain(entry, reg):
        console.print(f"why: {escape(line)}")
    for source in entry.sources:
        part = source.record
        console.print(
            f"source: {escape(source_label(source))}  score {part.score}  tier {part.tier.value}  "
            f"risk {part.risk_rating.value if part.risk_rating else 'none'}  class {source.source_class.value}"
        )
    earlier = [old for path in registry or [] for old in read_history(path, domain_of(domain))]
    for old in earlier:
        console.print(
            f"history: version {old.record.version}  score {old.record.score}  {escape(old.record.produced_by)}  "
            f"recorded {old.record.recorded_at or 'not recorded'}  replaced {old.replaced_at or 'unknown'}"
        )
    if not earlier:
        console.print("history: no earlier versions on file")


def _licences(produced_by: str) -> list[tuple[str, str]]:
    """The licence of each source a record names (``produced_by`` joins them with " + "), as the sources
    manifest states it; a source the shipped registry does not use (a user's own list) is named as such."""
    known = {source.name: source.licence for source in sources_manifest()}
    names: list[str] = []
    for part in produced_by.split(" + "):
        name = "manual" if part.startswith("reviewer:") else part.split("@", 1)[0]
        if name not in names:
            names.append(name)
    return [
        (name, known.get(name, "not a source of the shipped registry: see its own terms")) for name in names
    ]


@registry_app.command("build")
def build_command(
    data: Annotated[
        Path | None,
        typer.Option("--data", help="The datasets folder; default $ICARUS_DATASETS or ../shared/datasets."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="File to write; default the shipped default registry.")
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 when the file differs from a rebuild.")
    ] = False,
) -> None:
    """Build the default registry from the public lists and the registration-policy rules."""
    folder = data if data is not None else datasets_folder()
    target = out if out is not None else default_path()
    try:
        document = build_document(folder)
    except FileNotFoundError as exc:
        _fail(str(exc))
        return
    except (ImportFormatError, OSError) as exc:
        _fail(f"{folder}: {exc}")
        return
    text = render_document(document)
    console = _console()
    for source in document["sources"]:
        console.print(
            f"{source['produced_by']:<40} {source['records']:>6} records  {source['skipped']:>5} rows skipped"
        )
    console.print(f"domains: {len(document['domains'])}   rules: {len(document['rules'])}")
    if check:
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != text:
            Console(stderr=True).print(f"{target} is not current: run icarus registry build", soft_wrap=True)
            raise typer.Exit(1)
        console.print(f"current: {target}")
        return
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {target}: {exc.strerror or exc}")
    console.print(f"written: {target} ({len(text.encode()):,} bytes)")


@registry_app.command("sources")
def sources_command() -> None:
    """List the reputation sources the default registry is built from: version, licence, records."""
    console = _console()
    for source in sources_manifest():
        console.print(f"{source.name}@{source.version}  {escape(source.title)}")
        console.print(f"  origin: {escape(source.origin)}")
        console.print(f"  licence: {escape(source.licence)}")
        console.print(f"  records: {source.records}   gives: {escape(source.gives)}")


review_app = typer.Typer(
    no_args_is_help=True, help="The H4 review queue: estimates that could change a label."
)
registry_app.add_typer(review_app, name="review")

_QueueOption = Annotated[
    Path | None,
    typer.Option("--queue", help="Review queue file; default <data_dir>/review-queue.jsonl."),
]


def _queue(path: Path | None) -> Path:
    return path if path is not None else default_queue_path()


@review_app.command("list")
def review_list_command(queue: _QueueOption = None) -> None:
    """List the pending review items, and any queue lines that could not be read."""
    path = _queue(queue)
    state = read_queue(path)
    console = _console()
    for problem in state.problems:
        Console(stderr=True).print(f"[yellow]warning:[/yellow] {escape(problem)}", soft_wrap=True)
    if not state.pending:
        console.print(f"no pending reviews in {path}")
    for queued in state.pending:
        console.print(
            f"{queued.domain}  estimate {queued.estimate.score} ({queued.estimate.tier.value}, "
            f"{queued.source_class.value})  evidence {escape(queued.evidence_id)}  "
            f"claim {escape(queued.claim_id)}  ledger {escape(queued.ledger_id)}  queued {queued.queued_at}"
        )
    console.print(f"pending: {len(state.pending)}   resolved: {len(state.resolved)}")


def _review(
    action: str,
    domain: str,
    score: str | None,
    tier: str | None,
    reviewer: str,
    out: Path,
    queue: Path | None,
) -> None:
    try:
        value = Decimal(score) if score is not None else None
    except InvalidOperation:
        _fail(f"--score {score!r} is not a number")
        return
    try:
        level = SourceTier(tier) if tier is not None else None
    except ValueError:
        _fail(f"--tier {tier!r}; one of {', '.join(t.value for t in SourceTier)}")
        return
    try:
        if action == "accept":
            entry = accept(_queue(queue), domain, value, level, reviewer, out)
        else:
            if value is None:
                _fail("override needs --score")
                return
            entry = override(_queue(queue), domain, value, level, reviewer, out)
    except ReviewError as exc:
        _fail(str(exc))
        return
    except OSError as exc:  # the queue could not be read or appended to, or the registry not written
        problem = exc.strerror or str(exc)
        queue_path = _queue(queue)
        if exc.filename == str(queue_path):
            _fail(f"cannot use the review queue {queue_path}: {problem}")
        _fail(f"cannot write {out}: {problem}")
        return
    record = entry.record
    _console().print(
        f"{action}ed {record.domain}: score {record.score}, tier {record.tier.value}, "
        f"manual version {record.version} by {escape(record.produced_by)}; written: {out}"
    )


_ScoreOption = Annotated[str | None, typer.Option("--score", help="R in [0, 1].")]
_TierOption = Annotated[str | None, typer.Option("--tier", help="Diversity tier; default the estimate's.")]
_ReviewerOption = Annotated[str, typer.Option("--reviewer", help="The reviewer's role, e.g. 'editor'.")]
_OutOption = Annotated[Path, typer.Option("--out", help="Registry JSON to write the new record version to.")]


@review_app.command("accept")
def review_accept_command(
    domain: Annotated[str, typer.Argument(help="The queued domain.")],
    reviewer: _ReviewerOption,
    out: _OutOption,
    score: _ScoreOption = None,
    tier: _TierOption = None,
    queue: _QueueOption = None,
) -> None:
    """Keep the estimated score as a reviewed manual record (a new version)."""
    _review("accept", domain, score, tier, reviewer, out, queue)


@review_app.command("override")
def review_override_command(
    domain: Annotated[str, typer.Argument(help="The queued domain.")],
    reviewer: _ReviewerOption,
    out: _OutOption,
    score: _ScoreOption = None,
    tier: _TierOption = None,
    queue: _QueueOption = None,
) -> None:
    """Replace the estimate with a different reviewed score (a new manual record version)."""
    _review("override", domain, score, tier, reviewer, out, queue)
