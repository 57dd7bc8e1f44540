"""Exact decimal arithmetic for the ledger models: half-even rounding, log-odds, the logistic function.

Every operation runs in one fixed decimal context (34 significant digits, half-even), whatever context
the caller has set, so the same inputs always give the same digits. ``ln`` and ``exp`` are the decimal
module's correctly rounded functions.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext

CONTEXT = Context(prec=34, rounding=ROUND_HALF_EVEN)
ZERO = Decimal(0)
ONE = Decimal(1)
HALF = Decimal("0.5")


def quantum(places: int) -> Decimal:
    return ONE.scaleb(-places)


def round_half_even(value: Decimal, places: int) -> Decimal:
    """``value`` rounded half-even to ``places`` decimals (a negative zero becomes zero)."""
    with localcontext(CONTEXT):
        rounded = value.quantize(quantum(places), rounding=ROUND_HALF_EVEN)
        return rounded.copy_abs() if rounded.is_zero() else rounded


def fixed(value: Decimal, places: int) -> str:
    """Fixed-place text: ``fixed(Decimal("0.918"), 6) == "0.918000"``."""
    return format(round_half_even(value, places), "f")


def log_odds(probability: Decimal) -> Decimal:
    """ln(p / (1 − p)), unrounded."""
    with localcontext(CONTEXT):
        return (probability / (ONE - probability)).ln()


def logistic(log_odds_value: Decimal) -> Decimal:
    """1 / (1 + e^−x), unrounded."""
    with localcontext(CONTEXT):
        return ONE / (ONE + (-log_odds_value).exp())


def product(values: list[Decimal]) -> Decimal:
    with localcontext(CONTEXT):
        result = ONE
        for value in values:
            result *= value
        return result


def near_rounding_boundary(value: Decimal, places: int, guard: Decimal) -> bool:
    """Whether ``value`` lies within ``guard`` of a half-way point between two ``places``-decimal values,
    where another implementation's last digits could round it the other way."""
    with localcontext(CONTEXT):
        step = quantum(places)
        offset = (value % step).copy_abs()  # position inside its step, from the nearer-to-zero end
        return abs(offset - step * HALF) <= guard
