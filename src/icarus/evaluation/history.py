"""Before and after: the decided claims of earlier states beside the current reports, with intervals.

``docs/evaluation/history.json`` records what earlier commits decided on each set (measured with the same
``make eval`` commands then); the current column is read from the ``NAME.json`` reports that ``make eval``
has just written beside it. Every share carries its 90 % Wilson interval (``metrics.wilson_interval``),
because most of these counts are small enough that a bare precision says little.

    python -m icarus.evaluation.history docs/evaluation      # writes docs/evaluation/before-after.md
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icarus.evaluation.metrics import wilson_interval

__all__ = ["SETS", "Tally", "current_tallies", "markdown", "write"]

HISTORY_FILE = "history.json"
OUTPUT_FILE = "before-after.md"
# Report name under the evaluation folder → how the table names the set.
SETS: Mapping[str, str] = {
    "averitec": "AVeriTeC dev, gold evidence",
    "averitec-open": "AVeriTeC dev, open retrieval",
    "climate-fever": "Climate-FEVER",
    "scifact": "SciFact train, researched (seed 0)",
    "ceiling/averitec": "AVeriTeC ceiling (`gold-labels@1`, gold evidence)",
}


@dataclass(frozen=True)
class Tally:
    """What one state decided on one set: claims, decided claims, right ones among them."""

    n: int
    decided: int
    right: int

    def cell(self) -> str:
        """'decided (right); coverage [interval]; precision [interval]', or a dash where nothing was decided."""
        coverage = _share(self.decided, self.n)
        if not self.decided:
            return f"0 of {self.n}; {coverage}"
        return f"{self.decided} ({self.right}); {coverage}; {_share(self.right, self.decided)}"


def _share(part: int, whole: int) -> str:
    interval = wilson_interval(part, whole)
    if interval is None:
        return "–"
    low, high = interval
    return f"{part / whole:.3f} [{low:.3f}, {high:.3f}]"


def current_tallies(folder: Path) -> dict[str, Tally | None]:
    """The tallies of the reports in ``folder`` (``None`` for a set whose report is missing)."""
    tallies: dict[str, Tally | None] = {}
    for name in SETS:
        path = folder / f"{name}.json"
        if not path.is_file():
            tallies[name] = None
            continue
        report = json.loads(path.read_text(encoding="utf-8"))
        predicted: Mapping[str, int] = report["predicted_labels"]
        decided = sum(count for label, count in predicted.items() if label != "unverifiable")
        right = sum(row[label] for label, row in report["confusion"].items() if label != "unverifiable")
        tallies[name] = Tally(n=report["claims"], decided=decided, right=right)
    return tallies


def _cell(tally: Tally | None) -> str:
    return tally.cell() if tally else "(not measured)"


def _state_tallies(state: Mapping[str, Any]) -> dict[str, Tally | None]:
    return {name: Tally(**state["sets"][name]) if state["sets"].get(name) else None for name in SETS}


def markdown(states: Sequence[Mapping[str, Any]], now: Mapping[str, Tally | None], judge: str) -> str:
    """One row per set, one column per state; the last column is the current reports."""
    columns = [(f"{s['commit']}: {s['what']}", _state_tallies(s)) for s in states]
    columns.append((f"now: `{judge}`", dict(now)))
    lines = [
        "# Before and after",
        "",
        "Each cell: decided claims (right ones among them); coverage, then decided precision, each with its",
        "90 % Wilson interval. Written by `python -m icarus.evaluation.history` at the end of `make eval`;",
        f"the earlier states are recorded in `{HISTORY_FILE}`.",
        "",
        "| set | " + " | ".join(title for title, _ in columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    for name, label in SETS.items():
        cells = [_cell(tallies.get(name)) for _, tallies in columns]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(folder: Path) -> Path:
    """Render ``before-after.md`` in ``folder`` from its ``history.json`` and current reports."""
    history = json.loads((folder / HISTORY_FILE).read_text(encoding="utf-8"))
    judge = json.loads((folder / "averitec.json").read_text(encoding="utf-8"))["judge"]
    out = folder / OUTPUT_FILE
    out.write_text(markdown(history["states"], current_tallies(folder), judge), encoding="utf-8")
    return out


if __name__ == "__main__":
    print(write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/evaluation")))
