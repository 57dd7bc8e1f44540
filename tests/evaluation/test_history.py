"""The before-and-after table: earlier states from history.json beside the current reports."""

from __future__ import annotations

import json
from pathlib import Path

from icarus.evaluation import history


def _report(folder: Path, name: str, confusion: dict[str, dict[str, int]], judge: str = "judge@9") -> None:
    predicted: dict[str, int] = {}
    for row in confusion.values():
        for label, count in row.items():
            predicted[label] = predicted.get(label, 0) + count
    path = folder / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    claims = sum(predicted.values())
    path.write_text(
        json.dumps({"judge": judge, "claims": claims, "predicted_labels": predicted, "confusion": confusion})
    )


def test_current_tallies_count_decided_and_right_from_the_confusion(tmp_path: Path) -> None:
    _report(
        tmp_path,
        "averitec",
        {
            "supported": {"supported": 3, "not_supported": 1, "unverifiable": 6},
            "not_supported": {"supported": 0, "not_supported": 2, "unverifiable": 8},
            "unverifiable": {"supported": 1, "not_supported": 0, "unverifiable": 4},
        },
    )
    tallies = history.current_tallies(tmp_path)
    assert tallies["averitec"] == history.Tally(n=25, decided=7, right=5)
    assert tallies["scifact"] is None  # no report written


def test_markdown_puts_each_state_in_a_column_with_wilson_intervals(tmp_path: Path) -> None:
    _report(
        tmp_path,
        "averitec",
        {
            "supported": {"supported": 2, "unverifiable": 0},
            "unverifiable": {"supported": 0, "unverifiable": 2},
        },
    )
    (tmp_path / history.HISTORY_FILE).write_text(
        json.dumps(
            {
                "states": [
                    {
                        "commit": "abc1234",
                        "what": "then",
                        "sets": {"averitec": {"n": 4, "decided": 0, "right": 0}},
                    }
                ]
            }
        )
    )
    text = history.write(tmp_path).read_text()
    header = next(line for line in text.splitlines() if line.startswith("| set |"))
    assert "abc1234: then" in header and "now: `judge@9`" in header
    row = next(line for line in text.splitlines() if line.startswith("| AVeriTeC dev, gold evidence |"))
    then, now = row.split(" | ")[1:3]
    assert then.startswith("0 of 4; 0.000 [0.000,")
    # 2 of 4 decided, both right: coverage 0.5 and precision 1.0, each with its 90 % interval.
    assert now.startswith("2 (2); 0.500 [0.") and "1.000 [0.425, 1.000]" in now
    assert "| SciFact train, researched (seed 0) | (not measured) | (not measured) |" in text
