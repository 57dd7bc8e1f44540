"""Step 3 of H2: candidate pairs by locality-sensitive hashing over MinHash signatures.

Signatures are cut into the bands ``datasketch.MinHashLSH`` chooses for the threshold (weighted towards
recall); rows that agree on every position of a band become a candidate pair, each pair once.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

import numpy as np

from icarus.provenance.arrays import distinct_sorted, run_positions
from icarus.provenance.shingles import I64, U32

__all__ = ["KNOWN_LSH_BANDS", "candidate_pairs", "datasketch_bands", "lsh_bands"]

# A missed copy inflates the count (the unsafe direction); a false candidate only costs one verification.
# So candidate generation weighs false negatives nine times as heavily as false positives.
_LSH_WEIGHTS = (0.1, 0.9)


# datasketch's choice for the shipped policies' (similarity_threshold, minhash_permutations), written down so
# that scoring under them does not import datasketch and SciPy (over a second of `icarus score`'s start-up).
# tests/provenance/test_lsh_bands.py checks every entry against datasketch and every shipped policy against
# this table.
KNOWN_LSH_BANDS: dict[tuple[Decimal, int], tuple[int, int]] = {(Decimal("0.70"), 128): (20, 6)}


def lsh_bands(threshold: Decimal, permutations: int) -> tuple[int, int]:
    """(bands, rows) that datasketch's MinHashLSH picks for this threshold, signature length and weights."""
    known = KNOWN_LSH_BANDS.get((threshold, permutations))
    return known if known is not None else datasketch_bands(threshold, permutations)


@lru_cache(maxsize=64)
def datasketch_bands(threshold: Decimal, permutations: int) -> tuple[int, int]:
    """(bands, rows) as datasketch's MinHashLSH computes them.

    Cached: the choice integrates false-positive and false-negative curves, which costs milliseconds.
    """
    # Imported here: datasketch pulls in SciPy, which every `icarus` command would otherwise pay for at start.
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=float(threshold), num_perm=permutations, weights=_LSH_WEIGHTS)
    return int(lsh.b), int(lsh.r)


# Up to this many rows, testing every pair's bands directly is cheaper than sorting each band.
_DIRECT_PAIRS_MAX_ROWS = 32


def candidate_pairs(signatures: U32, bands: int, rows: int) -> tuple[I64, I64]:
    """Pairs of rows that agree on every position of at least one band, each pair once (left < right),
    in order of (left, right)."""
    if signatures.shape[0] <= _DIRECT_PAIRS_MAX_ROWS:
        return _banded_pairs_direct(signatures, bands, rows)
    return _banded_pairs_sorted(signatures, bands, rows)


def _banded_pairs_direct(signatures: U32, bands: int, rows: int) -> tuple[I64, I64]:
    left, right = np.triu_indices(signatures.shape[0], k=1)
    width = bands * rows
    agree = signatures[left, :width] == signatures[right, :width]
    in_some_band = agree.reshape(len(left), bands, rows).all(axis=2).any(axis=1)
    return left[in_some_band].astype(np.int64), right[in_some_band].astype(np.int64)


def _banded_pairs_sorted(signatures: U32, bands: int, rows: int) -> tuple[I64, I64]:
    count = signatures.shape[0]
    found: list[I64] = []
    for band in range(bands):
        block = np.ascontiguousarray(signatures[:, band * rows : (band + 1) * rows])
        keys = block.view(np.dtype((np.void, block.dtype.itemsize * rows))).ravel()
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        same_as_next = sorted_keys[1:] == sorted_keys[:-1]
        if not same_as_next.any():
            continue
        # Every pair inside each run of equal keys: position p pairs with the rest of its run.
        run_id = np.concatenate(([0], np.cumsum(~same_as_next)))
        run_end = np.searchsorted(run_id, run_id, side="right")
        partners = run_end - np.arange(count) - 1
        first = np.repeat(np.arange(count), partners)
        step = run_positions(np.ones(count, dtype=np.int64), partners)  # 1, 2, ... partners[p] for each p
        left = order[first]
        right = order[first + step]
        found.append(np.minimum(left, right) * count + np.maximum(left, right))
    if not found:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    codes = distinct_sorted(np.concatenate(found))
    return codes // count, codes % count
