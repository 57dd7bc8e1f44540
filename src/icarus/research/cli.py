"""``icarus corpus``: build and search the local corpus from the command line.

The sub-app is mounted by ``icarus.cli``; the corpus file defaults to ``Settings().resolved_corpus_path``
(``ICARUS_CORPUS_PATH``, else ``<data_dir>/corpus.db``).
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from icarus.research.corpus import CorpusError, LocalCorpus
from icarus.settings import Settings

__all__ = ["corpus_app"]

corpus_app = typer.Typer(no_args_is_help=True, help="The local search corpus (SQLite FTS5, one file).")

_MAX_SKIPS_SHOWN = 50  # a folder of unsupported files should not bury the summary

CorpusOption = Annotated[
    Path | None,
    typer.Option("--corpus", help="Corpus file; default ICARUS_CORPUS_PATH or <data_dir>/corpus.db."),
]


def _err() -> Console:
    return Console(stderr=True)


def _fail(message: str, code: int = 2) -> None:
    # soft_wrap keeps a path on one line, so it can be read and grepped as written
    _err().print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)


def _corpus_path(corpus: Path | None) -> Path:
    return corpus if corpus is not None else Settings().resolved_corpus_path


@corpus_app.command("add")
def add(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders to index (folders recursively, skipping dotfiles and each folder's README)."
        ),
    ],
    corpus: CorpusOption = None,
) -> None:
    """Index HTML, PDF, text, Markdown, JSON Lines and WARC files. Re-adding the same content is a no-op."""
    path = _corpus_path(corpus)
    try:
        store = LocalCorpus(path)
    except CorpusError as exc:
        _fail(str(exc))
        return
    # Parser libraries log every damaged file as a warning; the skip list below already says so, once.
    for noisy in ("pypdf", "trafilatura", "htmldate"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    err = _err()
    with (
        store,
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        ) as bar,
    ):
        task = bar.add_task("Indexing", total=None)

        def progress(done: int, total: int, current: Path) -> None:
            bar.update(task, completed=done, total=total, description=f"Indexing {escape(current.name)}")

        report = store.add(paths, progress)
        total = len(store)
    for skipped_path, reason in report.skipped[:_MAX_SKIPS_SHOWN]:
        err.print(f"skipped {escape(str(skipped_path))}: {escape(reason)}", soft_wrap=True, highlight=False)
    if len(report.skipped) > _MAX_SKIPS_SHOWN:
        err.print(f"… and {len(report.skipped) - _MAX_SKIPS_SHOWN} more skipped", highlight=False)
    sys.stdout.write(
        f"{report.documents} new documents from {report.files} files "
        f"({report.duplicates} already indexed, {len(report.skipped)} skipped); "
        f"{total} documents in {path}\n"
    )
    if report.files == 0 and report.skipped:
        raise typer.Exit(1)


@corpus_app.command("search")
def search(
    query: Annotated[str, typer.Argument(help='Words to search for; "double quotes" keep a phrase.')],
    corpus: CorpusOption = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="Most hits to show.")] = 10,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print hits as JSON (full text left out; snippet kept).")
    ] = False,
) -> None:
    """Search the local corpus, best BM25 match first."""
    path = _corpus_path(corpus)
    if not path.is_file():
        _fail(f"no corpus at {path}; create one with `icarus corpus add PATH`")
    try:
        with LocalCorpus(path) as store:
            hits = store.search(query, limit)
    except CorpusError as exc:
        _fail(str(exc))
        return
    if as_json:
        payload = {
            "corpus": str(path),
            "query": query,
            "hits": [hit.model_dump(mode="json", exclude={"text"}) for hit in hits],
        }
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return
    if not hits:
        sys.stdout.write("No matches.\n")
        return
    table = Table(show_lines=True)
    for column in ("#", "score", "title / source", "snippet"):
        table.add_column(column, overflow="fold")
    for rank, hit in enumerate(hits, start=1):
        dated = hit.published_at.date().isoformat() if hit.published_at else "undated"
        source = (
            f"{escape(hit.title or '(untitled)')}\n[dim]{escape(hit.url)}\n{dated} · {hit.doc_id[:12]}[/dim]"
        )
        table.add_row(str(rank), f"{hit.score:.2f}", source, escape(hit.snippet))
    Console().print(table)
