"""Shortcuts taken for speed give exactly what the general code gives."""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pytest

from icarus.provenance import shingles
from icarus.provenance.lsh import (
    _DIRECT_PAIRS_MAX_ROWS,
    _banded_pairs_direct,
    _banded_pairs_sorted,
    candidate_pairs,
    lsh_bands,
)
from icarus.provenance.shingles import minhash_signatures, shingle_sets, words_of
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


HUGE_PAGE_TEXTS = [
    " ".join(words(7, 400)),
    "caf\u00e9 na\u00efve\u00a0d\u00e9j\u00e0 \u2014 it\u2019s fine_ok 12 " * 40,
    "x" * 300 + ",,," + "y" * 5 + " z",
    "a_b_c " * 90,
    "",
]


@pytest.mark.parametrize("size", [0, 1, 7, 64])
def test_a_text_read_in_pieces_gives_the_same_words(size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = words_of(HUGE_PAGE_TEXTS)
    for text in HUGE_PAGE_TEXTS:
        pieces = list(shingles.text_pieces(text, size))
        assert "".join(pieces) == text
        if len(text) > size:
            assert len(pieces) > 1 or re.search(r"[\W_]", text[size:]) is None
    monkeypatch.setattr(shingles, "_PIECE_CHARS", size)
    shingles._WORD_HASHES.clear()
    pieced = words_of(HUGE_PAGE_TEXTS)
    assert pieced.hashes.tolist() == whole.hashes.tolist()
    assert pieced.offsets.tolist() == whole.offsets.tolist()


def test_the_word_table_is_emptied_between_pieces_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    text = " ".join(f"w{i}" for i in range(500))
    expected = words_of([text]).hashes.tolist()
    monkeypatch.setattr(shingles, "_PIECE_CHARS", 100)
    monkeypatch.setattr(shingles, "_WORD_HASHES_LIMIT", 50)
    shingles._WORD_HASHES.clear()
    assert words_of([text]).hashes.tolist() == expected
    assert len(shingles._WORD_HASHES) < 100  # never the whole text's 500 words at once
