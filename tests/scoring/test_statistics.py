"""The pure arithmetic behind H12-H15 (``icarus.scoring.icarus.statistics``), with boundary values."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from icarus.ledger import Derivation, Figure
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.statistics import (
    arithmetic_fails,
    conflates_percent_and_points,
    lacks_base_rate,
    recompute,
    tolerance,
)

TOLERANCE = D("0.005")


def change(value: str, first: str, second: str, points: bool = False) -> Figure:
    return Figure(
        measure="m",
        value=D(value),
        unit="pp" if points else "%",
        derivation=Derivation.POINT_CHANGE if points else Derivation.PERCENT_CHANGE,
        operands=[D(first), D(second)],
        relative=not points,
    )


def test_every_published_policy_uses_the_tolerance_these_tests_assume() -> None:
    for ref in ("icarus@1.0", "icarus@1.1"):
        assert load_policy(ref).statistics.relative_tolerance == TOLERANCE


def test_H13_forty_to_forty_five_million_tonnes_is_twelve_and_a_half_percent() -> None:
    assert recompute(change("20", "40", "45")) == D("12.5")
    assert arithmetic_fails(change("20", "40", "45"), TOLERANCE)
    assert not arithmetic_fails(change("12.5", "40", "45"), TOLERANCE)


@pytest.mark.parametrize(
    ("stated", "fails"),
    [
        ("13", False),  # |13 - 12.5| = 0.5: exactly half a unit of the stated precision
        ("12", False),
        ("13.1", True),  # one decimal stated: the tolerance shrinks to max(0.0655, 0.05)
        ("11.9", True),
        ("12.56", False),  # max(0.0628, 0.005): 0.06 inside
        ("12.44", False),
        ("12.43", True),
    ],
)
def test_H13_tolerance_boundary_around_twelve_and_a_half(stated: str, fails: bool) -> None:
    assert arithmetic_fails(change(stated, "40", "45"), TOLERANCE) is fails


def test_H13_a_fall_is_compared_with_its_sign() -> None:
    # $3.2bn -> $2.8bn is -12.5 %: "fell 12%" is -12 and agrees; a "12%" rise does not.
    assert not arithmetic_fails(change("-12", "3.2", "2.8"), TOLERANCE)
    assert arithmetic_fails(change("12", "3.2", "2.8"), TOLERANCE)
    assert tolerance(D("-12"), TOLERANCE) == D("0.5")


def test_H13_per_capita_and_cagr_are_recomputed() -> None:
    per_head = Figure(
        measure="m", value=D(20), unit="x", derivation=Derivation.PER_CAPITA, operands=[D(1000), D(50)]
    )
    assert recompute(per_head) == 20 and not arithmetic_fails(per_head, TOLERANCE)
    cagr = Figure(
        measure="m", value=D(10), unit="%", derivation=Derivation.CAGR, operands=[D(100), D(121)], periods=2
    )
    assert not arithmetic_fails(cagr, TOLERANCE)
    assert arithmetic_fails(cagr.model_copy(update={"value": D(11)}), TOLERANCE)
    assert recompute(cagr.model_copy(update={"periods": None})) is None


def test_H12_five_percent_for_forty_to_forty_five_percent_conflates() -> None:
    assert conflates_percent_and_points(change("5", "40", "45"), None, TOLERANCE)
    assert not conflates_percent_and_points(change("12.5", "40", "45"), None, TOLERANCE)
    # The reverse: a relative change reported in points.
    assert conflates_percent_and_points(change("12.5", "40", "45", points=True), None, TOLERANCE)
    assert not conflates_percent_and_points(change("5", "40", "45", points=True), None, TOLERANCE)


def test_H12_does_not_fire_where_points_and_percent_agree_or_cannot_be_told_apart() -> None:
    assert not conflates_percent_and_points(change("5", "100", "105"), None, TOLERANCE)  # 5 points = 5 %
    assert not conflates_percent_and_points(change("5", "0", "5"), None, TOLERANCE)
    # A figure that matches neither reading is H13's business, not H12's.
    assert not conflates_percent_and_points(change("8", "40", "45"), None, TOLERANCE)


def test_H12_uses_levels_given_elsewhere_when_passed() -> None:
    bare = Figure(measure="m", value=D(5), unit="%", derivation=Derivation.PERCENT_CHANGE, relative=True)
    assert not conflates_percent_and_points(bare, None, TOLERANCE)
    assert conflates_percent_and_points(bare, [D(40), D(45)], TOLERANCE)


def test_H15_a_relative_change_needs_its_base() -> None:
    bare = Figure(measure="m", value=D(20), unit="%", relative=True, base_rate_given=False)
    assert lacks_base_rate(bare)
    assert not lacks_base_rate(bare.model_copy(update={"base_rate_given": True}))
    assert not lacks_base_rate(Figure(measure="m", value=D(20), unit="%", base_rate_given=False))
