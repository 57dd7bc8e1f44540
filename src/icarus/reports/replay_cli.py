"""``icarus replay REPORT_VERSION``: re-score a stored version and say whether its trace is byte-identical.

Exit status: 0 identical, 1 different (the diff is printed), 2 not found or not replayable (unknown check
or version, malformed reference, unknown policy, unreachable database).
"""

from __future__ import annotations

from typing import Annotated, Final

import typer
from sqlalchemy.exc import ArgumentError, OperationalError

from icarus.fetching import SnapshotStore
from icarus.reports.replay import ReplayError, replay
from icarus.settings import Settings
from icarus.store.repository import NotFound, Store
from icarus.store.tables import INTEGER_MAX

__all__ = ["EXIT_DIFFERENT", "EXIT_IDENTICAL", "EXIT_NOT_FOUND", "app", "parse_ref", "replay_command"]

EXIT_IDENTICAL: Final = 0
EXIT_DIFFERENT: Final = 1
EXIT_NOT_FOUND: Final = 2

app = typer.Typer(add_completion=False, help="Replay stored report versions.")


def parse_ref(ref: str) -> tuple[str, int | None]:
    """``CHECK_ID/VERSION`` → (check_id, version); a bare ``CHECK_ID`` means its latest version."""
    check_id, slash, number = ref.strip().strip("/").partition("/")
    if not check_id or "/" in number or (slash and not number.isdigit()):
        raise ValueError(f"not a report version: {ref!r} (expected CHECK_ID/VERSION or CHECK_ID)")
    version = int(number) if slash else None
    if version is not None and version < 1:
        raise ValueError(f"version numbers start at 1, got {version}")
    if version is not None and version > INTEGER_MAX:
        raise ValueError(f"no version {version}: version numbers end at {INTEGER_MAX}")
    return check_id, version


@app.command("replay")
def replay_command(
    ref: Annotated[str, typer.Argument(help="CHECK_ID/VERSION, or CHECK_ID for the latest version.")],
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="Database to read; default ICARUS_DATABASE_URL, else SQLite in the data dir.",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="Replay the version's result under this model (name@version), as stored when first served.",
        ),
    ] = None,
) -> None:
    """Re-score a stored report version; print 'identical' or a diff of the traces."""
    try:
        check_id, version = parse_ref(ref)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_NOT_FOUND) from None
    try:
        store = Store(database_url) if database_url else Store.from_settings()
    except ArgumentError as exc:
        typer.echo(f"error: not a database URL: {exc}", err=True)
        raise typer.Exit(EXIT_NOT_FOUND) from None
    try:
        snapshot_dir = Settings().data_dir / "snapshots"
        snapshots = SnapshotStore(snapshot_dir) if snapshot_dir.is_dir() else None
        if model is None:
            outcome = replay(store.open(), check_id, version, snapshots)
        else:
            from icarus.reports.model_replay import replay_model  # only when asked: it loads the registry

            outcome = replay_model(store.open(), check_id, version, model)
    except (NotFound, ReplayError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_NOT_FOUND) from None
    except OperationalError as exc:
        # One line, and the URL as the store prints it (password hidden), not a traceback.
        typer.echo(f"error: cannot read {store!r}: {str(exc.orig).strip().splitlines()[0]}", err=True)
        raise typer.Exit(EXIT_NOT_FOUND) from None
    finally:
        store.close()
    where = f"{outcome.check_id}/{outcome.version}"
    if outcome.identical:
        typer.echo(f"identical: {where} {outcome.new_trace_hash}")
        raise typer.Exit(EXIT_IDENTICAL)
    typer.echo(f"different: {where} stored {outcome.stored_trace_hash}, replayed {outcome.new_trace_hash}")
    for problem in outcome.problems:
        typer.echo(f"problem: {problem}")
    for line in outcome.diff:
        typer.echo(line)
    raise typer.Exit(EXIT_DIFFERENT)
