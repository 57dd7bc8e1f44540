"""``icarus schema``: the JSON Schemas of Icarus documents."""

from __future__ import annotations

import json
import sys

import typer

from icarus.ledger import ledger_json_schema

schema_app = typer.Typer(no_args_is_help=True, help="JSON Schemas of Icarus documents.")


@schema_app.command("ledger")
def schema_ledger() -> None:
    """Print the evidence ledger's JSON Schema."""
    sys.stdout.write(json.dumps(ledger_json_schema(), indent=2) + "\n")
