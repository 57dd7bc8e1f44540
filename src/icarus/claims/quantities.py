"""Read stated quantities with their scale and unit, and pair the two levels of a "from A to B".

A *quantity* is a number as written (commas dropped, an exact ``Decimal``) with what qualifies it:

* a currency sign before it (``$``, ``£``, ``€``), or a currency word after it ("dollars", "euros");
* a scale word ("thousand", "million", "billion", "trillion", and the short "k", "m", "bn", "tn");
* a percent sign or word ("%", "percent", "per cent", "pct");
* or a noun after it, taken as its unit ("40 million *tonnes*", "80,000 *people*"), folded to lower case
  and singular ("tonnes" and "tonne" are one unit). Small words are never units ("45 *to*", "40 *last*
  year").

``level_pair`` reads the two levels of a "from A to B" phrase and says whether they are like for like.
A side that states no unit takes the other's ("from 40 to 45 per cent", "from 400 pages to 2,200"); a side
that states neither unit nor scale takes the other's scale too ("from 4.1 to 4.5 million"). Two different
units ("from 40 tonnes to 45 people") are not a pair, and neither are two bare years ("from 2010 to 2020").
The operands come back in the first level's scale ("from $800 billion to $1.7 trillion" is ``[800, 1700]``),
so a ratio between them is exact whatever the scale words.

Why a reader of our own and not a library: ``quantulum3`` (0.10) reads "from 40 to 45" as a range and
returns its midpoint, 42.5, which loses both operands; it reads "$3.2bn" as 3.0 "dollar barn newton" and
"5 percentage points" as 5 %; its unit classifier is a 20 MB model that needs scikit-learn, and a first
parse takes 1.8 s. ``pint`` converts physical units but finds no quantity in free text and knows no
currency, head count or scale word. docs/checking.md (Figures in a claim) gives the measurements.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

__all__ = [
    "LEVELS",
    "NOT_UNITS",
    "NUMBER",
    "PERCENT",
    "POINTS",
    "QUANTITY",
    "LevelPair",
    "Quantity",
    "level_pair",
    "quantity_from",
    "to_decimal",
]

NUMBER = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
PERCENT = r"\s?(?:%|per\s?cent\b|percent\b|pct\b)"
POINTS = r"[\s-]?(?:percentage[-\s]points?|points?|pp|pts?)\b"

SCALES: dict[str, Decimal] = {
    "thousand": Decimal(10) ** 3,
    "k": Decimal(10) ** 3,
    "million": Decimal(10) ** 6,
    "m": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "bn": Decimal(10) ** 9,
    "b": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
    "tn": Decimal(10) ** 12,
}
_CURRENCY_WORDS = {
    "dollar": "$",
    "usd": "$",
    "euro": "€",
    "eur": "€",
    "sterling": "£",
    "gbp": "£",
}
_CURRENCY_SIGNS = frozenset("$£€")
# Words after a number that are never its unit: function words, time words, and words that name what a
# number is about rather than what it counts in.
NOT_UNITS = frozenset(
    """a an the and or but nor if then so than that this these those there here of to in on at by for from
    with as into onto over under about above below between through during before after since until while
    is are was were be been being am do does did has have had will would shall should can could may might
    must it its he she they we you i who which what when where why how all any both each every few other
    some such only own same too very just also not no never one per via up down back last next past first
    year years month months week weeks day days annually yearly monthly weekly daily a.m p.m am pm level
    levels mark figure figures rate rates respectively alone""".split()
)
_HEDGE = r"(?:(?:about|around|nearly|almost|roughly|some|over|under|just|approximately|an?\s+estimated|more\s+than|less\s+than)\s+)*"
_SCALE = r"(?:thousand|million|billion|trillion|mn|bn|tn|[mkb])\b"
_NOUN = r"[^\W\d_][\w'’-]*"


def _quantity(tag: str) -> str:
    return (
        rf"(?P<{tag}cur>[$£€])?\s?(?P<{tag}n>{NUMBER})(?:\s?(?P<{tag}scale>{_SCALE}))?"
        rf"(?P<{tag}pct>{PERCENT})?"
    )


# "from [about] A [unit] [up to three words] [down|up|back] to [about] B [unit]"
LEVELS = re.compile(
    rf"\bfrom\s+{_HEDGE}{_quantity('a')}(?P<arest>(?:\s+{_NOUN}){{0,3}}?)"
    rf"\s+(?:(?:down|up|back)\s+)?to\s+{_HEDGE}{_quantity('b')}(?:\s+(?P<bnoun>{_NOUN}))?",
    re.IGNORECASE,
)


# One quantity with the noun after it, if any: what ``quantity_from(match, "q", match.group("qnoun"))``
# reads. It never starts inside a word or a number ("MH17", "1.5").
QUANTITY = re.compile(rf"(?<![\w.,]){_quantity('q')}(?:\s+(?P<qnoun>{_NOUN}))?", re.IGNORECASE)


def to_decimal(number: str) -> Decimal | None:
    """The number as written, commas dropped and a typographic minus read as one."""
    try:
        return Decimal(number.replace(",", "").replace("−", "-"))
    except InvalidOperation:
        return None


def _fold_unit(word: str) -> str:
    word = unicodedata.normalize("NFKC", word).lower().replace("’", "'")
    if word in NOT_UNITS:
        return ""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return _CURRENCY_WORDS.get(word, word)


@dataclass(frozen=True)
class Quantity:
    """A number as written, with the scale word and unit stated with it (``''`` where none is)."""

    number: Decimal
    scale: str
    unit: str
    start: int
    end: int

    @property
    def multiplier(self) -> Decimal:
        return SCALES.get(self.scale, Decimal(1))

    @property
    def bare(self) -> bool:
        return not self.scale and not self.unit

    @property
    def year_like(self) -> bool:
        """A whole number from 1500 to 2100 with no scale, percent or currency (a noun after it may be the
        sentence going on: "from 2005 to 2013 Jens ..."); read as a year when its partner is one too."""
        marked = self.scale or self.unit == "%" or self.unit in _CURRENCY_SIGNS
        whole = self.number == self.number.to_integral_value()
        return not marked and whole and 1500 <= self.number <= 2100


def quantity_from(match: re.Match[str], tag: str, noun: str | None) -> Quantity | None:
    """The quantity that the ``_quantity(tag)`` groups of ``match`` read, with ``noun`` as a candidate unit."""
    number = to_decimal(match.group(f"{tag}n"))
    if number is None:
        return None
    scale = (match.group(f"{tag}scale") or "").lower()
    if match.group(f"{tag}pct"):
        unit = "%"
    elif match.group(f"{tag}cur"):
        unit = match.group(f"{tag}cur")
    else:
        unit = _fold_unit(noun) if noun else ""
    # A lone "m", "k" or "b" is a scale only glued to the number or after a currency sign ("$3.2m", "40k");
    # "40 m" is forty metres.
    if scale in ("m", "k", "b") and not match.group(f"{tag}cur"):
        glued = match.end(f"{tag}n") == match.start(f"{tag}scale")
        if not glued:
            unit, scale = (unit or scale), ""
    start = match.start(f"{tag}cur") if match.group(f"{tag}cur") else match.start(f"{tag}n")
    end = max(match.end(f"{tag}n"), match.end(f"{tag}scale"), match.end(f"{tag}pct"))
    return Quantity(number, scale, unit, start, end)


@dataclass(frozen=True)
class LevelPair:
    """The two levels of a "from A to B": each as read, the shared unit, and ``[A, B]`` in A's scale."""

    first: Quantity
    second: Quantity
    unit: str
    operands: tuple[Decimal, Decimal]


def _rescaled(number: Decimal, source: Decimal, target: Decimal) -> Decimal:
    if source == target:
        return number
    return number * source / target if source > target else number / (target / source)


def level_pair(match: re.Match[str]) -> LevelPair | None:
    """The like-for-like pair a ``LEVELS`` match states, or None (different units, or two bare years)."""
    rest = (match.group("arest") or "").split()
    first = quantity_from(match, "a", rest[0] if rest else None)
    second = quantity_from(match, "b", match.group("bnoun"))
    if first is None or second is None:
        return None
    if first.year_like and second.year_like:
        return None  # "from 2010 to 2020": a period, not two levels
    if first.bare and not second.bare:
        first = Quantity(first.number, second.scale, second.unit, first.start, first.end)
    elif second.bare and not first.bare:
        second = Quantity(second.number, first.scale, first.unit, second.start, second.end)
    elif not first.unit:
        first = Quantity(first.number, first.scale, second.unit, first.start, first.end)
    elif not second.unit:
        second = Quantity(second.number, second.scale, first.unit, second.start, second.end)
    if first.unit != second.unit:
        return None
    operands = (first.number, _rescaled(second.number, second.multiplier, first.multiplier))
    return LevelPair(first, second, first.unit, operands)
