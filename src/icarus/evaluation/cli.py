"""``icarus eval NAME --data PATH``: measure the engine on a public dataset."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from icarus.judges import Judge
from icarus.judges.registry import OFFLINE_JUDGE
from icarus.scoring.icarus.config import DEFAULT_POLICY

__all__ = ["LOADERS", "eval_command"]

LOADERS: Mapping[str, str] = MappingProxyType(
    {
        "climate-fever": "icarus.evaluation.climate_fever",
        "averitec": "icarus.evaluation.averitec",
        "scifact": "icarus.evaluation.scifact",
        "healthver": "icarus.evaluation.healthver",
        "wice": "icarus.evaluation.wice",
        "fnc-1": "icarus.evaluation.fnc1",
    }
)
"""Every dataset ``icarus eval`` reads, name → loader module (imported when used: the scoring stack is
heavy, and other commands should not pay for it)."""

AVERITEC_OPTIONS_SETS = ("averitec",)
"""The sets that take ``--retrieval``."""

SPLIT_SETS = ("averitec", "scifact", "climate-fever")
"""The sets that take ``--split``: the verdict sets a default judge is chosen on (``cases.half_of``)."""

_err = Console(stderr=True)


def _fail(message: str) -> None:
    _err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def eval_command(
    name: Annotated[str, typer.Argument(help=f"Dataset: {', '.join(LOADERS)}.")],
    data: Annotated[Path, typer.Option("--data", help="The dataset's folder or main file.")],
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Evaluate only N claims (stance-only sets: N pairs).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="With --limit: draw the N at random with this seed.")
    ] = None,
    policy: Annotated[str, typer.Option("--policy", help="Policy name@version.")] = DEFAULT_POLICY,
    judge: Annotated[
        str,
        typer.Option(
            "--judge", help="A registered judge name@version, or gold-labels@1 (the dataset's own stances)."
        ),
    ] = OFFLINE_JUDGE,
    reputation: Annotated[
        list[Path] | None,
        typer.Option("--reputation", help="JSON file of reputation records on file (repeatable)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write NAME.md, NAME.json and PNG plots here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as one JSON object.")] = False,
    review_queue: Annotated[
        Path | None,
        typer.Option(
            "--review-queue",
            help="Also queue the scored claims' H4 review requests in this queue file (off by default).",
        ),
    ] = None,
    split: Annotated[
        str,
        typer.Option(
            "--split",
            help="averitec, scifact, climate-fever: which half of the claims, tune (for choosing a judge or "
            "its thresholds), dev or all.",
        ),
    ] = "all",
    retrieval: Annotated[
        str,
        typer.Option(
            "--retrieval",
            help="averitec: gold (the annotators' answers are the evidence) or open (every answer of the "
            "split pooled into one corpus, each claim checked by the check's own research).",
        ),
    ] = "gold",
) -> None:
    """Score a public dataset's claims (or judge its stance pairs) and report the metrics."""
    module = LOADERS.get(name)
    if module is None:
        _fail(f"unknown dataset {name!r}; known: {', '.join(LOADERS)}")
        return
    if seed is not None and limit is None:
        _fail("--seed draws a sample, so it needs --limit")
    options: dict[str, str] = {}
    if split != "all":
        if name not in SPLIT_SETS:
            _fail(f"--split is an option of {', '.join(SPLIT_SETS)} only")
        options["split"] = split
    if retrieval != "gold":
        if name not in AVERITEC_OPTIONS_SETS:
            _fail(f"--retrieval is an option of {', '.join(AVERITEC_OPTIONS_SETS)} only")
        options["retrieval"] = retrieval
    from icarus.evaluation.cases import DatasetError, EvalSet
    from icarus.evaluation.gold_judge import GOLD_JUDGE, gold_label_judge
    from icarus.evaluation.report import console_table
    from icarus.evaluation.runner import run_evaluation
    from icarus.judges.registry import JudgeConfigError, create_judge
    from icarus.reputation.manual import default_registry
    from icarus.reputation.registry import RegistryFileError
    from icarus.scoring.icarus.config import UnknownPolicyError, load_policy
    from icarus.settings import Settings

    try:
        config = load_policy(policy)
        loader = importlib.import_module(module).load
        evalset: EvalSet = loader(data, limit, seed, **options)
        if not evalset.cases and not evalset.stance_pairs:
            # Most likely the wrong file: a report of nothing would read as a result.
            raise DatasetError(f"{evalset.source}: no claims or pairs to evaluate")
        registry = default_registry(*(reputation or []))
        if judge == GOLD_JUDGE:
            stance_judge: Judge = gold_label_judge(evalset)
        else:
            stance_judge = _build_judge(create_judge, judge, Settings())
    except (UnknownPolicyError, JudgeConfigError, RegistryFileError, DatasetError) as exc:
        _fail(str(exc))
        return
    except OSError as exc:
        _fail(f"cannot read {data}: {exc.strerror or exc}")
        return
    if review_queue is not None:
        try:  # found out now, not after the evaluation has run
            review_queue.parent.mkdir(parents=True, exist_ok=True)
            review_queue.open("a").close()
        except OSError as exc:
            _fail(f"cannot write the review queue {review_queue}: {exc.strerror or exc}")
    total = len(evalset.cases) + len(evalset.stance_pairs)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=_err, transient=True) as progress:
        task = progress.add_task(f"{name}: scoring", total=total)
        report = run_evaluation(
            evalset,
            stance_judge,
            judge,
            config,
            registry,
            advance=lambda: progress.advance(task),
            review_queue=review_queue,
        )
    summary = report.summary()
    # The reputation layered on the shipped records changes what is on file, so a report names it.
    summary["reputation_files"] = [path.name for path in reputation or []]
    if out is not None:
        _write(summary, out)
    if as_json:
        sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    else:
        Console().print(console_table(summary))


def _build_judge(create: Callable[[str, Any], Judge], name: str, settings: Any) -> Judge:
    """The registered judge ``name``; a judge that cannot be built (no weights, no endpoint) is a clear
    error, whatever went wrong inside its factory."""
    from icarus.judges.registry import JudgeConfigError

    try:
        return create(name, settings)
    except JudgeConfigError:
        raise
    except Exception as exc:  # a factory's own failure, reported as the judge not being available
        raise JudgeConfigError(f"judge {name} could not be built: {exc}") from exc


def _write(summary: Mapping[str, Any], folder: Path) -> None:
    from icarus.evaluation.plots import write_plots
    from icarus.evaluation.report import markdown

    try:
        plots = write_plots(summary, folder)
        name = summary["dataset"]
        (folder / f"{name}.json").write_text(
            json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
        (folder / f"{name}.md").write_text(markdown(summary, plots), encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write to {folder}: {exc.strerror or exc}")
