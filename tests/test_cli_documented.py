"""Every CLI command and option is documented somewhere in docs/."""

from __future__ import annotations

from pathlib import Path

import typer.main

from icarus.cli import app

DOCS = "\n".join(path.read_text() for path in sorted((Path(__file__).parents[1] / "docs").rglob("*.md")))


def _commands(group: typer.Typer, prefix: str = "icarus") -> list[tuple[str, list[str]]]:
    click_group = typer.main.get_command(group)
    found: list[tuple[str, list[str]]] = []

    def walk(command, path: str) -> None:  # type: ignore[no-untyped-def]
        # list_commands and get_command, not the ``commands`` dict: ``icarus`` loads its commands on first use
        if hasattr(command, "list_commands"):
            context = typer.Context(command, info_name=path)
            for name in command.list_commands(context):
                walk(command.get_command(context, name), f"{path} {name}")
        else:
            options = [opt for p in command.params for opt in getattr(p, "opts", []) if opt.startswith("--")]
            found.append((path, options))

    walk(click_group, prefix)
    return found


def test_every_command_and_option_is_documented() -> None:
    commands = _commands(app)
    assert len(commands) >= 4
    for path, options in commands:
        assert f"`{path}" in DOCS, path
        for option in options:
            assert option in DOCS, f"{path} {option}"
