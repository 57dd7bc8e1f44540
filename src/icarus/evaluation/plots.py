"""Pictures of an evaluation: confusion matrices, a reliability plot and rule/gate firing counts (PNG).

Drawn with matplotlib's non-interactive backend from the summary ``EvalReport.summary`` returns, so a plot
shows exactly the numbers the JSON holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from icarus.judges.sidecalls import write_side_calls_plot

__all__ = ["write_plots"]

_DPI = 100
_METADATA = {"Software": None}  # no version string: the same numbers draw the same file


def _save(figure: Figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=_DPI, metadata=_METADATA)
    plt.close(figure)
    return path


def _confusion(
    matrix: Mapping[str, Mapping[str, int]], title: str, path: Path, answered: str = "published"
) -> Path:
    labels = list(matrix)
    values = [[matrix[g][p] for p in labels] for g in labels]
    figure, axes = plt.subplots(figsize=(5.2, 4.4))
    image = axes.imshow(values, cmap="Blues")
    axes.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    axes.set_yticks(range(len(labels)), labels)
    axes.set_xlabel(answered)
    axes.set_ylabel("gold")
    axes.set_title(title)
    top = max((v for row in values for v in row), default=0)
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            colour = "white" if top and value > top / 2 else "black"
            axes.text(j, i, str(value), ha="center", va="center", color=colour)
    figure.colorbar(image, ax=axes, fraction=0.046)
    return _save(figure, path)


def _reliability(summary: Mapping[str, Any], title: str, path: Path) -> Path:
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 4))
    bins: Sequence[Mapping[str, Any]] = summary["reliability"] or []
    shown = [b for b in bins if b["n"]]
    left.plot([0, 1], [0, 1], linestyle="--", color="grey", label="calibrated")
    if shown:
        left.plot(
            [b["mean_confidence"] for b in shown], [b["accuracy"] for b in shown], marker="o", label="decided"
        )
        for b in shown:
            left.annotate(str(b["n"]), (b["mean_confidence"], b["accuracy"]), fontsize=7)
    else:
        left.text(0.5, 0.5, "no decided claims", ha="center", va="center")
    left.set_xlim(0, 1)
    left.set_ylim(0, 1.05)
    left.set_xlabel("policy confidence score")
    left.set_ylabel("accuracy of decided claims")
    left.set_title("reliability (labels: claims per bin)")
    left.legend(loc="upper left", fontsize=8)

    bands: Mapping[str, Mapping[str, Any]] = summary["per_band"] or {}
    names = list(bands)
    accuracy = [bands[b]["accuracy"] or 0.0 for b in names]
    bars = right.bar(names, accuracy, color=["#2b8a3e", "#f59f00", "#868e96"][: len(names)])
    for bar, name in zip(bars, names, strict=True):
        right.annotate(
            f"n={bands[name]['n']}", (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center"
        )
    right.set_ylim(0, 1.05)
    right.set_ylabel("accuracy (4-way)")
    right.set_title("accuracy per confidence band")
    figure.suptitle(title)
    return _save(figure, path)


def _firing(summary: Mapping[str, Any], title: str, path: Path) -> Path:
    counts = {**summary["rules_fired"], **summary["gates_fired"]}
    names = sorted(counts, key=lambda code: (-counts[code], code))[:20]
    figure, axes = plt.subplots(figsize=(6, 0.35 * max(len(names), 3) + 1.2))
    colours = ["#c92a2a" if code in summary["gates_fired"] else "#1c7ed6" for code in names]
    axes.barh(names[::-1], [counts[c] for c in names][::-1], color=colours[::-1])
    axes.set_xlabel(f"claims (of {summary['claims']}) on which it fired")
    axes.set_title(f"{title}: rules (blue) and gates (red)")
    return _save(figure, path)


def _blockers(summary: Mapping[str, Any], title: str, path: Path) -> Path:
    groups: Mapping[str, Mapping[str, Any]] = summary["blockers"]
    codes = list(dict.fromkeys(code for group in groups.values() for code in group["codes"]))
    figure, axes = plt.subplots(figsize=(7, 0.45 * max(len(codes), 3) + 1.4))
    height = 0.4
    for offset, (group, colour) in enumerate(zip(groups, ("#868e96", "#f59f00"), strict=False)):
        counts = [groups[group]["codes"].get(code, 0) for code in codes]
        positions = [len(codes) - 1 - i + (0.5 - offset) * height for i in range(len(codes))]
        label = f"{group.replace('_', ' ')} (of {groups[group]['claims']})"
        bars = axes.barh(positions, counts, height=height, color=colour, label=label)
        axes.bar_label(bars, labels=[str(c) if c else "" for c in counts], padding=2, fontsize=7)
    axes.set_yticks(range(len(codes)), codes[::-1])
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.margins(x=0.08)  # room for the count written after each bar
    axes.set_xlabel("claims on which the blocker was listed")
    axes.set_title(f"{title}: blockers")
    if codes:
        axes.legend(loc="lower right", fontsize=8)
    else:
        axes.text(0.5, 0.5, "no claim held back", ha="center", va="center", transform=axes.transAxes)
    return _save(figure, path)


def write_plots(summary: Mapping[str, Any], folder: Path) -> list[Path]:
    """Write the set's PNGs into ``folder`` as ``NAME-*.png``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    name = str(summary["dataset"])
    title = f"{name} · {summary['judge']} · {summary['policy']} · n={summary['n']}"
    written: list[Path] = []
    if summary["confusion"]:
        written.append(_confusion(summary["confusion"], title, folder / f"{name}-confusion.png"))
        written.append(_reliability(summary, title, folder / f"{name}-reliability.png"))
        written.append(_firing(summary, name, folder / f"{name}-rules.png"))
        if summary.get("blockers"):
            written.append(_blockers(summary, name, folder / f"{name}-blockers.png"))
    if summary.get("side_calls"):
        written.append(
            write_side_calls_plot(
                {str(summary["judge"]): summary["side_calls"]},
                folder / f"{name}-side-calls.png",
                f"{name} side calls · {summary['judge']} · {summary['stance_n']} pairs",
            )
        )
    if summary["stance_confusion"]:
        written.append(
            _confusion(
                summary["stance_confusion"],
                f"{name} stance · {summary['judge']}",
                folder / f"{name}-stance.png",
            )
        )
    return written
