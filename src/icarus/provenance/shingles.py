"""Text to hashed word shingles and MinHash signatures, vectorised with numpy.

Everything here is a pure function of its inputs. Hashes are derived from the words themselves (BLAKE2b of
each distinct word), never from Python's per-process ``hash``, and the MinHash permutations come from a
local generator seeded by the policy, so signatures are identical across runs, machines and input orders.

MinHash uses multiply-shift hashing: permutation ``p`` maps a 64-bit shingle hash ``x`` to the top 32 bits
of ``a_p * x + b_p`` modulo 2**64 (``a_p`` odd). From text to signatures this runs at about the speed of
``datasketch.MinHash.bulk`` (``bench/icc.py`` measures both); it is kept because the same arrays also give
exact shingle counts and H19's 8-word containment without a second tokenisation, and feed LSH banding
without one Python object per document.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

__all__ = [
    "ShingleSets",
    "Words",
    "estimated_matches",
    "minhash_signatures",
    "shingle_sets",
    "text_pieces",
    "words_of",
]

U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]

_WORD = re.compile(r"[^\W_]+")
# The same words for ASCII text: a plain character class scans about twice as fast as the Unicode one.
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
# A character no word of either pattern contains: a text cut there splits into the same words.
_NOT_WORD = re.compile(r"[\W_]")
# A text longer than this is read in pieces, so that a huge page never becomes one list of all its words.
_PIECE_CHARS = 1 << 20
# Odd multipliers that place each word of a shingle differently, so "a b" and "b a" differ.
_POSITION_SEED = 0x1CA2_05E5
_CHUNK_SHINGLES = 1 << 15
_BATCH_TEXTS = 4096


@dataclass(frozen=True, slots=True)
class ShingleSets:
    """Per-document shingle hashes: document ``d`` owns ``hashes[offsets[d]:offsets[d + 1]]``.

    Hashes are distinct and sorted within each document.
    """

    hashes: U64
    offsets: I64

    def count(self, doc: int) -> int:
        return int(self.offsets[doc + 1] - self.offsets[doc])

    @property
    def counts(self) -> I64:
        return np.diff(self.offsets)


class _WordHashes(dict[str, int]):
    """Word -> stable 64-bit hash, computed once per distinct word."""

    def __missing__(self, word: str) -> int:
        value = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        self[word] = value
        return value


# Words recur from one ledger to the next, and hashing a new word costs several times a look-up, so the
# table is shared by every call. A word's hash depends on nothing else, so emptying the table when it is
# full (which bounds its memory) changes no result.
_WORD_HASHES = _WordHashes()
_WORD_HASHES_LIMIT = 1 << 17


@dataclass(frozen=True, slots=True)
class Words:
    """Per-document word hashes: document ``d`` owns ``hashes[offsets[d]:offsets[d + 1]]``."""

    hashes: U64
    offsets: I64


def words_of(texts: Sequence[str]) -> Words:
    """Tokenise and hash every text once; shingles of any width can then be built from the result."""
    table = _WORD_HASHES
    hashes: list[int] = []
    offsets = [0]
    for text in texts:
        pattern = _ASCII_WORD if text.isascii() else _WORD
        for piece in text_pieces(text, _PIECE_CHARS):
            if len(table) > _WORD_HASHES_LIMIT:
                table.clear()
            hashes.extend(map(table.__getitem__, pattern.findall(piece)))
        offsets.append(len(hashes))
    return Words(np.fromiter(hashes, dtype=np.uint64, count=len(hashes)), np.asarray(offsets, np.int64))


def text_pieces(text: str, size: int) -> Iterator[str]:
    """``text`` in pieces of about ``size`` characters or more, each cut just before a character no word
    contains, so the pieces hold the text's words, whole and in order. A short text is one piece."""
    size = max(size, 1)  # each piece holds at least one character, so the cuts always move on
    start = 0
    while len(text) - start > size:
        cut = _NOT_WORD.search(text, start + size)
        if cut is None:  # one word runs to the end
            break
        yield text[start : cut.start()]
        start = cut.start()
    yield text[start:]


def _mix(values: U64) -> U64:
    # splitmix64 finaliser: spreads combined hashes over all 64 bits.
    values = values ^ (values >> np.uint64(30))
    values = values * np.uint64(0xBF58476D1CE4E5B9)
    values = values ^ (values >> np.uint64(27))
    values = values * np.uint64(0x94D049BB133111EB)
    return values ^ (values >> np.uint64(31))


def shingle_sets(texts: Sequence[str] | Words, words: int) -> ShingleSets:
    """Distinct hashed shingles of ``words`` consecutive words for each text."""
    tokens = texts if isinstance(texts, Words) else words_of(texts)
    documents = len(tokens.offsets) - 1
    parts = [
        _shingle_batch(tokens, first, min(first + _BATCH_TEXTS, documents), words)
        for first in range(0, documents, _BATCH_TEXTS)
    ]
    if not parts:
        return ShingleSets(np.zeros(0, np.uint64), np.zeros(1, np.int64))
    hashes = np.concatenate([part.hashes for part in parts])
    counts = np.concatenate([part.counts for part in parts])
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return ShingleSets(hashes, offsets)


