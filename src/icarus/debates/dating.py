"""When a debate took place: its ``held_at``, as a caller writes it and as the service accepts it.

A debate's claims speak for the day they were made: "unemployment is 8 percent", said in October 2020, is
about 2020. Detection ("a year after the debate's date is a prediction"), the scope check's present-tense
rule and the research methods' date bounds read this date, never the server clock. It defaults to the
upload (creation) time.

What is accepted: an ISO 8601 date (``2020-10-22``, read as 00:00 UTC that day) or timestamp
(``2020-10-22T21:00:00Z``; one with an offset is converted to UTC, one without is read as UTC). Numbers
are refused rather than read as Unix seconds, so ``2020`` cannot become a moment in 1970. The service
refuses a date before ``EARLIEST_HELD_AT`` or more than ``FUTURE_TOLERANCE`` after its clock.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Final

from pydantic import AfterValidator, BeforeValidator, TypeAdapter, ValidationError, WithJsonSchema

from icarus.debates.errors import InvalidChange

__all__ = [
    "EARLIEST_HELD_AT",
    "FUTURE_TOLERANCE",
    "HELD_AT_ALIAS",
    "HELD_AT_FIELD",
    "HeldAt",
    "accepted_held_at",
    "parse_held_at",
]

HELD_AT_FIELD: Final = "held_at"
HELD_AT_ALIAS: Final = "as_of"  # the name callers reached for first; accepted on create and PATCH
FUTURE_TOLERANCE: Final = timedelta(days=1)
"""How far after the service's clock a debate's date may lie: a date written in a time zone ahead of UTC,
or a little clock skew, is not a debate from the future."""
EARLIEST_HELD_AT: Final = datetime(1900, 1, 1, tzinfo=UTC)
"""Older than any recorded debate a desk checks; an earlier date is a typing slip (``0020-10-22``)."""


_NUMBER: Final = re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?")
# The written forms taken, exactly those published (``_HELD_AT_SCHEMA``): a date, or an RFC 3339 timestamp,
# which carries seconds and its offset ("Z" for UTC). pydantic alone would also take "2020-10-22 21:30" or a
# timestamp with no offset, whose time zone nobody can know.
_DATE_PATTERN: Final = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_TIMESTAMP_PATTERN: Final = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_WRITTEN: Final = re.compile(f"(?:{_DATE_PATTERN})|(?:{_TIMESTAMP_PATTERN})")


def _text_or_moment(value: Any) -> Any:
    # A number, or a string of one, is no date: pydantic would read "20201022" as seconds since 1970.
    if isinstance(value, bool | int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value.strip())):
        raise ValueError("must be an ISO 8601 date or timestamp (a string such as 2020-10-22), not a number")
    if isinstance(value, str) and not _WRITTEN.fullmatch(value):
        raise ValueError(
            "must be a date (2020-10-22) or an RFC 3339 timestamp with seconds and its offset "
            "(2020-10-22T21:30:00Z, or +02:00, which is converted to UTC)"
        )
    return value


def _to_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# Published as what it takes: a date or a timestamp (pydantic's own schema said timestamps only).
_HELD_AT_SCHEMA: Final = {"type": "string", "anyOf": [{"format": "date-time"}, {"format": "date"}]}
HeldAt = Annotated[
    datetime, BeforeValidator(_text_or_moment), AfterValidator(_to_utc), WithJsonSchema(_HELD_AT_SCHEMA)
]
"""A debate's date as a request names it: a date or timestamp, always UTC once read."""

_HELD_AT: Final = TypeAdapter(HeldAt)


def parse_held_at(value: str | date | datetime) -> datetime:
    """``value`` read as ``HeldAt`` reads it (a ``date`` is 00:00 UTC that day); raises ``InvalidChange``
    naming the field when it cannot be read."""
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day, tzinfo=UTC)
    try:
        return _HELD_AT.validate_python(value)
    except ValidationError as exc:
        raise InvalidChange(f"{HELD_AT_FIELD}: {exc.errors()[0]['msg']}") from exc


def accepted_held_at(value: str | date | datetime | None, now: datetime) -> datetime:
    """The debate's date for ``value`` (``now``, the upload time, when None), refused with
    ``InvalidChange`` when it lies before ``EARLIEST_HELD_AT`` or beyond ``FUTURE_TOLERANCE`` after ``now``."""
    held_at = now if value is None else parse_held_at(value)
    if held_at < EARLIEST_HELD_AT:
        _refuse(held_at, f"is before {EARLIEST_HELD_AT.date().isoformat()}")
    if held_at > now + FUTURE_TOLERANCE:
        _refuse(held_at, f"is in the future (now is {_text(now)})")
    return held_at


def _refuse(held_at: datetime, why: str) -> None:
    raise InvalidChange(f"{HELD_AT_FIELD} {_text(held_at)} {why}: a debate's date is when it took place")


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
