"""Selection rule 2: who qualifies (the boundaries of both bars) and who is chosen among those who do."""

from __future__ import annotations

from typing import Any

from icarus_training.judge_selection import MIN_DECIDED, MIN_PRECISION_LOW, candidates, choose, qualifies


def _row(name: str, decided: int, low: float | None, floors: dict[str, str] | None = None) -> dict[str, Any]:
    return {"candidate": name, "decided": decided, "decided_precision": {"low": low}, "floors": floors or {}}


def test_both_bars_hold_at_their_boundaries() -> None:
    assert qualifies(_row("a", MIN_DECIDED, MIN_PRECISION_LOW))
    assert not qualifies(_row("a", MIN_DECIDED - 1, 0.99))
    assert not qualifies(_row("a", 500, MIN_PRECISION_LOW - 1e-6))
    assert not qualifies(_row("a", 500, None))


def test_the_most_decided_qualifying_candidate_is_chosen() -> None:
    rows = [_row("wide-imprecise", 300, 0.70), _row("narrow", 45, 0.95), _row("wider", 60, 0.86)]
    chosen = choose(rows)
    assert chosen is not None and chosen["candidate"] == "wider"


def test_ties_go_to_the_more_precise_then_the_lower_floors_then_the_earlier() -> None:
    precise = choose([_row("a", 50, 0.86), _row("b", 50, 0.90)])
    assert precise is not None and precise["candidate"] == "b"
    low_floors = choose(
        [
            _row("high", 50, 0.9, {"support": "0.9", "refute": "0.9"}),
            _row("low", 50, 0.9, {"support": "0.7", "refute": "0.7"}),
        ]
    )
    assert low_floors is not None and low_floors["candidate"] == "low"
    earlier = choose([_row("first", 50, 0.9), _row("second", 50, 0.9)])
    assert earlier is not None and earlier["candidate"] == "first"


def test_none_is_chosen_when_none_qualifies() -> None:
    assert choose([_row("a", 39, 0.99), _row("b", 400, 0.5)]) is None


def test_candidates_are_the_references_and_every_pair_of_floors() -> None:
    from icarus_training.judge_selection import FLOORS, REFERENCE_JUDGES

    names = [name for name, _, _ in candidates()]
    assert names[: len(REFERENCE_JUDGES)] == list(REFERENCE_JUDGES)
    assert len(names) == len(REFERENCE_JUDGES) + len(FLOORS) ** 2
    assert len(set(names)) == len(names)
