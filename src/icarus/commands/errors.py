"""How a command reports a usage error: one red line on stderr and exit code 2."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    # soft_wrap keeps a path or message on one line, so it can be read and grepped as written
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)