@lru_cache(maxsize=16)
def _position_multipliers(words: int) -> U64:
    # Cached: seeding a generator costs more than hashing a small ledger's shingles.
    multipliers = np.random.default_rng(_POSITION_SEED).integers(
        1, np.iinfo(np.uint64).max, size=words, dtype=np.uint64, endpoint=False
    ) | np.uint64(1)
    multipliers.flags.writeable = False
    return multipliers


def _shingle_batch(tokens: Words, first: int, last: int, words: int) -> ShingleSets:
    """Shingles of documents ``first`` to ``last - 1`` (bounded batches keep memory flat)."""
    lo, hi = int(tokens.offsets[first]), int(tokens.offsets[last])
    word_hash = tokens.hashes[lo:hi]
    word_offsets = tokens.offsets[first : last + 1] - lo
    documents = last - first
    total = len(word_hash)
    multipliers = _position_multipliers(words)
    starts = total - words + 1
    if starts <= 0:
        return ShingleSets(np.zeros(0, np.uint64), np.zeros(documents + 1, np.int64))
    combined = np.zeros(starts, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for position in range(words):
            combined += word_hash[position : position + starts] * multipliers[position]
    combined = _mix(combined)
    # A shingle starting at global word i belongs to document d when it ends inside d.
    doc_of_start = np.searchsorted(word_offsets, np.arange(starts), side="right") - 1
    valid = np.arange(starts) + words <= word_offsets[doc_of_start + 1]
    doc_of_start = doc_of_start[valid]
    combined = combined[valid]
    order = np.lexsort((combined, doc_of_start))
    doc_sorted = doc_of_start[order]
    hash_sorted = combined[order]
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = (doc_sorted[1:] != doc_sorted[:-1]) | (hash_sorted[1:] != hash_sorted[:-1])
    doc_sorted = doc_sorted[keep]
    counts = np.bincount(doc_sorted, minlength=documents)
    offsets = np.zeros(documents + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return ShingleSets(hash_sorted[keep], offsets)


@lru_cache(maxsize=16)
def _permutations(permutations: int, seed: int) -> tuple[U64, U64]:
    rng = np.random.default_rng(seed)
    a = rng.integers(1, np.iinfo(np.uint64).max, size=permutations, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, np.iinfo(np.uint64).max, size=permutations, dtype=np.uint64)
    a.flags.writeable = False
    b.flags.writeable = False
    return a, b


def minhash_signatures(shingles: ShingleSets, permutations: int, seed: int) -> U32:
    """One MinHash signature row per document; a document without shingles gets all ``0xFFFFFFFF``."""
    a, b = _permutations(permutations, seed)
    docs = len(shingles.offsets) - 1
    signatures = np.full((docs, permutations), np.iinfo(np.uint32).max, dtype=np.uint32)
    counts = shingles.counts
    nonempty = np.flatnonzero(counts > 0)
    shift = np.uint64(32)
    position = 0
    while position < len(nonempty):
        # Whole documents per chunk keep memory bounded: about _CHUNK_SHINGLES x permutations values.
        first = nonempty[position]
        limit = shingles.offsets[first] + _CHUNK_SHINGLES
        end = int(np.searchsorted(shingles.offsets[nonempty + 1], limit, side="right"))
        end = max(end, position + 1)
        chunk_docs = nonempty[position:end]
        lo = int(shingles.offsets[chunk_docs[0]])
        hi = int(shingles.offsets[chunk_docs[-1] + 1])
        if hi - lo > _CHUNK_SHINGLES:
            # A single document larger than a chunk (a huge page) is read in slices: its minimum is the
            # minimum of its slices' minima, and memory stays at one chunk's worth.
            signatures[first] = _sliced_signature(a, b, shingles.hashes[lo:hi])
            position = end
            continue
        # One row per permutation, so each document's minimum is a reduction along contiguous memory
        # (about three times faster than down columns). Taking the top 32 bits is monotone, so it can
        # follow the minimum and touch one value per document instead of every shingle's.
        values = a[:, None] * shingles.hashes[None, lo:hi]
        with np.errstate(over="ignore"):
            values += b[:, None]
        starts = shingles.offsets[chunk_docs] - lo
        lowest = np.minimum.reduceat(values, starts, axis=1)
        signatures[chunk_docs] = (lowest >> shift).astype(np.uint32).T
        position = end
    return signatures


def _sliced_signature(a: U64, b: U64, hashes: U64) -> U32:
    lowest = np.full(len(a), np.iinfo(np.uint64).max, dtype=np.uint64)
    for start in range(0, len(hashes), _CHUNK_SHINGLES):
        values = a[:, None] * hashes[None, start : start + _CHUNK_SHINGLES]
        with np.errstate(over="ignore"):
            values += b[:, None]
        np.minimum(lowest, values.min(axis=1), out=lowest)
    return (lowest >> np.uint64(32)).astype(np.uint32)


def estimated_matches(signatures: U32, left: I64, right: I64) -> I64:
    """How many MinHash positions agree for each pair (``left[i]``, ``right[i]``)."""
    result = np.zeros(len(left), dtype=np.int64)
    step = max(1, (1 << 22) // max(1, signatures.shape[1]))
    for start in range(0, len(left), step):
        stop = start + step
        result[start:stop] = np.count_nonzero(
            signatures[left[start:stop]] == signatures[right[start:stop]], axis=1
        )
    return result
