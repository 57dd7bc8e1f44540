"""The ``icarus`` command line.

Every command lives in its own module and is imported only when it runs, so ``icarus --help`` and
``icarus score`` do not pay for the API app, the job queue, the judges or the research providers.
``COMMANDS`` names each command's module and carries its one-line help, which ``icarus --help`` lists
without importing anything (``tests/test_cli_imports.py`` checks each line against the command itself).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

import typer
import typer.main
from typer import _click
from typer.core import TyperCommand, TyperGroup

from icarus.commands.collector import collection_paused

# Read by OpenBLAS when numpy loads it: its idle pool threads wait 2**4 cycles, not 2**28, before they sleep.
# Spinning, the pool thread burnt 0.05 s of CPU at every start (a tenth of ``icarus score``) on the core the
# command itself needs on a two-core machine. Only the waiting changes, not how any product is computed.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """A command or command group found at ``target`` (``module:attribute``) when it is first used."""

    target: str
    help: str

    def load(self, name: str) -> _click.Command:
        module, _, attribute = self.target.partition(":")
        with collection_paused():  # the imports leave almost no garbage (commands.collector)
            found: Any = getattr(importlib.import_module(module), attribute)
        if isinstance(found, typer.Typer):
            return typer.main.get_group(found)
        single = typer.Typer(add_completion=False)
        single.command(name)(found)
        return typer.main.get_command(single)


COMMANDS: dict[str, LazyCommand] = {
    "score": LazyCommand(
        "icarus.commands.score:score",
        "Score a prepared evidence ledger. Reads no network and no clock (--review-queue stamps its items).",
    ),
    "check": LazyCommand(
        "icarus.commands.check:check",
        "Check a text, a URL or a tagged X post end to end on the configured providers.",
    ),
    "policy": LazyCommand("icarus.commands.policy:policy_app", "Published scoring policies."),
    "schema": LazyCommand("icarus.commands.schema:schema_app", "JSON Schemas of Icarus documents."),
    "corpus": LazyCommand(
        "icarus.research.cli:corpus_app", "The local search corpus (SQLite FTS5, one file)."
    ),
    "registry": LazyCommand("icarus.reputation.cli:registry_app", "The source-reputation registry."),
    "lvf": LazyCommand("icarus.lvf.cli:lvf_app", "LVF v3.0 assessments, stored runs and challenges."),
    "evidence-verify": LazyCommand(
        "icarus.evidenceverify.cli:evidence_verify_command",
        "Verify a debate claim against the evidence it cites: status, notes and confidence level.",
    ),
    "judge": LazyCommand(
        "icarus.evaluation.judge_cli:judge_app", "Measure stance judges on labelled public data."
    ),
    "replay": LazyCommand(
        "icarus.reports.replay_cli:replay_command",
        "Re-score a stored report version; print 'identical' or a diff of the traces.",
    ),
    "serve": LazyCommand(
        "icarus.api.cli:serve_command",
        "Serve the API under /v1, the pages at /, and (unless --no-worker) run a worker beside it.",
    ),
    "worker": LazyCommand(
        "icarus.jobs.cli:worker_command",
        "Consume the job queue: repairs recheck schedules at start-up, then runs jobs until stopped.",
    ),
    "token": LazyCommand("icarus.api.cli:token_app", "API tokens: create, list, revoke."),
    "x-bot": LazyCommand(
        "icarus.xbot.cli:x_bot_command",
        "Answer X mentions: check each tagging reply's direct parent and reply with the conclusion and a\n"
        "report link. A first run with no stored position and no --since-id answers nothing and starts after\n"
        "the newest mention, so old mentions are never answered in bulk.",
    ),
    "models": LazyCommand(
        "icarus.commands.models:models_command",
        "List every registered scoring model with its family and config hash.",
    ),
    "compare": LazyCommand(
        "icarus.commands.models:compare_command",
        "Score one ledger under two models; print both results and where they differ and why.",
    ),
    "eval": LazyCommand(
        "icarus.evaluation.cli:eval_command",
        "Score a public dataset's claims (or judge its stance pairs) and report the metrics.",
    ),
    "debate": LazyCommand(
        "icarus.debates.cli:app",
        "Live debates: create one, feed it a transcript, name its speakers, read its claims and answers.",
    ),
}


class LazyGroup(TyperGroup):
    """A typer group whose commands are imported on first use; help lists them from ``COMMANDS``."""

    lazy: dict[str, LazyCommand] = COMMANDS
    _listing = False  # true while the help page is written: a stub with the help line is enough then

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return [*super().list_commands(ctx), *self.lazy]

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        loaded = super().get_command(ctx, cmd_name)
        entry = self.lazy.get(cmd_name)
        if loaded is not None or entry is None:
            return loaded
        if self._listing:
            return TyperCommand(cmd_name, help=entry.help)
        command = entry.load(cmd_name)
        self.add_command(command, cmd_name)
        return command

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        # the "did you mean" suggestions read ``self.commands``: name the lazy ones there too
        try:
            return super().resolve_command(ctx, args)
        except _click.exceptions.UsageError as error:
            names = [name for name in self.list_commands(ctx) if name not in self.commands]
            if names and args and "Did you mean" not in error.message:
                from difflib import get_close_matches

                matches = get_close_matches(args[0], names)
                if matches:
                    suggestions = ", ".join(f"{m!r}" for m in matches)
                    error.message = f"{error.message.rstrip('.')}. Did you mean {suggestions}?"
            raise


app = typer.Typer(
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    help="Icarus: evidence review for factual claims.",
)


@app.callback()
def main() -> None:
    """Icarus: evidence review for factual claims."""


if __name__ == "__main__":  # pragma: no cover
    app()
