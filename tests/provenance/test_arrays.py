"""The array steps the similarity graph is built from."""

from __future__ import annotations

import numpy as np

from icarus.provenance.arrays import dense_ids, distinct_sorted, run_positions


def test_distinct_sorted_matches_numpy_unique() -> None:
    values = np.random.default_rng(3).integers(-50, 50, size=1000)
    assert np.array_equal(distinct_sorted(values), np.unique(values))
    assert distinct_sorted(np.zeros(0, dtype=np.uint64)).tolist() == []
    assert distinct_sorted(np.array([7, 7, 7], dtype=np.uint64)).tolist() == [7]


def test_distinct_sorted_keeps_the_dtype_and_leaves_its_input_alone() -> None:
    values = np.array([2**63 + 5, 3, 2**63 + 5], dtype=np.uint64)
    result = distinct_sorted(values)
    assert result.dtype == np.uint64
    assert result.tolist() == [3, 2**63 + 5]
    assert values.tolist() == [2**63 + 5, 3, 2**63 + 5]


def test_run_positions_lists_each_run_in_turn() -> None:
    starts = np.array([10, 0, 5], dtype=np.int64)
    lengths = np.array([2, 0, 3], dtype=np.int64)
    assert run_positions(starts, lengths).tolist() == [10, 11, 5, 6, 7]
    assert run_positions(np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == []


def test_dense_ids_match_numpy_unique_inverse() -> None:
    values = (
        np.random.default_rng(4)
        .integers(0, 2**63, size=50, dtype=np.int64)
        .astype(np.uint64)[np.random.default_rng(5).integers(0, 50, size=400)]
    )
    ids, count = dense_ids(values)
    distinct, inverse = np.unique(values, return_inverse=True)
    assert count == len(distinct)
    assert np.array_equal(ids, inverse.ravel())
    assert dense_ids(np.zeros(0, dtype=np.uint64))[1] == 0
