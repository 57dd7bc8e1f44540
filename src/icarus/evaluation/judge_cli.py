"""``icarus judge eval``: measure registered judges side by side on the labelled stance sets.

Every judge sees the same pairs (same sets, same split) in the same run. ``--out`` writes the numbers as
JSON, a Markdown comparison table, a reliability plot (PNG), and per set the side calls by confidence
(a Markdown table per judge, a plot with every judge: ``side-calls-SET.png``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from icarus.evaluation.stance_judges import JudgeReport, evaluate
from icarus.evaluation.stancesets import (
    HELD_OUT_READERS,
    READERS,
    Split,
    StanceSetError,
    load_pairs,
    load_pairs_file,
)
from icarus.judges.registry import DEFAULT_OFFLINE_JUDGE, JudgeConfigError, create_judge
from icarus.judges.sidecalls import side_calls_markdown, write_side_calls_plot
from icarus.settings import Settings

__all__ = ["comparison_markdown", "judge_app", "write_reliability_plot", "write_side_call_plots"]

judge_app = typer.Typer(help="Measure stance judges on labelled public data.", no_args_is_help=True)

_err = Console(stderr=True)
DEFAULT_SETS = ("climate-fever", "scifact")


def _fail(message: str) -> None:
    _err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def comparison_markdown(reports: list[JudgeReport], split: str) -> str:
    """One row per judge and set: macro-F1, accuracy, ECE; then hops, scope and speed per judge."""
    lines = [
        f"| judge | set ({split}) | pairs | macro-F1 | accuracy | ECE |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for report in reports:
        for name, scores in report.sets.items():
            lines.append(
                f"| `{report.judge}` | {name} | {scores['n']} | {scores['macro_f1']:.3f} | "
                f"{scores['accuracy']:.3f} | {scores['ece']:.3f} |"
            )
    lines += [
        "",
        "| judge | pairs/s | sided pairs over the hop limit | WiCE mean hops (supported / partial) | "
        "scope: swaps detected | scope: false alarms on support |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for report in reports:
        wice = report.hops.get("wice_mean_hops", {})
        wice_text = f"{wice.get('supported', '–')} / {wice.get('partially_supported', '–')}" if wice else "–"
        scope = report.scope
        detection = (
            "–"
            if scope.get("detection_rate") is None
            else f"{scope['detection_rate']:.3f} (n={scope['swapped_pairs']})"
        )
        false_rate = (
            "–" if scope.get("false_mismatch_rate") is None else f"{scope['false_mismatch_rate']:.3f}"
        )
        over = report.hops.get("sided_over_limit_rate")
        lines.append(
            f"| `{report.judge}` | {report.pairs_per_second:.0f} | {'–' if over is None else f'{over:.3f}'} | "
            f"{wice_text} | {detection} | {false_rate} |"
        )
    lines += ["", "## Side calls by confidence", ""]
    for report in reports:
        for name, scores in report.sets.items():
            lines += [f"### `{report.judge}` on {name} ({split}, {scores['n']} pairs)", ""]
            lines += [*side_calls_markdown(scores["side_calls"]), ""]
    return "\n".join(lines).rstrip() + "\n"


def write_side_call_plots(reports: list[JudgeReport], folder: Path) -> list[Path]:
    """One ``side-calls-SET.png`` per set: precision and recall by confidence floor, one colour per judge."""
    names = list(dict.fromkeys(name for report in reports for name in report.sets))
    written = []
    for name in names:
        tables = {r.judge: r.sets[name]["side_calls"] for r in reports if name in r.sets}
        written.append(
            write_side_calls_plot(tables, folder / f"side-calls-{name}.png", f"side calls: {name}")
        )
    return written


def write_reliability_plot(reports: list[JudgeReport], path: Path) -> Path:
    """Stated confidence against accuracy, one line per judge, with the diagonal a calibrated judge follows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5.5, 5))
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", label="calibrated")
    for report in reports:
        shown = [b for b in report.reliability if b["n"]]
        ece = report.overall.get("ece", 0.0)
        axes.plot(
            [b["confidence"] for b in shown],
            [b["accuracy"] for b in shown],
            marker="o",
            label=f"{report.judge} (ECE {ece:.3f})",
        )
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("stated confidence")
    axes.set_ylabel("share of stances right")
    axes.set_title("Stance judges: reliability")
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(figure)
    return path


def _table(reports: list[JudgeReport]) -> Table:
    table = Table(title="stance judges")
    for column in ("judge", "set", "pairs", "macro-F1", "accuracy", "ECE"):
        table.add_column(column, justify="left" if column in ("judge", "set") else "right")
    for report in reports:
        for name, scores in report.sets.items():
            table.add_row(
                report.judge,
                name,
                str(scores["n"]),
                f"{scores['macro_f1']:.3f}",
                f"{scores['accuracy']:.3f}",
                f"{scores['ece']:.3f}",
            )
    return table


@judge_app.command("eval")
def eval_judges(
    data: Annotated[
        Path | None, typer.Option("--data", help="Folder holding the public datasets (needed for --set).")
    ] = None,
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge", help=f"A registered judge name@version (repeatable; default {DEFAULT_OFFLINE_JUDGE})."
        ),
    ] = None,
    stance_set: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help=f"Stance set (repeatable): {', '.join(READERS)}; held out from training: "
            f"{', '.join(HELD_OUT_READERS)} (validation = its tune half, test = its dev half). "
            "Default: climate-fever, scifact.",
        ),
    ] = None,
    pairs_file: Annotated[
        list[Path] | None,
        typer.Option(
            "--pairs",
            help="Your own labelled pairs, JSON Lines of {claim, passage, label} (repeatable; read whole, "
            "no split). Without --set, only these are judged.",
        ),
    ] = None,
    split: Annotated[Split, typer.Option("--split", help="Which split of each set.")] = Split.TEST,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N pairs of each set.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Also write judges.json, judges.md, reliability.png and side-calls-SET.png here.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the numbers as one JSON object.")] = False,
) -> None:
    """Judge the same labelled pairs with each judge and compare stance, calibration, hops and scope."""
    names = judge or [DEFAULT_OFFLINE_JUDGE]
    files = pairs_file or []
    sets = stance_set or ([] if files else list(DEFAULT_SETS))
    if sets and data is None:
        _fail("--data is needed to read the stance sets (or give only --pairs files)")
        return
    try:
        judges = [(name, create_judge(name, Settings())) for name in names]
        pairs = [pair for name in sets for pair in load_pairs(name, data or Path(), split)[:limit]]
        pairs += [pair for path in files for pair in load_pairs_file(path)[:limit]]
    except (JudgeConfigError, StanceSetError) as exc:
        _fail(str(exc))
        return
    except OSError as exc:
        _fail(f"cannot read {data}: {exc.strerror or exc}")
        return
    reports = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=_err, transient=True) as progress:
        for name, instance in judges:
            task = progress.add_task(name, total=len(pairs))

            def advance(task_id: TaskID = task) -> None:
                progress.advance(task_id)

            reports.append(evaluate(name, instance, pairs, advance=advance))
    result: dict[str, Any] = {
        "split": split.value,
        "sets": sets + [path.stem for path in files],
        "judges": [r.to_json() for r in reports],
    }
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "judges.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
            (out / "judges.md").write_text(comparison_markdown(reports, split.value), encoding="utf-8")
            write_reliability_plot(reports, out / "reliability.png")
            write_side_call_plots(reports, out)
        except OSError as exc:
            _fail(f"cannot write to {out}: {exc.strerror or exc}")
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    else:
        Console().print(_table(reports))
