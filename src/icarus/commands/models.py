"""Commands over the model registry: ``icarus models``, ``icarus compare`` and the generic parts of
``icarus score --model`` and ``icarus policy show`` (listed in ``icarus.cli``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from icarus.commands.errors import fail
from icarus.ledger import LedgerError, load_ledger
from icarus.scoring.compare import compare
from icarus.scoring.registry import ScoringModel, UnknownModelError, default_registry, get_model


def _write_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def models_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List every registered scoring model with its family and config hash."""
    registry = default_registry()
    rows = []
    for entry in registry.entries():
        model = registry.get(entry.ref)
        rows.append({"model": entry.ref, "family": entry.family, "config_hash": model.config_hash})
    if as_json:
        _write_json(rows)
        return
    table = Table("model", "family", "config hash")
    for row in rows:
        table.add_row(row["model"], row["family"], row["config_hash"])
    Console(width=200).print(table)


def load_model(ref: str) -> ScoringModel:
    """The registered model ``ref``, or a clear error and exit code 2."""
    try:
        return get_model(ref)
    except (UnknownModelError, ValueError) as exc:
        fail(str(exc))


def score_with_model(ledger_path: Path, ref: str, as_json: bool, as_md: bool) -> None:
    """``icarus score LEDGER --model REF`` for a model outside the Icarus family."""
    model = load_model(ref)
    try:
        result = model.score(load_ledger(ledger_path))
    except LedgerError as exc:
        fail(str(exc))
    if as_json:
        _write_json(result)
    elif as_md:
        sys.stdout.write(render_verdicts_markdown(model, result))
    else:
        _print_verdicts(model, result, Console())


def render_verdicts_markdown(model: ScoringModel, result: dict[str, Any]) -> str:
    lines = [
        f"# {result.get('ledger_id', '')} under {model.ref}",
        "",
        f"Config hash `{model.config_hash}`, trace hash `{result.get('trace_hash', '')}`.",
        "",
        "| claim | outcome | band | shown as |",
        "|---|---|---|---|",
    ]
    for v in model.verdicts(result):
        lines.append(f"| {v.claim_id} | {v.outcome} | {v.band or '—'} | {v.shown_as} |")
    return "\n".join(lines) + "\n"


def _print_verdicts(model: ScoringModel, result: dict[str, Any], console: Console) -> None:
    console.print(
        f"[bold]{escape(model.ref)}[/bold]  config {model.config_hash}", highlight=False, soft_wrap=True
    )
    for v in model.verdicts(result):
        console.print(f"  {escape(v.claim_id)}: {escape(v.shown_as)}", highlight=False, soft_wrap=True)


def compare_command(
    ledger: Annotated[Path, typer.Argument(help="Evidence ledger JSON file.")],
    models: Annotated[str, typer.Option("--models", help="Two registered models, comma-separated: A,B.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print both results and the diff as JSON.")] = False,
) -> None:
    """Score one ledger under two models; print both results and where they differ and why."""
    refs = [ref.strip() for ref in models.split(",") if ref.strip()]
    if len(refs) != 2:
        fail(f"--models takes two models separated by a comma (got {models!r})")
    model_a, model_b = load_model(refs[0]), load_model(refs[1])
    try:
        comparison = compare(load_ledger(ledger), model_a, model_b)
    except LedgerError as exc:
        fail(str(exc))
    if as_json:
        _write_json(comparison)
        return
    console = Console()
    for model, result in zip((model_a, model_b), comparison["results"], strict=True):
        _print_verdicts(model, result, console)
    _print_diff(comparison["diff"], model_a.ref, model_b.ref, console)


def _print_diff(diff: dict[str, Any], a: str, b: str, console: Console) -> None:
    console.print()
    if not diff["same_family"]:
        console.print("Different model families: configs are not compared key by key.")
    elif diff["config"]:
        table = Table("config key", a, b, title="Config keys that differ")
        for row in diff["config"]:
            table.add_row(row["key"], json.dumps(row["a"]), json.dumps(row["b"]))
        console.print(table)
    else:
        console.print("The two configs are identical.")
    if diff["items"]:
        table = Table("claim", "item", a, b, "factors that differ", "config keys responsible")
        for row in diff["items"]:
            factors = "; ".join(f"{name} {fa}→{fb}" for name, (fa, fb) in row["factors"].items())
            table.add_row(
                row["claim_id"],
                row["item_id"],
                str(row["weight"][0]),
                str(row["weight"][1]),
                factors or "—",
                ", ".join(row["config_keys"]) or "—",
            )
        table.title = "Items whose effective weights differ"
        console.print(table)
    else:
        console.print("No item's effective weight differs.")
    if diff["verdicts"]:
        table = Table("claim", a, b, title="Verdicts that differ")
        for row in diff["verdicts"]:
            cells = [
                " ".join(
                    str(part) for part in (row["outcome"][i], row["band"][i], row["probability"][i]) if part
                )
                for i in (0, 1)
            ]
            table.add_row(row["claim_id"], *cells)
        console.print(table)
    else:
        console.print("No claim's verdict differs.")


def methodology_for(ref: str) -> str:
    """The methodology page of any registered model (``icarus policy show``)."""
    return load_model(ref).methodology()
