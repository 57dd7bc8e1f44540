"""The echoes measurement: a line's highest cosine with a same-speaker and an other-speaker line, short lines
never taking part, and the stacker scored by leaving each transcript out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from icarus.evaluation.checkthat import Line, Transcript
from icarus_training.checkworthy_echoes import MIN_WORDS, echo_features, loto_echoes

_VECTORS = {
    "alpha": [1.0, 0.0, 0.0],
    "beta": [0.8, 0.6, 0.0],
    "gamma": [0.0, 0.0, 1.0],
}


def _embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    """Each text's first word picks its vector: cosine(alpha, beta) is 0.8, gamma is orthogonal."""
    return np.asarray([_VECTORS[text.split()[0]] for text in texts], dtype=np.float32)


def _long(word: str) -> str:
    return " ".join([word] + ["words"] * MIN_WORDS)


def test_the_same_and_the_other_speakers_echoes_are_kept_apart() -> None:
    texts = [_long("alpha"), _long("beta"), _long("gamma"), _long("alpha")]
    speakers = ["A", "B", "B", "A"]
    features = echo_features(texts, speakers, _embed)
    assert features[0] == pytest.approx([1.0, 0.8])  # its own repeat; the other side's beta
    assert features[1] == pytest.approx([0.0, 0.8])  # B's gamma is orthogonal; A's alphas at 0.8
    assert features[2] == pytest.approx([0.0, 0.0])


def test_short_lines_take_no_part_and_a_line_with_no_partner_takes_zero() -> None:
    texts = ["alpha", _long("alpha"), _long("beta")]
    features = echo_features(texts, ["A", "A", "B"], _embed)
    assert features[0] == pytest.approx([0.0, 0.0])  # too short to echo or be echoed
    assert features[1] == pytest.approx([0.0, 0.8])  # the short repeat does not count
    assert echo_features([_long("alpha")], ["A"], _embed).tolist() == [[0.0, 0.0]]
    with pytest.raises(ValueError, match="1 lines for 2 speakers"):
        echo_features(["x"], ["A", "B"], _embed)


def test_each_transcript_is_ranked_by_a_stacker_that_never_saw_it() -> None:
    def transcript(name: str) -> Transcript:
        texts = [_long("alpha"), _long("alpha"), _long("gamma"), _long("beta")]
        return Transcript(
            name, tuple(Line(n, "A" if n < 3 else "B", text, n < 3) for n, text in enumerate(texts, start=1))
        )

    pool = [transcript("t1"), transcript("t2"), transcript("t3")]
    oof = {t.name: [0.0, 0.0, 0.0, 0.0] for t in pool}  # the encoder alone cannot tell the lines apart
    ranked = loto_echoes(oof, pool, _embed)
    assert set(ranked) == {"t1", "t2", "t3"}
    scores, labels = ranked["t1"]
    assert labels == [True, True, False, False]
    assert min(scores[:2]) > max(scores[2:])  # the repeated lines rank first, learned from t2 and t3
