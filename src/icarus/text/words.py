"""Small text tools shared by claims, research, provenance, the judges and the debates: tokens, a light
stemmer, sentences, quantities, years, places, the digits of a name. Shared so that an excerpt is cut at the
same sentence boundaries a judge reads."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from icarus.text.markers import NEGATION_WORDS

__all__ = [
    "ANTONYM_STEMS",
    "FIGURE_PREFIXES",
    "HEDGE_WORDS",
    "MONTHS",
    "STOPWORDS",
    "Quantity",
    "Token",
    "content_stems",
    "is_negation",
    "months",
    "part_of_name",
    "places",
    "quantities",
    "same_value",
    "sentence_spans",
    "stated_figures",
    "stem",
    "tokens",
    "years",
]

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:'[A-Za-z]+)*|\d+(?:[.,]\d+)*")

STOPWORDS = frozenset(
    """a an the and or but if then so than that this these those there here of to in on at by for from with
    as into onto over under about above below between through during before after since until while
    is are was were be been being am do does did done has have had having will would shall should can could
    may might must it its it's he she they them their his her we our you your i me my us who whom whose
    which what when where why how all any both each few other some such only own same too very just also
    not no nor never s t one ones per via than upon within without yet still even much many most more less
    said says say told according new""".split()
)

# Claim-side and evidence-side negation: the shared G2 list plus words that deny or debunk.
_DENIAL_WORDS = frozenset(
    {"denied", "denies", "deny", "false", "falsely", "debunked", "debunk", "myth", "hoax", "untrue",
     "refuted", "disproved", "baseless", "unfounded", "fake"}
)  # fmt: skip

HEDGE_WORDS = frozenset(
    {"may", "might", "could", "possibly", "perhaps", "suggest", "suggests", "suggested", "likely",
     "unclear", "uncertain", "preliminary", "reportedly", "allegedly", "appears", "apparently"}
)  # fmt: skip

_ANTONYM_WORDS: tuple[tuple[str, str], ...] = (
    ("rise", "fall"), ("rise", "drop"), ("rise", "decline"), ("rising", "falling"), ("rose", "fell"),
    ("increase", "decrease"), ("increase", "decline"), ("increase", "reduce"), ("increase", "drop"),
    ("more", "less"), ("more", "fewer"), ("higher", "lower"), ("high", "low"), ("approve", "reject"),
    ("accept", "reject"), ("gain", "loss"), ("gain", "lose"), ("grow", "shrink"), ("grew", "shrank"),
    ("warm", "cool"), ("warming", "cooling"), ("warmer", "cooler"), ("up", "down"), ("above", "below"),
    ("expand", "contract"), ("strengthen", "weaken"), ("win", "lose"), ("won", "lost"), ("allow", "ban"),
    ("allow", "forbid"), ("raise", "cut"), ("raise", "lower"), ("true", "false"), ("safe", "dangerous"),
    ("safe", "unsafe"), ("positive", "negative"), ("largest", "smallest"), ("most", "least"),
    ("fast", "slow"), ("faster", "slower"), ("accelerate", "decelerate"), ("accelerate", "slow"),
    ("support", "oppose"), ("legal", "illegal"), ("alive", "dead"), ("success", "failure"),
    ("benefit", "harm"), ("help", "harm"), ("hot", "cold"), ("thicken", "thin"), ("gain", "lost"),
    ("majority", "minority"), ("maximum", "minimum"), ("surplus", "deficit"), ("profit", "loss"),
)  # fmt: skip

MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)  # fmt: skip
_NOT_PLACES = frozenset(
    {*MONTHS, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "the", "a",
     "an", "this", "that", "his", "her", "their", "our", "its", "it", "he", "she", "they", "we", "i",
     "spring", "summer", "autumn", "fall", "winter", "january", "english", "science", "nature"}
)  # fmt: skip
_GAZETTEER = frozenset(
    {"africa", "antarctica", "antarctic", "arctic", "asia", "australia", "europe", "north america",
     "south america", "latin america", "middle east", "oceania", "greenland", "siberia", "sahara",
     "amazon", "pacific", "atlantic", "mediterranean", "himalaya", "alps", "argentina", "bangladesh",
     "brazil", "canada", "chile", "china", "colombia", "egypt", "ethiopia", "france", "germany", "ghana",
     "greece", "india", "indonesia", "iran", "iraq", "ireland", "israel", "italy", "japan", "kenya",
     "mexico", "morocco", "netherlands", "new zealand", "nigeria", "norway", "pakistan", "peru",
     "philippines", "poland", "portugal", "russia", "saudi arabia", "south africa", "south korea",
     "spain", "sweden", "switzerland", "syria", "taiwan", "thailand", "turkey", "uganda", "ukraine",
     "united kingdom", "britain", "england", "scotland", "wales", "united states", "america",
     "venezuela", "vietnam", "california", "texas", "florida", "new york", "london", "paris", "beijing",
     "tokyo", "moscow", "washington"}
)  # fmt: skip
_PLACE_AFTER = re.compile(
    r"\b(?:in|at|from|across|throughout|near|inside|outside)\s+(?:the\s+)?"
    r"(?P<place>[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*)"
)
_GAZETTEER_PATTERN = re.compile(
    r"\b(?:" + "|".join(sorted((re.escape(p) for p in _GAZETTEER), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)

# A word before a hyphen that joins it to a figure rather than naming something: "top-10", "over-65s",
# "1-in-5", "mid-30s" state figures; "COVID-19", "F-35", "Type-2" are names.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[A-Z0-9\"'“‘(\[])|\n+")

_SCALES = {"thousand": Decimal(10) ** 3, "million": Decimal(10) ** 6, "billion": Decimal(10) ** 9,
           "trillion": Decimal(10) ** 12, "bn": Decimal(10) ** 9}  # fmt: skip
_QUANTITY = re.compile(
    r"(?P<currency>[$£€])?\s?(?P<number>\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn)\b)?"
    r"(?:\s?(?P<unit>%|percent\b|per\s?cent\b|°\s?[CF]\b|degrees?\b))?"
    r"(?:\s+(?P<next>[A-Za-z]+))?",
    re.IGNORECASE,
)
# What may stand before a year: a preposition, a month ("October 2024"), or a day ("16, 2024").
_YEAR_BEFORE = re.compile(
    r"(?:\b(?:in|since|by|from|until|till|to|of|during|between|and|before|after|around|circa|c\.|"
    r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)\.?|\b(?:january|february|march|april|june|july|"
    r"august|september|october|november|december)|\b\d{1,2},)\s*$",
    re.IGNORECASE,
)
# The longest word _YEAR_BEFORE can match before its white space ("september", "c.") is 10 characters: a year's
# context is read from this many characters before that white space, not from the whole text before it, so
# a long page full of figures costs linear time.
_YEAR_CONTEXT_CHARS = 16
_MONTH_PATTERN = re.compile(r"\b(?:" + "|".join(m for m in MONTHS if m != "may") + r")\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Token:
    text: str  # lower-cased, straight apostrophes
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Quantity:
    """A stated number with its unit folded: ``%``, ``deg``, a currency symbol, or the noun it counts."""

    value: Decimal
    unit: str
    start: int
    end: int
    text: str


def tokens(text: str) -> list[Token]:
    text = text.replace("’", "'")
    return [Token(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


@lru_cache(maxsize=1 << 16)  # pure, and judges stem the same words over and over
def stem(word: str) -> str:
    """A deliberately small suffix stripper: enough to meet "increases", "increased" and "increasing" at
    one stem, not a linguistic analysis. Words it does not know are left alone."""
    word = word.lower().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ations") or word.endswith("ation"):
        word = word[: word.rindex("ation")] + "at"
    elif (word.endswith("ies") and len(word) > 4) or (word.endswith("ied") and len(word) > 4):
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix, shortest_base in (("ing", 3), ("ed", 3), ("ly", 4)):
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest_base:
            base = word[: -len(suffix)]
            if any(vowel in base for vowel in "aeiouy"):
                word = base
                if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                    word = word[:-1]  # running -> run, stopped -> stop
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


ANTONYM_STEMS: tuple[tuple[str, str], ...] = tuple(
    dict.fromkeys((stem(a), stem(b)) for a, b in _ANTONYM_WORDS if stem(a) != stem(b))
)


def is_negation(token: str) -> bool:
    return token in NEGATION_WORDS or token in _DENIAL_WORDS or token.endswith("n't")


def content_stems(words: list[Token]) -> list[str]:
    """Stems of the words that carry content: no stop words, no numbers, no negations."""
    return [
        stem(t.text)
        for t in words
        if t.text not in STOPWORDS and not t.text[0].isdigit() and not is_negation(t.text) and len(t.text) > 1
    ]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Half-open spans of the sentences of ``text``, trimmed of surrounding white space."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in [*_SENTENCE_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        if match is not None:
            # keep closing quotes and brackets with the sentence they close
            end += len(match.group(0)) - len(match.group(0).lstrip("\"'”’)]"))
        while start < end and text[start].isspace():
            start += 1
        stop = end
        while stop > start and text[stop - 1].isspace():
            stop -= 1
        if stop > start:
            spans.append((start, stop))
        start = match.end() if match else len(text)
    return spans


def _decimal(number: str) -> Decimal | None:
    try:
        return Decimal(number.replace(",", ""))
    except InvalidOperation:
        return None


def _is_year(match: re.Match[str], text: str) -> bool:
    number = match.group("number")
    if match.group("currency") or match.group("scale") or match.group("unit"):
        return False
    if not (len(number) == 4 and number.isdigit() and 1500 <= int(number) <= 2100):
        return False
    following = (match.group("next") or "").lower()
    # "in 2019", "since 1880", "2010 were": a year; "2000 people": a count.
    return _year_context_before(text, match.start()) or not following or following in STOPWORDS


def _year_context_before(text: str, start: int) -> bool:
    """Whether a preposition, month or day stands before ``text[start:]``, white space between: the same
    answer as ``_YEAR_BEFORE.search(text[:start])``, reading only the ``_YEAR_CONTEXT_CHARS`` characters
    before that white space. (A match starting at the window's first character would be longer than any
    word the pattern knows, so the window's edge never stands in for a word boundary.)"""
    blank = start
    while blank > 0 and text[blank - 1].isspace():
        blank -= 1
    return _YEAR_BEFORE.search(text[max(0, blank - _YEAR_CONTEXT_CHARS) : start]) is not None


def years(text: str) -> set[int]:
    return {int(m.group("number")) for m in _QUANTITY.finditer(text) if _is_year(m, text)}


def months(text: str) -> set[str]:
    return {m.group(0).lower() for m in _MONTH_PATTERN.finditer(text)}


def quantities(text: str) -> list[Quantity]:
    """Stated figures other than years, with values scaled ("1.5 million") and units folded."""
    found: list[Quantity] = []
    for match in _QUANTITY.finditer(text):
        if _is_year(match, text):
            continue
        value = _decimal(match.group("number"))
        if value is None:
            continue
        scale = (match.group("scale") or "").lower()
        if scale:
            value *= _SCALES[scale]
        unit_text = (match.group("unit") or "").lower().replace(" ", "")
        if unit_text == "%" or unit_text.startswith("per"):
            unit = "%"
        elif unit_text.startswith("°") or unit_text.startswith("degree"):
            unit = "deg"
        elif match.group("currency"):
            unit = match.group("currency")
        else:
            following = (match.group("next") or "").lower()
            unit = stem(following) if following and following not in STOPWORDS else ""
        end = (
            match.end("unit") if match.group("unit") else match.end("scale") if scale else match.end("number")
        )
        found.append(Quantity(value, unit, match.start(), end, text[match.start() : end].strip()))
    return found


def stated_figures(text: str) -> list[Quantity]:
    """``quantities`` without the digits of names and codes ("COVID-19", "G7", "H1N1"): the figures a
    debate's research compares. The judges keep reading ``quantities`` as they were trained on it, so
    their recorded validation numbers still reproduce; a new judge version may move to this reading."""
    return [q for q in quantities(text) if not part_of_name(text, _digits_start(text, q.start))]


def _digits_start(text: str, start: int) -> int:
    """Where a quantity's digits start: its match may begin at a currency sign or a space before them."""
    while start < len(text) and not text[start].isdigit():
        start += 1
    return start


# Words that a hyphen joins to a figure only to qualify it ("top-10", "over-65s" reads "65").
FIGURE_PREFIXES = frozenset({"top", "bottom", "pre", "post", "mid", "sub", "non", "anti", "ex", "near", "up"})


def part_of_name(text: str, start: int, small_words: frozenset[str] = STOPWORDS) -> bool:
    """Whether the digits at ``text[start:]`` belong to a name or code rather than state a figure: joined to
    a letter ("G7", "MH17", "H1N1", "CO2"), or to a word by a hyphen ("COVID-19", "F-35", "SARS-CoV-2"),
    unless that word only qualifies the figure (``FIGURE_PREFIXES``, or one of ``small_words`` as in
    "1-in-5")."""
    if start == 0:
        return False
    before = text[start - 1]
    if before.isalpha():
        return True
    if before != "-":
        return False
    word_start = start - 1
    while word_start > 0 and text[word_start - 1].isalpha():
        word_start -= 1
    word = text[word_start : start - 1].casefold()
    return bool(word) and word not in FIGURE_PREFIXES and word not in small_words


def same_value(a: Decimal, b: Decimal) -> bool:
    """Equal within half a percent: "3.1" and "3.10" agree, "12" and "13" do not."""
    if a == b:
        return True
    largest = max(abs(a), abs(b))
    return largest > 0 and abs(a - b) / largest <= Decimal("0.005")


def places(text: str) -> set[str]:
    """Place names: a small gazetteer, and capitalised names after "in", "at", "from", "across"..."""
    found = {m.group(0).lower() for m in _GAZETTEER_PATTERN.finditer(text)}
    for match in _PLACE_AFTER.finditer(text):
        words = match.group("place").split()
        while words and words[0].lower() in _NOT_PLACES:
            words.pop(0)
        if words:
            found.add(" ".join(words).lower())
    return found
