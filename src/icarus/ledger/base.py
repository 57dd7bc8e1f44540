"""Shared building blocks of the ledger vocabulary: strict models, UTC times, spans, decimals."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, model_validator


def _to_utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_to_utc)]
"""A timezone-aware timestamp, normalised to UTC. Naive timestamps are rejected: the ledger never guesses."""

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
