"""The embedding measurement runs the fixed leave-one-transcript-out rule on any transcripts and embedder."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from icarus.evaluation.checkthat import Line, Transcript
from icarus_training.checkworthy_embeddings import loto_figures


def _transcript(name: str) -> Transcript:
    lines = []
    for n in range(12):
        worthy = n % 4 == 0
        text = (
            f"Unemployment fell to {n + 3} percent in 2019."
            if worthy
            else f"We need to do better, friend {n}."
        )
        lines.append(Line(n + 1, "SPEAKER", text, worthy))
    return Transcript(name, tuple(lines))


def _embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    # a one-hot of "has a digit and a percent" against the rest: perfectly separating, so MAP must be 1
    return np.array([[1.0, 0.0] if "percent" in t else [0.0, 1.0] for t in texts], dtype=np.float32)


@pytest.mark.parametrize("candidate", [(1.0, False, 3.0), (0.3, True, 0.0), (0.3, True, 1.0)])
def test_a_separating_signal_ranks_every_chosen_line_first(candidate: tuple[float, bool, float]) -> None:
    figures = loto_figures([_transcript(f"t{i}") for i in range(3)], _embed, candidate)
    assert figures["map"] == 1.0
    assert 0.0 < figures["flagged_share"] <= 0.5


def test_an_embedding_that_says_nothing_ranks_no_better_than_chance() -> None:
    def flat(texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.ones((len(texts), 2), dtype=np.float32)

    figures = loto_figures([_transcript(f"t{i}") for i in range(3)], flat, (1.0, False, 1.0))
    assert figures["map"] < 1.0
