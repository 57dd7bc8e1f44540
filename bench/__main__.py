"""Run every benchmark module in this package, print a table per module and write JSON results.

Each module exposes ``main(argv) -> dict`` with a ``runs`` list of flat rows; anything else it returns is
printed as key/value lines and kept in the JSON file.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

RESULTS = Path(__file__).parent / "results"


def _table(name: str, rows: list[dict[str, Any]]) -> Table:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    if len(columns) > 6:
        # Many measures: one row per measure, one column per run, so the table fits a terminal.
        table = Table(title=f"bench.{name}")
        table.add_column("measure")
        for row in rows:
            table.add_column(str(row.get(columns[0], "")), justify="right")
        for column in columns[1:]:
            table.add_row(column.replace("_", " "), *(str(row.get(column, "")) for row in rows))
        return table
    table = Table(title=f"bench.{name}")
    for column in columns:
        table.add_column(column.replace("_", " "), justify="right")
    for row in rows:
        table.add_row(*(str(row.get(column, "")) for column in columns))
    return table


def main(argv: list[str]) -> None:
    console = Console()
    RESULTS.mkdir(exist_ok=True)
    package = Path(__file__).parent
    for module_info in sorted(pkgutil.iter_modules([str(package)]), key=lambda info: info.name):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"bench.{module_info.name}")
        if not hasattr(module, "main"):
            continue
        console.print(f"[bold]running bench.{module_info.name}[/bold] {' '.join(argv)}")
        result: dict[str, Any] = module.main(argv)
        console.print(_table(module_info.name, result.get("runs", [])))
        for key, value in result.items():
            if key != "runs":
                console.print(f"{key}: {value}")
        path = RESULTS / f"{module_info.name}.json"
        path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        console.print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
