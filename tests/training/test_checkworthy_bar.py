"""The bar-placement rule: lines the detector's filters drop never count, the bar keeps the budget in the
required share of test-sized samples, and the shipped bar moves by the fold models' optimism."""

from __future__ import annotations

from pathlib import Path

import pytest

from icarus_training.checkworthy_bar import bar_on_oof_scale, level_of, shipped_bar


def _transcript(scores: list[float], eligible: list[bool] | None = None) -> tuple[list[float], list[bool]]:
    return scores, eligible if eligible is not None else [True] * len(scores)


def test_the_bar_flags_exactly_the_budget_when_every_transcript_is_alike() -> None:
    scored = [_transcript([float(i) for i in range(20)]) for _ in range(5)]
    bar = bar_on_oof_scale(scored, budget=0.15, draws=50, size=3)
    # 3 of 20 lines (15 %) score 17 or more in every sample
    assert bar == 17.0


def test_lines_the_filters_drop_lower_the_bar() -> None:
    scores = [float(i) for i in range(20)]
    eligible = [i % 2 == 0 for i in range(20)]  # only even scores could be flagged
    scored = [_transcript(scores, eligible) for _ in range(5)]
    bar = bar_on_oof_scale(scored, budget=0.15, draws=50, size=3)
    assert bar == 14.0  # 14, 16, 18: three eligible lines of twenty


def test_the_budget_must_hold_in_the_confidence_share_of_samples() -> None:
    dense = _transcript([float(i) for i in range(20)])
    sparse = _transcript([float(i) for i in range(20)], [i >= 19 for i in range(20)])
    lenient = bar_on_oof_scale([dense, sparse], budget=0.15, draws=400, size=1, confidence=0.4)
    strict = bar_on_oof_scale([dense, sparse], budget=0.15, draws=400, size=1, confidence=0.9)
    # a sparse transcript alone can take any bar; the dense one needs 17 to stay within budget
    assert lenient < strict == 17.0


def test_nothing_eligible_is_an_error_and_an_unreachable_budget_flags_nothing() -> None:
    with pytest.raises(ValueError, match="no eligible line"):
        bar_on_oof_scale([_transcript([1.0], [False])], draws=10, size=1)
    bar = bar_on_oof_scale([_transcript([1.0, 2.0])], budget=0.0, draws=10, size=1)
    assert bar > 2.0


def test_the_level_is_the_share_below_the_bar() -> None:
    assert level_of([1.0, 2.0, 3.0, 4.0], 3.0) == 0.5
    assert level_of([], 1.0) == 0.0


def test_the_shipped_bar_takes_the_fold_models_optimism_off_the_shipped_quantile() -> None:
    # the fold models score their own lines 1 lower than unseen ones at the level
    inside = [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
    outside = [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    bar, optimism = shipped_bar(0.5, inside, outside, [10.0, 11.0, 12.0])
    assert optimism == pytest.approx(-1.0)
    assert bar == pytest.approx(12.0)
    with pytest.raises(ValueError, match="one in-sample and one out-of-fold"):
        shipped_bar(0.5, inside, outside[:1], [1.0])


def test_eligible_lines_are_those_the_detector_filters_let_through() -> None:
    from icarus.evaluation.checkthat import Line, Transcript
    from icarus_training.checkworthy_bar import eligible_lines

    transcript = Transcript(
        "t.tsv",
        (
            Line(1, "MODERATOR", "Thank you, Senator.", False),
            Line(2, "SMITH", "Unemployment fell to 4.1 percent in 2019.", True),
            Line(3, "MODERATOR", "What would you do about inflation?", False),
        ),
    )
    assert eligible_lines(transcript) == [False, True, False]


def test_shipping_writes_the_new_version_with_the_encoder_file_it_was_placed_for(tmp_path: Path) -> None:
    import json

    from icarus_training.checkworthy_bar import ENCODER_NAME, MODEL_VERSION, WEIGHTS_NAME, ship

    (tmp_path / f"{ENCODER_NAME}.json").write_text(json.dumps({"onnx_sha256": "ab" * 32}), encoding="utf-8")
    placed = {"bar": -3.0, "level": 0.85, "optimism": -0.1, "oof_bar": -2.9, "eligible_share": 0.7}
    record = ship(placed, tmp_path)
    written = json.loads((tmp_path / f"{WEIGHTS_NAME}.json").read_text(encoding="utf-8"))
    assert written == record
    assert record["version"] == MODEL_VERSION
    assert record["bar"] == -3.0
    assert record["encoder"] == ENCODER_NAME
    assert record["encoder_sha256"] == "ab" * 32
    assert record["placed"]["level"] == 0.85 and record["placed"]["budget"] == 0.15
