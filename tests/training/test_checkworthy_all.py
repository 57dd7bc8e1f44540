"""Refitting on all 19 transcripts: every line gets an out-of-fold score from a model that never saw it,
each fold model also scores its own lines for the bar's optimism, and the record says no transcript is
held apart."""

from __future__ import annotations

from typing import Any

import pytest

from icarus.evaluation.checkthat import Line, Transcript
from icarus_training import checkworthy_all
from icarus_training.checkworthy_minilm import FOLDS


def _transcript(name: str, n: int) -> Transcript:
    return Transcript(name, tuple(Line(i + 1, "A", f"{name} line {i}", i == 0) for i in range(n)))


def test_every_line_is_scored_by_a_fold_model_that_never_saw_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = [_transcript(f"t{k}.tsv", 3 + k) for k in range(7)]
    seen_by: list[set[str]] = []

    def fine_tune(
        examples: list[tuple[str, Any]], _labels: Any, _console: Any, _seed: int
    ) -> tuple[Any, Any]:
        texts = {text for text, _ in examples}
        seen_by.append(texts)
        return texts, None

    def log_odds(model: set[str], _encoder: Any, examples: list[tuple[str, Any]]) -> list[float]:
        # 1 for a line the model was fitted on, 0 for one it never saw
        return [1.0 if text in model else 0.0 for text, _ in examples]

    monkeypatch.setattr(checkworthy_all, "_fine_tune", fine_tune)
    monkeypatch.setattr(checkworthy_all, "_torch_log_odds", log_odds)
    oof, inside, outside = checkworthy_all.out_of_fold_and_in_sample(pool, console=None)
    assert len(seen_by) == len(inside) == len(outside) == FOLDS
    assert set(oof) == {t.name for t in pool}
    for t in pool:
        scores, labels = oof[t.name]
        assert scores == [0.0] * len(t.lines)  # out of fold: never seen
        assert labels == [line.check_worthy for line in t.lines]
    assert all(set(scores) == {1.0} for scores in inside)  # in sample: every line seen
    assert sum(len(s) for s in outside) == sum(len(t.lines) for t in pool)


def test_the_record_page_says_its_figures_are_out_of_fold() -> None:
    record = {
        "out_of_fold": {"lines": 10, "check_worthy": 2, "map": 0.25, "recall": 0.5},
        "in_sample_int8_map": 0.6,
        "detector_out_of_fold": {"recall": 0.45, "flagged_share": 0.12},
        "shipped": {
            "bar": -2.8,
            "placed": {"eligible_share": 0.75, "oof_bar": -2.7, "level": 0.84, "optimism": -0.09},
        },
    }
    page = checkworthy_all.render(record)
    assert "No transcript is held apart" in page
    assert "| MAP | 0.250 |" in page
    assert "| shipped bar (log-odds) | -2.800 |" in page
    assert "| the detector at the bar: recall, lines flagged | 0.450, 12.0% |" in page
