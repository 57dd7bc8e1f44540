"""Side calls by confidence, written up: a Markdown table and a plot of ``metrics.side_calls`` tables.

The policy needs a judge's side calls to be right more than it needs many of them: a wrong confident refute
makes a false ⚠️ or ❌. So for each side, and each confidence floor below which a call would be read as
neutral, the table gives the calls made, their precision and their recall. ``icarus judge eval`` writes one
table per judge and set; ``icarus eval`` one per set with labelled stance pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from icarus.judges.metrics import SIDES

__all__ = ["side_calls_markdown", "write_side_calls_plot"]


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def side_calls_markdown(table: Mapping[str, Any]) -> list[str]:
    """Markdown lines: one row per confidence floor, calls / precision / recall for support then refute."""
    gold = table["gold"]
    lines = [
        f"| confidence ≥ | support calls | support precision | support recall (of {gold['support']}) "
        f"| refute calls | refute precision | refute recall (of {gold['refute']}) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for support, refute in zip(table["support"], table["refute"], strict=True):
        lines.append(
            f"| {support['threshold']:.2f} | {support['calls']} | {_ratio(support['precision'])} | "
            f"{_ratio(support['recall'])} | {refute['calls']} | {_ratio(refute['precision'])} | "
            f"{_ratio(refute['recall'])} |"
        )
    return lines


def write_side_calls_plot(tables: Mapping[str, Mapping[str, Any]], path: Path, title: str) -> Path:
    """Precision (solid) and recall (dashed) against the confidence floor, one panel per side, one colour
    per table (``tables``: label → ``metrics.side_calls`` table)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, panels = plt.subplots(1, len(SIDES), figsize=(10, 4), sharey=True)
    for side, axes in zip(SIDES, panels, strict=True):
        for n, (label, table) in enumerate(tables.items()):
            rows = [row for row in table[side] if row["threshold"] > 0]
            colour = f"C{n % 10}"
            shown = [row for row in rows if row["precision"] is not None]
            axes.plot(
                [row["threshold"] for row in shown],
                [row["precision"] for row in shown],
                marker="o",
                color=colour,
                label=f"{label} precision",
            )
            axes.plot(
                [row["threshold"] for row in rows],
                [row["recall"] or 0.0 for row in rows],
                linestyle="--",
                color=colour,
                label=f"{label} recall",
            )
        axes.axhline(0.9, color="grey", linewidth=0.8, linestyle=":")
        axes.set_xlim(0.48, 0.97)
        axes.set_ylim(0, 1.02)
        axes.set_xlabel("confidence floor")
        axes.set_title(f"{side} calls")
    panels[0].set_ylabel("precision (solid), recall (dashed)")
    panels[-1].legend(loc="lower left", fontsize=7)
    figure.suptitle(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(figure)
    return path
