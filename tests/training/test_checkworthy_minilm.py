"""The check-worthiness encoder's selection rule: folds by the split's hash order, the context a candidate
reads, the blend's standardisation and the choice that keeps the simpler model unless clearly beaten."""

from __future__ import annotations

import pytest

from icarus.evaluation.checkthat import Line, Part, Transcript, part_of
from icarus_training.checkworthy_minilm import (
    CANDIDATES,
    CHALLENGER,
    FOLDS,
    MIN_GAIN,
    blend,
    choose,
    context_of,
    folds,
)


def _transcript(name: str, n: int = 3) -> Transcript:
    return Transcript(name, tuple(Line(i + 1, f"S{i % 2}", f"line {i}", i == 0) for i in range(n)))


def test_folds_deal_the_pool_round_robin_in_the_split_hash_order() -> None:
    pool = [_transcript(f"debate-{k}.tsv") for k in range(15)]
    order = list(part_of(t.name for t in pool))
    dealt = folds(pool)
    assert len(dealt) == FOLDS
    assert [t.name for t in dealt[0]] == order[0::FOLDS]
    assert sorted(t.name for fold in dealt for t in fold) == sorted(t.name for t in pool)
    assert all(len(fold) == 5 for fold in dealt)


def test_the_split_parts_are_not_what_the_folds_follow() -> None:
    # the folds mix train and tune transcripts: the pool is re-dealt, not the parts reused
    pool = [_transcript(f"debate-{k}.tsv") for k in range(19)]
    parts = part_of(t.name for t in pool)
    kept = [t for t in pool if parts[t.name] is not Part.DEV]
    assert sum(len(fold) for fold in folds(kept)) == 15


def test_context_is_the_line_before_with_its_speaker_and_empty_at_the_start() -> None:
    transcript = _transcript("t.tsv")
    assert context_of(transcript, 0) == ""
    assert context_of(transcript, 2) == "S1: line 1"


def test_the_blend_sums_standardised_log_odds() -> None:
    lr = {"a": ([0.0, 2.0], [True, False])}
    minilm = {"a": ([10.0, 30.0], [True, False])}
    blended, scales = blend(lr, minilm)
    assert scales == {"lr": [1.0, 1.0], "minilm": [20.0, 10.0]}
    assert blended["a"][0] == pytest.approx([-2.0, 2.0])
    assert blended["a"][1] == [True, False]


def test_the_shipped_model_stays_unless_beaten_by_the_minimum_gain() -> None:
    assert choose({"lr": 0.20, "minilm": 0.20 + MIN_GAIN * 0.9}) == "lr"
    assert choose({"lr": 0.20, "minilm": 0.20 + MIN_GAIN}) == "minilm"
    assert choose({"lr": 0.25, "minilm": 0.20}) == "lr"


def test_a_tie_between_challengers_goes_to_the_earlier_candidate() -> None:
    maps = {"lr": 0.1, "minilm": 0.3, "minilm-context": 0.3, "blend": 0.3}
    assert choose(maps) == "minilm"
    assert choose({"lr": 0.1, "minilm": 0.3, "blend": 0.31}) == "blend"
    assert CANDIDATES[0] == "lr"


def test_the_recall_curve_counts_chosen_lines_in_the_flagged_top_share() -> None:
    from icarus_training.checkworthy_minilm import recall_curve

    rankings = [([0.9, 0.1, 0.5, 0.3], [True, False, False, True])]
    assert recall_curve(rankings, [0.0, 0.25, 0.5, 0.75, 1.0]) == [0.0, 0.5, 0.5, 1.0, 1.0]


def test_the_later_challenger_replaces_the_chosen_encoder_only_when_it_gains_the_minimum() -> None:
    maps = {"lr": 0.20, "minilm": 0.26, "blend": 0.24}
    assert choose({**maps, CHALLENGER: 0.26 + MIN_GAIN * 0.9}) == "minilm"
    assert choose({**maps, CHALLENGER: 0.26 + MIN_GAIN}) == CHALLENGER
    # it challenges the encoder only: where the logistic model stays, so does the choice
    assert choose({"lr": 0.26, "minilm": 0.25, CHALLENGER: 0.40}) == "lr"
