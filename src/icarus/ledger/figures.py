"""Stated numbers, in a form the deterministic statistics rules (H12–H15) can recompute.

Extraction (a model or a parser) fills these in; the rules never read free text for arithmetic.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Span


class Derivation(StrEnum):
    """How a stated figure claims to follow from its operands (H13 recomputes it).

    With operands ``[a, b]`` in order: ``sum`` = a + b + …; ``difference`` = b − a; ``ratio`` = a / b;
    ``percent_change`` = (b − a) / a × 100; ``point_change`` = b − a, both being percentages;
    ``per_capita`` = a / b; ``cagr`` = ((b / a) ** (1 / periods) − 1) × 100.
    """

    SUM = "sum"  # value = sum(operands)
    DIFFERENCE = "difference"  # value = operands[1] - operands[0]
    RATIO = "ratio"  # value = operands[0] / operands[1]
    PERCENT_CHANGE = "percent_change"  # value = (operands[1] - operands[0]) / operands[0] * 100
    POINT_CHANGE = "point_change"  # value = operands[1] - operands[0], both percentages
    PER_CAPITA = "per_capita"  # value = operands[0] / operands[1]
    CAGR = "cagr"  # value = ((operands[1] / operands[0]) ** (1 / periods) - 1) * 100


class Figure(LedgerModel):
    """One stated quantity: a level ('4.1 %'), or a derived figure with the operands it rests on.

    A claim's figures are what the subject states; an evidence item's figures are what that source states.
    H12 compares a claim's change figure with the levels the evidence gives for the same ``measure``.
    """

    measure: str = Field(description="Key naming what is measured; figures compare only within one measure.")
    value: Decimal = Field(description="The figure as stated, as an exact decimal (JSON number or string).")
    unit: str = Field(description="'%' for a percentage level or relative change, 'pp' for points, etc.")
    derivation: Derivation | None = Field(
        default=None, description="How the value is said to be derived; none for a plain level (H12, H13)."
    )
    operands: list[Decimal] = Field(
        default_factory=list, description="Inputs of the derivation, in order; for a change: [from, to]."
    )
    periods: int | None = Field(default=None, ge=1, description="Number of periods, for CAGR.")
    relative: bool = Field(
        default=False, description="A relative risk, ratio or % change (needs a base rate to be read; H15)."
    )
    base_rate_given: bool = Field(default=True, description="An absolute base rate or denominator is stated.")
    span: Span | None = Field(default=None, description="Where the figure is stated in its text.")
