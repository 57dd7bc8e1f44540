"""Deterministic arithmetic behind the statistics rules H12 (percent vs points), H13 (recomputation),
H14 (order of magnitude) and H15 (relative figures without a base rate)."""

from __future__ import annotations

from decimal import Decimal, DivisionByZero, InvalidOperation, localcontext

from icarus.ledger import Derivation, Figure

_HUNDRED = Decimal(100)


def recompute(figure: Figure) -> Decimal | None:
    """The value the figure's derivation yields from its operands, or None if it cannot be computed."""
    ops = figure.operands
    kind = figure.derivation
    try:
        with localcontext() as ctx:
            ctx.prec = 28
            if kind is Derivation.SUM and ops:
                return sum(ops, Decimal(0))
            if len(ops) != 2:
                return None
            first, second = ops
            if kind in (Derivation.DIFFERENCE, Derivation.POINT_CHANGE):
                return second - first
            if kind in (Derivation.RATIO, Derivation.PER_CAPITA):
                return first / second
            if kind is Derivation.PERCENT_CHANGE:
                return (second - first) / first * _HUNDRED
            if kind is Derivation.CAGR and figure.periods:
                growth = (second / first) ** (Decimal(1) / Decimal(figure.periods))
                return (growth - 1) * _HUNDRED
    except (DivisionByZero, InvalidOperation):
        return None
    return None


def stated_precision(value: Decimal) -> Decimal:
    """One unit in the last stated place: 12.5 -> 0.1, 40 -> 1."""
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        return Decimal(0)
    return Decimal(1).scaleb(min(exponent, 0))


def tolerance(value: Decimal, relative_tolerance: Decimal) -> Decimal:
    """H13 tolerance: max(relative share of the value, half a unit of stated precision)."""
    return max(abs(value) * relative_tolerance, stated_precision(value) / 2)


def agrees(stated: Decimal, computed: Decimal, relative_tolerance: Decimal) -> bool:
    return abs(stated - computed) <= tolerance(stated, relative_tolerance)


def arithmetic_fails(figure: Figure, relative_tolerance: Decimal) -> bool:
    """H13: a derived figure that does not follow from its own operands."""
    computed = recompute(figure)
    return computed is not None and not agrees(figure.value, computed, relative_tolerance)


def conflates_percent_and_points(
    figure: Figure, operands: list[Decimal] | None, relative_tolerance: Decimal
) -> bool:
    """H12: a change between two percentages reported under the other kind of change.

    "Rose 5 %" for 40 -> 45 matches the 5-point change but not the 12.5 % relative change; the reverse
    (a relative change called points) fires too. ``operands`` defaults to the figure's own.
    """
    levels = operands if operands is not None else figure.operands
    if figure.derivation not in (Derivation.PERCENT_CHANGE, Derivation.POINT_CHANGE) or len(levels) != 2:
        return False
    first, second = levels
    points = second - first
    if first == 0:
        return False
    relative = points / first * _HUNDRED
    if points == relative:
        return False
    matches_points = agrees(figure.value, points, relative_tolerance)
    matches_relative = agrees(figure.value, relative, relative_tolerance)
    if figure.derivation is Derivation.PERCENT_CHANGE:
        return matches_points and not matches_relative
    return matches_relative and not matches_points


def magnitude_conflict(a: Figure, b: Figure, threshold: Decimal) -> bool:
    """H14: the same measure stated an order of magnitude apart (a million vs a billion)."""
    if a.measure != b.measure or a.unit != b.unit or a.derivation is not None or b.derivation is not None:
        return False
    if a.value <= 0 or b.value <= 0:
        return False
    return abs((a.value / b.value).log10()) >= threshold


def lacks_base_rate(figure: Figure) -> bool:
    """H15: a relative risk, ratio or % change with no absolute base rate or denominator."""
    return figure.relative and not figure.base_rate_given
