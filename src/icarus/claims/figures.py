"""Read the percentages a claim states into ``Figure`` records the statistics rules recompute (H12–H15).

Three patterns, read within one claim:

* a change with both levels: "rose 5% … from 40% to 45%" is a ``percent_change`` of 5 with operands
  ``[40, 45]``; "rose 5 points from 40% to 45%" is a ``point_change`` in ``pp``. Levels may be any
  like-for-like quantities for a % change ("rose 12%, from 1.40 million to 1.57 million");
* a change alone: "fell 3.5%" is a ``percent_change`` of −3.5 with no operands (a relative figure with no
  base rate, which H15 looks for);
* levels: "from 31% to 27%" with no stated change gives two plain levels; any other "38%" is a level.

A fall is recorded as a negative change, so that a stated "fell 5%" is compared with the negative change
its operands give (H12, H13). The value is otherwise the number as written (commas dropped).

``measure`` is a key built from the nearest noun phrase: the content words just before the change verb or
the figure (skipping verbs and small words, up to four), or the words after "of" ("45% of voters"). Figure
spans are offsets into the claim's source field, like the claim's own span.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation

from icarus.claims.segment import VERB_CUES
from icarus.ledger.base import Span
from icarus.ledger.figures import Derivation, Figure

__all__ = ["FALL_VERBS", "RISE_VERBS", "extract_figures", "measure_key"]

RISE_VERBS = (
    "rose|risen|rises|rise|rising|increased|increases|increasing|grew|grown|grows|growing|climbed|climbs|"
    "jumped|jumps|surged|surges|soared|soars|gained|gains|went up|was up|were up|is up|are up|up"
)
FALL_VERBS = (
    "fell|fallen|falls|fall|falling|dropped|drops|dropping|declined|declines|declining|decreased|decreases|"
    "slipped|slips|sank|sinks|plunged|plunges|tumbled|shrank|shrunk|went down|was down|were down|"
    "is down|are down|down"
)
_NUM = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_PCT = r"\s?(?:%|per\s?cent\b|percent\b)"
_PTS = r"\s?(?:percentage[-\s]points?|points?|pp|pts?)\b"
_SCALE = r"\s?(?:hundred|thousand|million|billion|trillion|bn|m|k)\b"
_HEDGE = r"(?:\s+(?:about|around|nearly|almost|roughly|some|over|more\s+than|less\s+than|just|by))*"

_CHANGE = re.compile(
    rf"\b(?P<verb>{RISE_VERBS}|{FALL_VERBS}){_HEDGE}\s+(?P<n>{_NUM})(?:(?P<pct>{_PCT})|(?P<pts>{_PTS}))",
    re.IGNORECASE,
)
_LEVELS = re.compile(
    rf"\bfrom\s+(?P<a>{_NUM})(?P<au>{_PCT}|{_SCALE})?\s+to\s+(?P<b>{_NUM})(?P<bu>{_PCT}|{_SCALE})?",
    re.IGNORECASE,
)
_LEVEL = re.compile(rf"(?<![\w.,])(?P<n>{_NUM}){_PCT}", re.IGNORECASE)
_FALLS = frozenset(FALL_VERBS.split("|"))

_TOKEN = re.compile(r"[^\W\d_][\w'’.-]*|\S")
_SKIP = frozenset(
    """the a an of for in on at to by its their his her our my your this that these those through across
    among with from per into over under about around nearly almost roughly some all total overall
    meanwhile but also so just only more less than here there now currently""".split()
)
_STOP = frozenset("while whereas and or which who as when if because since after before".split())
_CHANGE_WORDS = frozenset((RISE_VERBS + "|" + FALL_VERBS).replace(" ", "|").split("|"))


def _decimal(number: str) -> Decimal | None:
    try:
        return Decimal(number.replace(",", "").replace("−", "-"))
    except InvalidOperation:
        return None


def _unit_kind(unit: str | None) -> str:
    """'%' for a percentage, the scale word for a magnitude, '' for a bare number."""
    if not unit:
        return ""
    word = unit.strip().lower()
    return "%" if word in ("%", "percent") or word.startswith("per") else word


def _is_verb(word: str) -> bool:
    return word in VERB_CUES or word in _CHANGE_WORDS or (len(word) > 4 and word.endswith("ed"))


def _clean(word: str) -> str:
    word = unicodedata.normalize("NFKC", word).lower()
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    return "".join(char for char in word if char.isalnum())


def measure_key(text: str, start: int, end: int, clause_start: int = 0) -> str:
    """A measure key for a figure at ``text[start:end]`` from the noun phrase nearest to it."""
    before = [m.group(0) for m in _TOKEN.finditer(text, clause_start, start)]
    collected: list[str] = []
    for raw in reversed(before):
        if raw in ",;:()[]—–" or raw in ".!?":
            if collected:
                break
            continue
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
    after = [_clean(m.group(0)) for m in _TOKEN.finditer(text, end, min(len(text), end + 120))]
    if after[:1] == ["of"]:
        for word in after[1:]:
            if not word or word in _STOP or _is_verb(word) or (collected and word in _SKIP):
                break
            if word not in _SKIP:
                collected.append(word)
            if len(collected) == 3:
                break
    return "_".join(collected) or "percentage"


def extract_figures(text: str, start: int, end: int) -> list[Figure]:
    """Figures stated in the claim ``text[start:end]``, in order of position."""
    figures: list[tuple[int, Figure]] = []
    taken: list[tuple[int, int]] = []
    levels = list(_LEVELS.finditer(text, start, end))
    used_levels: set[int] = set()

    for change in _CHANGE.finditer(text, start, end):
        value = _decimal(change.group("n"))
        if value is None:
            continue
        value = abs(value)
        if change.group("verb").lower() in _FALLS:
            value = -value
        points = change.group("pts") is not None
        operands: list[Decimal] = []
        for index in sorted(range(len(levels)), key=lambda i: abs(levels[i].start() - change.end())):
            found = levels[index]
            if index in used_levels:
                continue
            first, second = _decimal(found.group("a")), _decimal(found.group("b"))
            a_kind, b_kind = _unit_kind(found.group("au")), _unit_kind(found.group("bu"))
            same_kind = a_kind == b_kind or (not a_kind and b_kind == "%")
            if first is None or second is None or not same_kind or (points and b_kind != "%"):
                continue
            operands = [first, second]
            used_levels.add(index)
            taken.append(found.span())
            break
        measure = measure_key(text, change.start(), change.end(), start)
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

    for index, found in enumerate(levels):
        if index in used_levels or _unit_kind(found.group("bu")) != "%":
            continue
        if _unit_kind(found.group("au")) not in ("", "%"):
            continue
        measure = measure_key(text, found.start(), found.end(), start)
        for group in ("a", "b"):
            value = _decimal(found.group(group))
            if value is None:
                continue
            span_end = (
                found.end("bu")
                if group == "b"
                else (found.end("au") if found.group("au") else found.end("a"))
            )
            span = Span(start=found.start(group), end=span_end)
            figures.append((span.start, Figure(measure=measure, value=value, unit="%", span=span)))
        taken.append(found.span())

    for level in _LEVEL.finditer(text, start, end):
        if any(a <= level.start() < b for a, b in taken):
            continue
        value = _decimal(level.group("n"))
        if value is None:
            continue
        measure = measure_key(text, level.start(), level.end(), start)
        span = Span(start=level.start(), end=level.end())
        figures.append((level.start(), Figure(measure=measure, value=value, unit="%", span=span)))

    return [figure for _, figure in sorted(figures, key=lambda item: item[0])]
