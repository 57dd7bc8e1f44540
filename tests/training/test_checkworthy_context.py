"""The neighbour-stacking rule: the features each candidate reads, leave-one-transcript-out that never
fits on the transcript it ranks, and a choice that needs both the minimum gain and most transcripts."""

from __future__ import annotations

import numpy as np
import pytest

from icarus.evaluation.checkthat import Line, Transcript
from icarus_training.checkworthy_context import MIN_GAIN, choose, line_features, loto_rankings, wins


def test_alone_reads_the_line_only() -> None:
    rows = line_features([1.0, 2.0], ["A", "B"], "alone", fill=0.0)
    assert rows.tolist() == [[1.0], [2.0]]


def test_previous_reads_the_line_before_and_whether_it_is_the_same_speaker() -> None:
    rows = line_features([1.0, 2.0, 3.0], ["A", "A", "B"], "previous", fill=-5.0)
    assert rows.tolist() == [
        [1.0, -5.0, 0.0, 0.0],  # no line before: the pooled mean stands in, not the same speaker
        [2.0, 1.0, 1.0, 1.0],
        [3.0, 2.0, 0.0, 0.0],
    ]


def test_neighbours_read_both_sides_and_the_last_line_has_no_next() -> None:
    rows = line_features([1.0, 2.0], ["A", "A"], "neighbours", fill=9.0)
    assert rows.tolist() == [[1.0, 9.0, 0.0, 0.0, 2.0, 1.0, 2.0], [2.0, 1.0, 1.0, 1.0, 9.0, 0.0, 0.0]]


def test_features_refuse_mismatched_lengths_and_unknown_candidates() -> None:
    with pytest.raises(ValueError, match="2 scores for 1 speakers"):
        line_features([1.0, 2.0], ["A"], "alone", fill=0.0)
    with pytest.raises(ValueError, match="unknown candidate"):
        line_features([1.0], ["A"], "both", fill=0.0)


def _transcript(name: str, labels: list[bool]) -> Transcript:
    return Transcript(name, tuple(Line(i + 1, "A", f"line {i}", label) for i, label in enumerate(labels)))


def test_leave_one_out_never_fits_on_the_transcript_it_ranks() -> None:
    # In every transcript but "odd" the line after a chosen line is chosen too; in "odd" it never is.
    rng = np.random.default_rng(0)
    transcripts, encoder = [], {}
    for k in range(6):
        labels = [bool(i % 10 in (3, 4)) for i in range(60)]
        z = [float(rng.normal(2.0 if i % 10 == 3 else 0.0, 0.3)) for i in range(60)]
        name = "odd" if k == 0 else f"t{k}"
        if name == "odd":
            labels = [bool(i % 10 == 3) for i in range(60)]
        transcripts.append(_transcript(name, labels))
        encoder[name] = (z, labels)
    ranked = loto_rankings(encoder, transcripts, "previous")
    assert set(ranked) == {t.name for t in transcripts}
    scores, _ = ranked["t1"]
    # learned from the others: a line after a high-scoring line ranks above an ordinary line
    assert scores[4] > scores[5]
    assert loto_rankings(encoder, transcripts, "alone")["t1"][0] == encoder["t1"][0]


def _rankings(aps: dict[str, float]) -> dict[str, tuple[list[float], list[bool]]]:
    # a transcript of one chosen line among n ranks it at 1/ap: average precision exactly ap
    out = {}
    for name, ap in aps.items():
        rank = round(1 / ap)
        out[name] = ([float(-i) for i in range(rank)], [i == rank - 1 for i in range(rank)])
    return out


def test_a_stacker_needs_the_minimum_gain_and_most_transcripts_to_replace_the_line_alone() -> None:
    alone = _rankings({"a": 0.25, "b": 0.25, "c": 0.25})
    # +0.083 on one transcript only: the mean gains enough but most transcripts do not
    one_big = _rankings({"a": 0.5, "b": 0.25, "c": 0.25})
    assert choose({"alone": alone, "previous": one_big}) == "alone"
    # better on two of three by more than the minimum
    two = _rankings({"a": 0.5, "b": 0.5, "c": 0.25})
    assert choose({"alone": alone, "previous": two}) == "previous"
    # neighbours must beat previous, not only the line alone
    assert choose({"alone": alone, "previous": two, "neighbours": two}) == "previous"
    assert choose({"alone": alone, "previous": alone, "neighbours": two}) == "neighbours"


def test_the_gain_test_at_its_boundaries() -> None:
    assert wins([MIN_GAIN, MIN_GAIN])  # exactly the minimum, on both transcripts
    assert not wins([MIN_GAIN * 0.99, MIN_GAIN * 0.99])
    assert not wins([0.05, -0.01])  # enough on average, but a gain on only half
    assert wins([0.05, 0.01, -0.01])  # two of three
    assert not wins([])
