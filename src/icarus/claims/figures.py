"""Read the percentages a claim states into ``Figure`` records the statistics rules recompute (H12–H15).

Three patterns, read within one claim:

* a change with both levels: "rose 5% … from 40% to 45%" is a ``percent_change`` of 5 with operands
  ``[40, 45]``; "rose 5 points from 40% to 45%" is a ``point_change`` in ``pp``. A change is stated by a
  verb ("rose 5%", "fell by 12%", "up 3%"), or by a noun, after its figure or before it with "of" ("a 10%
  increase", "a rise of 5%", "a 2-point drop"). Its levels are the nearest "from A to B" in the claim, on
  either side of it. For a % change they may be any like-for-like quantities, with scale words, currency and
  units ("rose 20% from 40 million tonnes to 45 million tonnes", "fell 12% from $3.2bn to $2.8bn"); for a
  change in points both must be percentages. ``icarus.claims.quantities`` reads the levels and says when
  they are like for like; the operands are in the first level's scale ("from $800 billion to $1.7
  trillion" gives ``[800, 1700]``). Two bare years ("from 2010 to 2020") are a period, never levels;
* a change alone: "fell 3.5%" is a ``percent_change`` of −3.5 with no operands (a relative figure with no
  base rate, which H15 looks for);
* levels: "from 31% to 27%" (or "from 31 to 27 per cent") with no stated change gives two plain levels;
  any other "38%" is a level;
* with ``evidence`` (what an evidence item's excerpt states): the changes as above, and as levels the
  counts and amounts with a unit instead of the percentages ("41,000 containers", "$3.2bn", "1.5 million
  tonnes"), in base units (1,500,000 ``tonne``), which H14 compares across clusters. A number with no unit,
  a duration ("10 years"), a date ("12 October"), a bare year and the digits of a name or code ("COVID-19",
  "G7", "F-35") are not read. A percentage level is left out: its measure key names the word before it,
  not whose share it is, so Earth's "0.04% carbon dioxide" and Venus's "96.5% carbon dioxide" would
  conflict. Claims are read without ``evidence``: a claim's levels feed no rule, and its figures steer the
  research queries.

A fall is recorded as a negative change, so that a stated "fell 5%" is compared with the negative change
its operands give (H12, H13). The value is otherwise the number as written (commas dropped).

``measure`` is a key built from the nearest noun phrase: the content words just before the change verb or
the figure (skipping verbs and small words, up to four), or the words after "of" ("45% of voters"). A change
whose levels come first ("from 40% to 45%, a rise of 5%") takes its key from before the levels. Figure
spans are offsets into the claim's source field, like the claim's own span.

Per-capita figures and compound growth rates are not read from text; a ledger may still state them, and
H13 recomputes them there.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from decimal import Decimal

from icarus.claims.cues import MONTHS
from icarus.claims.quantities import (
    LEVELS,
    NOT_UNITS,
    NUMBER,
    PERCENT,
    POINTS,
    QUANTITY,
    SCALES,
    LevelPair,
    level_pair,
    quantity_from,
    to_decimal,
)
from icarus.claims.segment import VERB_CUES
from icarus.ledger.base import Span
from icarus.ledger.figures import Derivation, Figure
from icarus.text.words import part_of_name

__all__ = ["FALL_NOUNS", "FALL_VERBS", "RISE_NOUNS", "RISE_VERBS", "extract_figures", "measure_key"]

RISE_VERBS = (
    "rose|risen|rises|rise|rising|increased|increases|increasing|grew|grown|grows|growing|climbed|climbs|"
    "jumped|jumps|surged|surges|soared|soars|gained|gains|went up|was up|were up|is up|are up|up"
)
FALL_VERBS = (
    "fell|fallen|falls|fall|falling|dropped|drops|dropping|declined|declines|declining|decreased|decreases|"
    "slipped|slips|sank|sinks|plunged|plunges|tumbled|shrank|shrunk|went down|was down|were down|"
    "is down|are down|down"
)
# Nouns that state a change: "a rise of 5%", "a 10% increase".
RISE_NOUNS = "rise|increase|gain|jump|growth|surge|spike|climb|hike|boost|upturn|rebound"
FALL_NOUNS = "fall|drop|decline|decrease|cut|reduction|slump|dip|loss|downturn|slide"
_HEDGE = r"(?:\s+(?:about|around|nearly|almost|roughly|some|over|more\s+than|less\s+than|just|only|by))*"
_UNIT = rf"(?:(?P<pct>{PERCENT})|(?P<pts>{POINTS}))"

_VERB_CHANGE = re.compile(
    rf"\b(?P<verb>{RISE_VERBS}|{FALL_VERBS}){_HEDGE}\s+(?P<n>{NUMBER}){_UNIT}", re.IGNORECASE
)
_NOUN_OF_CHANGE = re.compile(
    rf"\b(?P<verb>{RISE_NOUNS}|{FALL_NOUNS})s?\s+of{_HEDGE}\s+(?P<n>{NUMBER}){_UNIT}", re.IGNORECASE
)
_FIGURE_NOUN_CHANGE = re.compile(
    rf"(?<![\w.,])(?P<n>{NUMBER}){_UNIT}[\s-]?(?P<verb>{RISE_NOUNS}|{FALL_NOUNS})\b", re.IGNORECASE
)
_CHANGES = (_VERB_CHANGE, _NOUN_OF_CHANGE, _FIGURE_NOUN_CHANGE)
# A change verb or noun between a change and a "from A to B" means the levels are another change's: in
# "increased 40 percent since 2009 ... claims have increased from 391,000 to 890,000" they are not the 40
# percent's. A bare "up" or "down" restates the change ("dropped 2 points, down from 12% to 9.9%").
_OTHER_CHANGE = "|".join(
    word
    for word in f"{RISE_VERBS}|{FALL_VERBS}|{RISE_NOUNS}|{FALL_NOUNS}".split("|")
    if word not in ("up", "down")
)
# How far a change's "from A to B" may stand from it (characters between them), and the longest such phrase
# looked back for when finding the levels before a change.
MAX_LEVEL_GAP = 160
_LEVELS_SPAN = 200
# How far before a "from A to B" a change word makes the levels its own ("have decreased from").
_LEVEL_OWNER_WINDOW = 24
_NEW_STATEMENT = re.compile(r";|\band\b", re.IGNORECASE)
_CHANGE_WORD = re.compile(rf"\b(?:{_OTHER_CHANGE})\b", re.IGNORECASE)
_LEVEL = re.compile(rf"(?<![\w.,])(?P<n>{NUMBER}){PERCENT}", re.IGNORECASE)
_FALLS = frozenset(FALL_VERBS.split("|")) | frozenset(FALL_NOUNS.split("|"))

_TOKEN = re.compile(r"[^\W\d_][\w'’.-]*|\S")
# How far before a figure its noun phrase is looked for (characters).
MEASURE_WINDOW = 300
_SKIP = frozenset(
    """the a an of for in on at to by its their his her our my your this that these those through across
    among with from per into over under about around nearly almost roughly some all total overall
    meanwhile but also so just only more less than here there now currently""".split()
)
_STOP = frozenset("while whereas and or which who as when if because since after before".split())
_OF = frozenset({"of"})
# After a change stated by a noun, what it measures follows: "a 40% drop in oil prices".
_NOUN_CHANGE_LEADS = frozenset({"in", "of", "for"})
_CHANGE_WORDS = frozenset((RISE_VERBS + "|" + FALL_VERBS).replace(" ", "|").split("|"))


def _is_verb(word: str) -> bool:
    return word in VERB_CUES or word in _CHANGE_WORDS or (len(word) > 4 and word.endswith("ed"))


def _clean(word: str) -> str:
    word = unicodedata.normalize("NFKC", word).lower()
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    return "".join(char for char in word if char.isalnum())


def measure_key(text: str, start: int, end: int, clause_start: int = 0) -> str:
    """A measure key for a figure at ``text[start:end]`` from the noun phrase nearest to it.

    Only the ``MEASURE_WINDOW`` characters before the figure are read, so that a claim of thousands of
    figures is read in linear time.
    """
    window = max(clause_start, start - MEASURE_WINDOW)
    before = [m.group(0) for m in _TOKEN.finditer(text, window, start)]
    if window > clause_start and before and not text[window - 1].isspace():
        before = before[1:]  # the window may open inside a word
    collected: list[str] = []
    for raw in reversed(before):
        if raw in ",;:()[]—–" or raw in ".!?":
            if collected:
                break
            continue
        if len(raw) == 1 and raw.isascii() and not raw.isalpha():
            continue  # a digit or a sign: what _clean would drop, without the cost
        word = _clean(raw)
        if not word or word.isdigit():
            continue
        if word in _STOP or _is_verb(word):
            if collected:
                break
            continue
        if word in _SKIP:
            continue
        collected.append(word)
        if len(collected) == 4:
            break
    if collected:
        return "_".join(reversed(collected))
    return after_phrase(text, end, _OF) or "percentage"


def after_phrase(text: str, end: int, leads: frozenset[str]) -> str:
    """A key from the words after ``text[:end]`` when a word of ``leads`` opens them ("45% of *voters*",
    "a 40% drop in *oil prices*"), or ``''``."""
    after = (_clean(m.group(0)) for m in _TOKEN.finditer(text, end, min(len(text), end + 120)))
    collected: list[str] = []
    if next(after, "") in leads:
        for word in after:
            if not word or word.isdigit() or word in _STOP or _is_verb(word) or (collected and word in _SKIP):
                break
            if word not in _SKIP:
                collected.append(word)
            if len(collected) == 3:
                break
    return "_".join(collected)


def _changes(text: str, start: int, end: int) -> list[re.Match[str]]:
    """Every stated change in ``text[start:end]``, in order; where two readings overlap the first is kept."""
    found = sorted(
        (match for pattern in _CHANGES for match in pattern.finditer(text, start, end)),
        key=lambda match: (match.start(), -match.end()),
    )
    kept: list[re.Match[str]] = []
    for match in found:
        if kept and match.start() < kept[-1].end():
            continue
        kept.append(match)
    return kept


def _gap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, b[0] - a[1], a[0] - b[1])


def _is_fall(change: re.Match[str]) -> bool:
    return " ".join(change.group("verb").lower().split()) in _FALLS


def _owned_elsewhere(text: str, levels_start: int, between: tuple[int, int], fall: bool) -> bool:
    """Whether a "from A to B" that comes before a change belongs to something else: a change word the
    other way just before it ("pH *decreased* from 8.25 to 8.14, representing an increase of almost 30% in
    H+ ions"), or a new statement between them ("from about 19 days to about 3 *and* an approximate 30%
    reduction")."""
    for owner in _CHANGE_WORD.finditer(text, max(0, levels_start - _LEVEL_OWNER_WINDOW), levels_start):
        if (" ".join(owner.group(0).lower().split()) in _FALLS) != fall:
            return True
    return _NEW_STATEMENT.search(text, *between) is not None


def _levels_for(
    change: re.Match[str],
    levels: list[tuple[re.Match[str], LevelPair | None]],
    starts: list[int],
    used: set[int],
    text: str,
    points: bool,
) -> tuple[int, re.Match[str], LevelPair] | None:
    """The nearest unused like-for-like "from A to B" within ``MAX_LEVEL_GAP`` characters of the change
    with no other change word between them (percentages only for a change in points), or None.
    ``starts`` are the levels' start offsets, in order."""
    low = bisect_left(starts, change.start() - MAX_LEVEL_GAP - _LEVELS_SPAN)
    high = bisect_right(starts, change.end() + MAX_LEVEL_GAP)
    nearby = [i for i in range(low, high) if _gap(levels[i][0].span(), change.span()) <= MAX_LEVEL_GAP]
    for index in sorted(nearby, key=lambda i: _gap(levels[i][0].span(), change.span())):
        found, pair = levels[index]
        if index in used or pair is None or (points and pair.unit != "%"):
            continue
        between = (min(found.end(), change.end()), max(found.start(), change.start()))
        if _CHANGE_WORD.search(text, *between):
            continue
        # The levels' own end: a noun read after the second level may be the "and" itself.
        after_levels = (pair.second.end, change.start())
        if found.start() < change.start() and _owned_elsewhere(
            text, found.start(), after_levels, _is_fall(change)
        ):
            continue
        return index, found, pair
    return None


def extract_figures(text: str, start: int, end: int, *, evidence: bool = False) -> list[Figure]:
    """Figures stated in the claim (or, with ``evidence``, the evidence excerpt) ``text[start:end]``, in
    order of position."""
    figures: list[tuple[int, Figure]] = []
    taken: list[tuple[int, int]] = []
    levels = [(match, level_pair(match)) for match in LEVELS.finditer(text, start, end)]
    starts = [match.start() for match, _ in levels]
    used_levels: set[int] = set()

    for change in _changes(text, start, end):
        value = to_decimal(change.group("n"))
        if value is None:
            continue
        value = abs(value)
        if _is_fall(change):
            value = -value
        points = change.group("pts") is not None
        operands: list[Decimal] = []
        measure_at = change.start()
        found_pair = _levels_for(change, levels, starts, used_levels, text, points)
        if found_pair is not None:
            index, levels_match, pair_read = found_pair
            operands = list(pair_read.operands)
            used_levels.add(index)
            taken.append(levels_match.span())
            measure_at = min(measure_at, levels_match.start())
        measure = ""
        if change.re is not _VERB_CHANGE:
            measure = after_phrase(text, change.end(), _NOUN_CHANGE_LEADS)
        measure = measure or measure_key(text, measure_at, change.end(), start)
        figure = Figure(
            measure=measure,
            value=value,
            unit="pp" if points else "%",
            derivation=Derivation.POINT_CHANGE if points else Derivation.PERCENT_CHANGE,
            operands=operands,
            relative=not points,
            base_rate_given=bool(operands),
            span=Span(start=change.start(), end=change.end()),
        )
        figures.append((change.start(), figure))
        taken.append(change.span())

    for index, (found, pair) in enumerate(levels):
        if index in used_levels or pair is None or pair.unit != "%":
            continue
        taken.append(found.span())
        if evidence:
            continue
        measure = measure_key(text, found.start(), found.end(), start)
        for side in (pair.first, pair.second):
            span = Span(start=side.start, end=side.end)
            figures.append((span.start, Figure(measure=measure, value=side.number, unit="%", span=span)))

    covered = bytearray(end - start + 1)
    for a, b in taken:
        covered[a - start : b - start] = b"\x01" * (b - a)
    for level in _LEVEL.finditer(text, start, end):
        value = to_decimal(level.group("n"))
        if covered[level.start() - start] or value is None or evidence:
            continue
        measure = measure_key(text, level.start(), level.end(), start)
        span = Span(start=level.start(), end=level.end())
        figures.append((level.start(), Figure(measure=measure, value=value, unit="%", span=span)))

    if evidence:
        figures += _count_levels(text, start, end, covered)
    return [figure for _, figure in sorted(figures, key=lambda item: item[0])]


def _count_levels(text: str, start: int, end: int, covered: bytearray) -> list[tuple[int, Figure]]:
    """Quantities in ``text[start:end]`` other than percentages and the figures already read (``covered``
    marks them), with a unit: see the module docstring."""
    found: list[tuple[int, Figure]] = []
    for match in QUANTITY.finditer(text, start, end):
        if match.group("qpct") or covered[match.start("qn") - start]:
            continue
        if part_of_name(text, match.start("qn"), NOT_UNITS):
            continue
        noun = match.group("qnoun")
        quantity = quantity_from(match, "q", noun)
        if quantity is None or not quantity.unit or quantity.unit in MONTHS:
            continue
        if quantity.year_like and "," not in match.group("qn"):
            continue  # "2019 results": a year, not a count; "2,019 results" is a count
        # A scale word of an earlier figure ("41 thousand people, 40k fans") names no measure.
        words = [word for word in measure_key(text, quantity.start, quantity.end, start).split("_")]
        measure = "_".join(word for word in words if word not in SCALES) or "_".join(words)
        value = quantity.number * quantity.multiplier
        span = Span(start=quantity.start, end=quantity.end)
        found.append((quantity.start, Figure(measure=measure, value=value, unit=quantity.unit, span=span)))
    return found
