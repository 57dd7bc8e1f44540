"""Small text helpers shared by the query planner, the corpus and the web providers."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime

from dateutil import parser as date_parser

from icarus.claims.queries import X_HOSTS

__all__ = [
    "NEGATIONS",
    "STOPWORDS",
    "X_HOSTS",
    "is_content_word",
    "parse_datetime",
    "strip_markup",
    "tokens",
]

# Function words that carry no search signal. Negations are kept apart (NEGATIONS): the claim's own wording
# keeps them, because "not" changes what a close-wording search should find.
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll m o re ve y say says said according near via per
    """.split()
)

NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "without", "neither", "cannot", "n't"})

# Hosts of X (formerly Twitter). Research never searches them: a post on X never corroborates a claim.

# A word, number or compound: "COVID-19", "4.1", "1,000", "U.S", "don't". Joiners only count between
# word characters, so trailing punctuation is dropped.
_TOKEN = re.compile(r"\w+(?:['’.,/-]\w+)*")
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_HANDLE = re.compile(r"(?<!\w)@\w+")
_TAG = re.compile(r"<[^>]{0,2000}>")
_SPACE = re.compile(r"\s+")


def tokens(text: str) -> list[str]:
    """Words of ``text`` in order, with URLs, @handles and bare X/Twitter host names removed."""
    text = _HANDLE.sub(" ", _URL.sub(" ", text))
    return [token for token in _TOKEN.findall(text) if token.lower().split("/")[0] not in X_HOSTS]


def is_content_word(token: str) -> bool:
    """True for a word worth searching for: not a stopword or negation; a number counts."""
    lowered = token.lower().replace("’", "'")
    if lowered in STOPWORDS or lowered in NEGATIONS:
        return False
    return len(lowered) > 1 or lowered.isdigit()


def strip_markup(fragment: str) -> str:
    """Plain text of a short HTML fragment (search snippets carry <b>, <span class=searchmatch>, &amp;)."""
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", fragment))).strip()


_DATE_FORMATS = (
    "%Y%m%dT%H%M%SZ",  # GDELT seendate
    "%Y%m%d%H%M%S",
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
    "%d %b %Y",
)
# Two different fill-in dates: a string that names its own day, month and year parses the same against both,
# so a date missing a part ("October 2020") is refused rather than completed with an invented one.
_FILL_INS = (datetime(1801, 1, 1), datetime(1802, 2, 2))
# dateutil reads a two-digit year against today's century; only a written-out year is read.
_FULL_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")


def parse_datetime(value: object) -> datetime | None:
    """A UTC datetime from the date shapes corpora and search APIs use; ``None`` when unreadable.

    A value without a time zone is read as UTC: these are publication dates, where a day matters and an
    hour rarely does. Years outside 1800–2200 are treated as garbage.
    """
    parsed: datetime | None = None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value) / 1000 if abs(value) >= 1e11 else float(value)  # epoch ms or s
        try:
            parsed = datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str) and value.strip():
        parsed = _parse_date_string(value.strip())
    if parsed is None or not 1800 <= parsed.year <= 2200:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _parse_date_string(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    try:
        return parsedate_to_datetime(text)  # RFC 2822, as in HTTP and feed dates
    except (TypeError, ValueError, IndexError):
        pass
    return _day_first(text)


def _day_first(text: str) -> datetime | None:
    """Other written dates, read by dateutil with the day first: "2-10-2020" (the D-M-YYYY of corpora built
    from AVeriTeC) is 2 October 2020. A month over 12 still reads as US order ("12/25/2020")."""
    if _FULL_YEAR.search(text) is None:
        return None
    readings: set[datetime] = set()
    for fill_in in _FILL_INS:
        try:
            reading: datetime = date_parser.parse(text, dayfirst=True, default=fill_in)
        except (ValueError, OverflowError):
            return None
        readings.add(reading)
    return readings.pop() if len(readings) == 1 else None
