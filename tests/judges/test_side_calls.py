"""Side calls by confidence: each side's calls, precision and recall at each confidence floor, in the
numbers (``metrics.side_calls``) and in what ``icarus judge eval`` writes (JSON, Markdown, a plot)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.judges.metrics import SIDE_CALL_THRESHOLDS, side_calls
from icarus.judges.sidecalls import side_calls_markdown
from tests.judges.conftest import FakeServer, asked_evidence_id, stance_answer
from tests.judges.stance_files import write_climate_fever

runner = CliRunner()


def _row(table: dict[str, object], side: str, floor: str) -> dict[str, object]:
    rows = table[side]
    assert isinstance(rows, list)
    return next(row for row in rows if row["threshold"] == float(Decimal(floor)))


def test_the_floors_are_every_call_then_every_twentieth_from_half() -> None:
    assert [str(t) for t in SIDE_CALL_THRESHOLDS] == [
        "0.00", "0.50", "0.55", "0.60", "0.65", "0.70", "0.75", "0.80", "0.85", "0.90", "0.95"
    ]  # fmt: skip


def test_a_call_at_the_floor_counts_and_one_a_hundredth_under_does_not() -> None:
    table = side_calls(["support", "support"], ["support", "support"], [Decimal("0.70"), Decimal("0.69")])
    assert _row(table, "support", "0.70") == {
        "threshold": 0.7, "calls": 1, "right": 1, "precision": 1.0, "recall": 0.5
    }  # fmt: skip
    assert _row(table, "support", "0.65")["calls"] == 2


def test_floats_are_compared_as_the_decimals_they_print_as() -> None:
    table = side_calls(["refute"], ["refute"], [0.6])  # 0.6 as a float is a hair under 6/10
    assert _row(table, "refute", "0.60")["calls"] == 1


def test_each_side_is_scored_on_its_own() -> None:
    gold = ["support", "refute", "neutral", "refute", "support"]
    predicted = ["support", "support", "refute", "refute", "neutral"]
    table = side_calls(
        gold, predicted, [Decimal("0.9"), Decimal("0.8"), Decimal("0.95"), Decimal("0.5"), 0.99]
    )
    assert table["gold"] == {"support": 2, "refute": 2}
    assert _row(table, "support", "0.00") == {
        "threshold": 0.0, "calls": 2, "right": 1, "precision": 0.5, "recall": 0.5
    }  # fmt: skip
    assert _row(table, "support", "0.85") == {
        "threshold": 0.85, "calls": 1, "right": 1, "precision": 1.0, "recall": 0.5
    }  # fmt: skip
    # the neutral answer at 0.99 is no call at all; the wrong refute at 0.95 outlasts the right one at 0.50
    assert _row(table, "refute", "0.50") == {
        "threshold": 0.5, "calls": 2, "right": 1, "precision": 0.5, "recall": 0.5
    }  # fmt: skip
    assert _row(table, "refute", "0.55") == {
        "threshold": 0.55, "calls": 1, "right": 0, "precision": 0.0, "recall": 0.0
    }  # fmt: skip


def test_no_calls_has_no_precision_and_no_gold_side_has_no_recall() -> None:
    table = side_calls(["neutral"], ["neutral"], [Decimal("0.9")])
    row = _row(table, "support", "0.50")
    assert row["calls"] == 0 and row["precision"] is None and row["recall"] is None


def test_answers_that_do_not_pair_up_are_refused() -> None:
    with pytest.raises(ValueError, match="pair up"):
        side_calls(["support"], ["support"], [])


def test_the_markdown_table_has_a_row_per_floor() -> None:
    lines = side_calls_markdown(side_calls(["support"], ["support"], [Decimal("0.8")]))
    assert lines[0].startswith("| confidence ≥ | support calls | support precision | support recall (of 1)")
    assert len(lines) == 2 + len(SIDE_CALL_THRESHOLDS)
    assert lines[2] == "| 0.00 | 1 | 1.000 | 1.000 | 0 | – | – |"


def test_judge_eval_writes_side_calls_as_json_markdown_and_a_plot(
    fake_llm: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("ICARUS_LLM_MODEL", "fake-model")
    root = write_climate_fever(tmp_path / "data")
    # gold: support, refute, neutral, support, refute, neutral
    answers = {
        0: ("support", 0.9),
        1: ("refute", 0.6),
        2: ("neutral", 0.8),
        3: ("support", 0.5),
        4: ("support", 0.7),  # wrong
        5: ("neutral", 0.8),
    }

    def answer(request: dict[str, object]) -> dict[str, object]:
        n = int(asked_evidence_id(request).removeprefix("e"))
        stance, confidence = answers[n]
        return stance_answer(f"e{n}", stance, confidence=confidence)

    fake_llm.answer = answer
    out = tmp_path / "out"
    args = ["judge", "eval", "--judge", "openai-compatible@1", "--data", str(root), "--set", "climate-fever"]
    result = runner.invoke(app, [*args, "--split", "all", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)["judges"][0]["sets"]["climate-fever"]["side_calls"]
    assert table["gold"] == {"support": 2, "refute": 2}
    assert _row(table, "support", "0.50")["calls"] == 3
    assert _row(table, "support", "0.55") == {
        "threshold": 0.55, "calls": 2, "right": 1, "precision": 0.5, "recall": 0.5
    }  # fmt: skip
    assert _row(table, "support", "0.75")["precision"] == 1.0
    assert _row(table, "refute", "0.60")["calls"] == 1 and _row(table, "refute", "0.65")["calls"] == 0
    markdown = (out / "judges.md").read_text()
    assert "## Side calls by confidence" in markdown and "| 0.55 | 2 | 0.500 | 0.500 |" in markdown
    assert (out / "side-calls-climate-fever.png").read_bytes().startswith(b"\x89PNG")
