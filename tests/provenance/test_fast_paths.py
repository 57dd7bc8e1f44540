"""Shortcuts taken for speed give exactly what the general code gives."""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pytest

from icarus.provenance import shingles
from icarus.provenance.shingles import minhash_signatures, shingle_sets, words_of
from icarus.provenance.similarity import (
    _DIRECT_PAIRS_MAX_ROWS,
    _banded_pairs_direct,
    _banded_pairs_sorted,
    candidate_pairs,
    lsh_bands,
)
from tests.provenance.conftest import words


def _near_copies(rows: int, seed: int) -> np.ndarray:
    """Signature rows where each row copies a random share of an earlier row's positions."""
    rng = np.random.default_rng(seed)
    signatures = rng.integers(0, 2**32, size=(rows, 128), dtype=np.uint32)
    for row in range(1, rows):
        source = rng.integers(0, row)
        copied = rng.random(128) < rng.random()
        signatures[row, copied] = signatures[source, copied]
    return signatures


@pytest.mark.parametrize("rows", [1, 2, 3, 14, _DIRECT_PAIRS_MAX_ROWS, _DIRECT_PAIRS_MAX_ROWS + 1, 80])
def test_direct_and_sorted_band_pairs_agree(rows: int) -> None:
    bands, width = lsh_bands(Decimal("0.70"), 128)
    for seed in range(5):
        signatures = _near_copies(rows, seed)
        direct = _banded_pairs_direct(signatures, bands, width)
        by_sorting = _banded_pairs_sorted(signatures, bands, width)
        for fast, general in zip(direct, by_sorting, strict=True):
            assert fast.dtype == general.dtype == np.int64
            assert fast.tolist() == general.tolist()
        assert [a.tolist() for a in candidate_pairs(signatures, bands, width)] == [
            a.tolist() for a in by_sorting
        ]


def test_ascii_texts_split_into_the_same_words_as_the_unicode_pattern() -> None:
    everything = "".join(chr(code) for code in range(128)) * 2
    assert shingles._ASCII_WORD.findall(everything) == re.findall(r"[^\W_]+", everything)


def test_word_hashes_do_not_depend_on_what_was_hashed_before() -> None:
    texts = [" ".join(words(1, 60)), "caf\u00e9 na\u00efve \u2014 it\u2019s fine_ok 12"]
    first = words_of(texts)
    shingles._WORD_HASHES.clear()
    fresh = words_of(texts)
    assert first.hashes.tolist() == fresh.hashes.tolist()
    assert first.offsets.tolist() == fresh.offsets.tolist()


@pytest.mark.parametrize("chunk", [1 << 15, 50, 7], ids=["whole", "small-chunks", "tiny-chunks"])
def test_minhash_matches_the_column_wise_definition(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # With small chunks, documents longer than a chunk (76 shingles each) are read in slices.
    monkeypatch.setattr(shingles, "_CHUNK_SHINGLES", chunk)
    sets = shingle_sets([" ".join(words(seed, 80)) for seed in range(6)] + [""], 5)
    a, b = shingles._permutations(128, 3)
    expected = np.full((7, 128), np.iinfo(np.uint32).max, dtype=np.uint32)
    for doc in range(6):
        hashes = sets.hashes[sets.offsets[doc] : sets.offsets[doc + 1]]
        with np.errstate(over="ignore"):
            values = (hashes[:, None] * a[None, :] + b[None, :]) >> np.uint64(32)
        expected[doc] = values.min(axis=0).astype(np.uint32)
    assert (minhash_signatures(sets, 128, 3) == expected).all()
