"""The Markdown write-up of one evaluation run (``--out``), and the console table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from icarus.evaluation.blockers import blockers_markdown
from icarus.judges.sidecalls import side_calls_markdown

__all__ = ["HEADLINE", "console_table", "figure", "markdown", "percent"]

HEADLINE = (
    ("n", "n"),
    ("accuracy", "accuracy"),
    ("macro_f1", "macro-F1"),
    ("coverage", "coverage"),
    ("decided_precision", "decided precision"),
    ("unverifiable_rate", "❔ rate"),
    ("stance_macro_f1", "stance macro-F1"),
    ("retrieval_recall", "retrieval recall"),
    ("own_evidence_share", "own evidence share"),
    ("seconds_per_claim", "s / claim"),
    ("claim_seconds_p50", "s / claim (p50)"),
)


def percent(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    return f"{value:.3f}"


def figure(summary: Mapping[str, Any], key: str) -> str:
    """A headline figure, with its 90 % interval where the summary carries one (``KEY_interval``)."""
    interval = summary.get(f"{key}_interval")
    if not interval:
        return percent(summary.get(key))
    low, high = interval
    return f"{percent(summary.get(key))} [{low:.3f}, {high:.3f}]"


def console_table(summary: Mapping[str, Any]) -> Table:
    table = Table(title=f"{summary['dataset']} ({summary['selection']} of {summary['available']})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, title in HEADLINE:
        table.add_row(title, figure(summary, key))
    table.add_row("judge", str(summary["judge"]))
    table.add_row("policy", str(summary["policy"]))
    return table


def _matrix(matrix: Mapping[str, Mapping[str, int]]) -> list[str]:
    labels = list(matrix)
    lines = ["| gold \\ published | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    lines += [f"| {g} | " + " | ".join(str(matrix[g][p]) for p in labels) + " |" for g in labels]
    return lines


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{code} {n}" for code, n in counts.items()) or "none"


def _reputation_line(files: Sequence[str]) -> str:
    layered = "".join(f", then `{name}`" for name in files)
    return f"Reputation: the shipped records (manual and default registry){layered}."


def markdown(summary: Mapping[str, Any], plots: Sequence[Path]) -> str:
    lines = [
        f"# {summary['dataset']}: {summary['judge']}, {summary['policy']}",
        "",
        f"Data: `{summary['source']}`, {summary['selection']} of {summary['available']}.",
        "",
        _reputation_line(summary.get("reputation_files") or []),
        "",
        "| metric | value |",
        "|---|---|",
        *[f"| {title} | {figure(summary, key)} |" for key, title in HEADLINE],
        *(
            [f"| decided (right) | {summary['decided']} ({summary['decided_right']}) |"]
            if summary.get("claims")
            else []
        ),
        f"| judge failures | {summary['judge_failures']} |",
        "",
    ]
    if summary["confusion"]:
        lines += ["## Confusion (claims)", "", *_matrix(summary["confusion"]), ""]
        lines += ["## Per confidence band", "", "| band | claims | accuracy | decided | decided precision |"]
        lines.append("|---|---|---|---|---|")
        for band, row in summary["per_band"].items():
            lines.append(
                f"| {band} | {row['n']} | {percent(row['accuracy'])} | {row['decided']} | "
                f"{percent(row['decided_precision'])} |"
            )
        lines += ["", f"Rules fired: {_counts(summary['rules_fired'])}.", ""]
        lines += [f"Gates fired: {_counts(summary['gates_fired'])}.", ""]
    if summary.get("blockers"):
        lines += ["## Blockers", "", *blockers_markdown(summary["blockers"]), ""]
    if summary["stance_confusion"]:
        lines += [f"## Stance ({summary['stance_n']} pairs)", "", *_matrix(summary["stance_confusion"]), ""]
    if summary.get("side_calls"):
        lines += ["## Side calls by confidence", "", *side_calls_markdown(summary["side_calls"]), ""]
    lines += [f"![{path.stem}]({path.name})" for path in plots]
    return "\n".join(lines).rstrip() + "\n"
