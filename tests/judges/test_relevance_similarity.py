"""The relevance gate's WordLlama similarities: the model widened row by row gives those of the fully loaded
model, bit for bit, without widening the whole token table."""

from __future__ import annotations

import numpy as np

from icarus.judges.features import load_wordllama
from icarus.judges.relevance import widening_wordllama

PAIRS = [
    ("Container traffic at Halden harbor fell 12% in October.", "The port said volumes dropped 12 percent."),
    ("Hunter Biden joined the board of Burisma in 2014.", "Burisma named a new board member that year."),
    ("WHO says cases rose.", ""),
    ("Ünïcödé ½ 😀 text", "a"),
    ("The minister said the budget is balanced, and the deficit is gone.", "x " * 300),
]


def test_similarities_equal_the_loaded_models_bit_for_bit() -> None:
    widened, loaded = widening_wordllama(), load_wordllama()
    for claim, passage in PAIRS:
        assert widened.similarity(claim, passage) == loaded.similarity(claim, passage)
        assert np.array_equal(widened.embed([claim, passage]), loaded.embed([claim, passage]))


def test_the_token_table_stays_float16() -> None:
    table = widening_wordllama().embedding
    assert not isinstance(table, np.ndarray)
    assert table.half.dtype == np.float16
    assert table.shape == load_wordllama().embedding.shape
