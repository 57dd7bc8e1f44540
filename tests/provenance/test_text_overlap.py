"""Narrowing a named publisher's items to those whose text the citing item overlaps most (H3's helper)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icarus.provenance.similarity import TextOverlap

IDS = ["a", "b", "c", "d", "e"]


def _overlap(rows: list[list[int]], signed: list[bool] | None = None) -> TextOverlap:
    signatures = np.array(rows, dtype=np.uint32)
    has = np.array(signed if signed is not None else [True] * len(rows))
    return TextOverlap(IDS[: len(rows)], signatures, has)


def test_keeps_the_best_overlapping_items_and_every_virtual_target_in_their_order() -> None:
    overlap = _overlap([[1, 2, 3, 4], [1, 2, 3, 9], [1, 9, 9, 9], [1, 2, 3, 8], [7, 7, 7, 7]])
    candidates = ("artifact:x", "d", "c", "b")
    assert overlap.closest("a", candidates) == ("artifact:x", "d", "b")
    assert overlap.closest("a", candidates) == ("artifact:x", "d", "b")  # the prepared rows are reused
    assert overlap.closest("e", ("b", "c")) == ("b", "c")  # no shared position: nothing is dropped


def test_nothing_is_dropped_without_signatures_to_compare() -> None:
    overlap = _overlap([[1, 2], [1, 2], [5, 5], [1, 2]], signed=[False, True, True, False])
    assert overlap.closest("a", ("b", "c")) == ("b", "c")  # the source has no signature
    assert overlap.closest("b", ("c", "d")) == ("c", "d")  # only one candidate has one


def test_an_equal_tuple_built_again_gets_the_same_answer() -> None:
    overlap = _overlap([[1, 2, 3], [1, 2, 0], [1, 0, 0]])
    first = overlap.closest("a", tuple(["b", "c"]))
    assert first == ("b",) and overlap.closest("a", tuple(["c", "b"])) == ("b",)


def _brute_force(
    rows: np.ndarray, has: np.ndarray, source: int, candidates: tuple[str, ...]
) -> tuple[str, ...]:
    index = {name: i for i, name in enumerate(IDS[: len(rows)])}
    scored = [c for c in candidates if c in index and has[index[c]]]
    if not has[source] or len(scored) < 2:
        return candidates
    agree = {c: int(np.count_nonzero(rows[index[c]] == rows[source])) for c in scored}
    best = max(agree.values())
    if best == 0:
        return candidates
    return tuple(c for c in candidates if c not in agree or agree[c] == best)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.lists(st.integers(0, 2), min_size=4, max_size=4), min_size=2, max_size=5),
    signed=st.lists(st.booleans(), min_size=5, max_size=5),
    source=st.integers(0, 4),
    candidates=st.lists(st.sampled_from([*IDS, "artifact:x"]), min_size=1, max_size=6),
)
def test_agrees_with_comparing_every_candidate_directly(
    rows: list[list[int]], signed: list[bool], source: int, candidates: list[str]
) -> None:
    source %= len(rows)
    known = [c for c in candidates if c not in IDS[len(rows) :]]
    if not known:
        return
    signatures = np.array(rows, dtype=np.uint32)
    has = np.array(signed[: len(rows)])
    overlap = TextOverlap(IDS[: len(rows)], signatures, has)
    assert overlap.closest(IDS[source], tuple(known)) == _brute_force(signatures, has, source, tuple(known))
