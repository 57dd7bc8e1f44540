"""Shared building blocks of the ledger vocabulary: strict models, UTC times, spans, decimals."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, model_validator

# Scoring adds and subtracts windows of minutes to days (tolerances, correction and recheck windows); a
# year's margin inside what ``datetime`` can hold keeps that arithmetic from overflowing.
EARLIEST_TIME = datetime(2, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9998, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def _to_utc(value: datetime) -> datetime:
    try:
        converted = value.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00+05:00 lies before year 1 in UTC
        converted = None
    if converted is None or not EARLIEST_TIME <= converted <= LATEST_TIME:
        raise ValueError("timestamp must lie between 0002-01-01 and 9998-12-31 (UTC)")
    return converted


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_to_utc)]
"""A timezone-aware timestamp, normalised to UTC, between 0002-01-01 and 9998-12-31. Naive timestamps are
rejected: the ledger never guesses."""

Unit = Annotated[Decimal, Field(ge=0, le=1)]
"""A decimal in [0, 1]. Decimals (not floats) keep threshold comparisons exact."""


class LedgerModel(BaseModel):
    """Base for every ledger record: unknown fields are an error, records are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Span(LedgerModel):
    """A half-open character range ``[start, end)`` into a named text.

    Offsets count Python ``str`` characters (Unicode code points, not bytes or UTF-16 units), so the range
    covers exactly ``text[start:end]``. The owning record says which text: a claim's span indexes its
    source field, an excerpt's span indexes the evidence item's ``text``, an OCR token's span indexes the
    subject's ``image_text`` field. Validation: ``end >= start``.
    """

    start: int = Field(
        ge=0, description="First character offset (0-based, Python string indexing: code points, not bytes)."
    )
    end: int = Field(
        ge=0, description="One past the last character offset (half-open); must not be less than start."
    )

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} precedes start {self.start}")
        return self

    def slice(self, text: str) -> str:
        """The characters this span covers in ``text`` (empty if it lies past the end)."""
        return text[self.start : self.end]
