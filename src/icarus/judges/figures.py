"""Figure statements: which way a stated figure moved, read by rule, so a claim's "fell 12%" can be held
against a passage's "down 12%" or "up 12%".

Neural stance models read numbers and directions poorly (docs/evaluation.md, "Quantities and directions"):
the shipped cross-encoder takes "rose 12%" as support for "fell 12%". This module is the deterministic
part a judge can lean on instead. Pure functions; no model.

A *figure statement* is a figure (``text.quantities``: value and folded unit, never a year; digits glued
to letters or joined by "-" or "/", as in "CO2" or "COVID-19", are names and are skipped) with the
direction word nearest to it in its clause: up to ``WORDS_BEFORE`` words before the figure ("fell by
roughly 12%", "a decrease of 12 percent") or, as a noun or comparative, ``WORDS_AFTER`` words after it
("a 12% drop", "8% higher"). A bare four-digit figure from 1800 to 2100 is taken for a year and skipped. The search
stops at a clause break, at another figure (in "down 12% from 46,800" the direction is the 12%'s) and, on
the left, at "than" ("higher than 56 °C" bounds a figure, it does not say it moved). Its *kind* is
``level`` when "to" or "at" leads to the figure ("rose to 7.4 percent"), else ``change``. It is *negated*
when a negation stands up to ``NEGATION_WORDS_BEFORE`` words before the direction word in the same clause
("did not fall 12%").

Comparing a claim with a passage (``compare_figures``), only figures of the same kind and unit meet, and
their values agree when both round to the coarser of the two stated precisions ("12%" meets "11.8%"):

- ``agree``: a claim statement with a direction meets a passage statement of the same value going the same
  way (both plain, or both negated);
- ``conflict``: the same value going the other way, or one side negated ("fell 12%" against "rose 12%" or
  "did not fall 12%").

Anything else (no direction on either side, no same value) is ``none``: a different figure may describe a
different quantity, so a lone mismatch of values is not read as a refutation here.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from functools import lru_cache

from icarus.text import words as tx

__all__ = [
    "DOWN_WORDS",
    "NEGATION_WORDS_BEFORE",
    "UP_WORDS",
    "WORDS_AFTER",
    "WORDS_BEFORE",
    "FigureCheck",
    "FigureStatement",
    "FiguresOutcome",
    "compare_figures",
    "figure_side",
    "figure_statements",
]

UP_WORDS = frozenset(
    """rise rises rising rose risen increase increases increased increasing grow grows growing grew grown
    gain gains gained climb climbs climbed climbing jump jumps jumped surge surges surged soar soars
    soared up higher boost boosted rebound rebounded expand expanded expansion spike spiked accelerate
    accelerates accelerated quicken quickened""".split()
)
DOWN_WORDS = frozenset(
    """fall falls falling fell fallen drop drops dropped dropping decline declines declined declining
    decrease decreases decreased decreasing dip dips dipped slump slumped plunge plunged plummet plummeted
    shrink shrinks shrank shrunk cut cuts reduce reduces reduced reduction down lower slide slid slip
    slipped tumble tumbled contracted contraction sank sink loss lost slow slows slowed ease eases
    eased cool cools cooled""".split()
)
# After a figure, only a noun or comparative says which way it moved ("a 12% drop", "8% higher"); a verb
# there belongs to the sentence ("a temperature above 56 °C increased the yield").
_DIRECTIONS_AFTER = frozenset(
    """rise increase gain jump surge climb boost higher drop fall decline decrease cut cuts reduction loss
    lower slump dip plunge slide""".split()
)
# "fell by roughly 12%": three words between; "a decrease of almost 12%" likewise. "a 12% drop": one after.
WORDS_BEFORE = 4
WORDS_AFTER = 2
# "did not fall", "it is false that traffic fell": a negation this many words before the direction word, in
# its clause. Bounded, so that a page-long run of figures with no clause break is read in linear time.
NEGATION_WORDS_BEFORE = 5
_LEVEL_WORDS = frozenset({"to", "at"})
# Words that may stand between "to" and the figure without making it a change ("rose to about 7.4%").
_APPROXIMATORS = frozenset(
    {"about", "around", "roughly", "nearly", "almost", "approximately", "some", "over"}
)
# "up" and "down" are so often particles ("made up 40% of", "tore up a contract") that they count only
# right before the figure, or with "by" and approximators between ("down by about 12%"), and never after
# a verb they make a phrase with.
_PARTICLES = frozenset({"up", "down"})
_PARTICLE_GAP = frozenset({"by"}) | _APPROXIMATORS
_PHRASAL_VERBS = frozenset(
    """make makes made making take takes took taken pick picks picked add adds added sum sums summed end ends
    ended set sets rack racks racked shut shuts tear tears tore torn rip rips ripped break breaks broke
    turn turns turned""".split()
)
_YEAR_LIKE = re.compile(r"1[89]\d\d|20\d\d|2100")
_DIGITS = re.compile(r"\d[\d.,]*(?<![.,])")
# Words that dismiss a report without a negation: an agreeing figure does not outweigh them.
_DISMISSALS = frozenset({"rubbish", "nonsense", "rumor", "rumour", "hoax", "misleading", "wrong"})
_CLAUSE_BREAKS = frozenset({",", ";", ":", "but", "while", "whereas", "although", "though"})


class FiguresOutcome(StrEnum):
    AGREE = "agree"
    CONFLICT = "conflict"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class FigureStatement:
    """A figure with the direction stated for it (``up``, ``down``, or ``""`` when none is)."""

    figure: str  # the figure as written, e.g. "12%"
    value: Decimal
    unit: str
    direction: str
    kind: str  # "change" or "level"
    negated: bool

    def describe(self) -> str:
        way = f"{'not ' if self.negated else ''}{self.direction or 'no direction'}"
        return f"{self.figure} ({self.kind}, {way})"


@dataclass(frozen=True, slots=True)
class FigureCheck:
    """What ``compare_figures`` found, with the two statements that decided it (empty for ``none``)."""

    outcome: FiguresOutcome
    claim: str = ""
    passage: str = ""

    def to_json(self) -> dict[str, str]:
        return {"outcome": self.outcome.value, "claim": self.claim, "passage": self.passage}


def _direction(word: str) -> str:
    if word in UP_WORDS:
        return "up"
    if word in DOWN_WORDS:
        return "down"
    return ""


def _words(sentence: str) -> list[tuple[str, int, int]]:
    """Lower-cased words and the punctuation that breaks clauses, with their spans."""
    found = [(t.text, t.start, t.end) for t in tx.tokens(sentence)]
    found += [(ch, i, i + 1) for i, ch in enumerate(sentence) if ch in ",;:"]
    return sorted(found, key=lambda w: w[1])


def _part_of_name(sentence: str, start: int, end: int) -> bool:
    """Digits glued to letters or joined by a hyphen or slash name something ("CO2", "COVID-19", "S1/S2")."""
    before = sentence[start - 1] if start > 0 else " "
    after = sentence[end] if end < len(sentence) else " "
    return before.isalnum() or before in "-/" or after.isalpha() or after in "-/"


def _direction_before(words: list[tuple[str, int, int]], first: int) -> int:
    """Index of the direction word for a figure whose first word is ``words[first]``, or -1."""
    for i in range(first - 1, max(-1, first - 1 - WORDS_BEFORE), -1):
        word = words[i][0]
        if word in _CLAUSE_BREAKS or word == "than" or word[0].isdigit():
            # "higher than 56 °C" bounds the figure, it does not say it moved; and in "down 12% from 46,800"
            # the direction belongs to the nearer figure
            return -1
        if _direction(word):
            between = {w[0] for w in words[i + 1 : first]}
            phrasal = i > 0 and words[i - 1][0] in _PHRASAL_VERBS
            if word in _PARTICLES and (phrasal or not between <= _PARTICLE_GAP):
                return -1  # "tore up a 800 million contract", "made up 40%": a particle, not a movement
            return i
    return -1


def _direction_after(words: list[tuple[str, int, int]], last: int) -> int:
    """Index of the direction word following a figure that ends before ``words[last]``, or -1."""
    for i in range(last, min(len(words), last + WORDS_AFTER)):
        word = words[i][0]
        if word in _CLAUSE_BREAKS or word[0].isdigit():
            return -1
        if word in _DIRECTIONS_AFTER:
            return i
    return -1


def _negated(words: list[tuple[str, int, int]], where: int) -> bool:
    for i in range(where - 1, max(-1, where - 1 - NEGATION_WORDS_BEFORE), -1):
        if words[i][0] in _CLAUSE_BREAKS:
            return False
        if tx.is_negation(words[i][0]):
            return True
    return False


def _statements_in(sentence: str) -> list[FigureStatement]:
    words = _words(sentence)
    starts, ends = [w[1] for w in words], [w[2] for w in words]
    statements = []
    for figure in tx.quantities(sentence):
        digits = _DIGITS.search(sentence, figure.start)
        if digits is None or _part_of_name(sentence, digits.start(), digits.end()):
            continue
        if _YEAR_LIKE.fullmatch(figure.text):
            continue  # "the 2016 NASL fall season": a bare four-digit figure in this range is a year
        # bisection, not a scan: a long page can be one "sentence" of thousands of figures
        first = bisect_right(ends, figure.start)  # the first word ending after the figure starts
        last = bisect_left(starts, figure.end)  # the first word starting at or after its end
        where = _direction_before(words, first)
        if where < 0:
            where = _direction_after(words, last)
        direction = _direction(words[where][0]) if where >= 0 else ""
        lead = first - 1
        while lead >= 0 and words[lead][0] in _APPROXIMATORS:
            lead -= 1
        kind = "level" if lead >= 0 and words[lead][0] in _LEVEL_WORDS else "change"
        negated = bool(direction) and _negated(words, where)
        statements.append(FigureStatement(figure.text, figure.value, figure.unit, direction, kind, negated))
    return statements


@lru_cache(maxsize=4096)  # pure; a judge reads the same claim once per candidate passage
def figure_statements(text: str) -> tuple[FigureStatement, ...]:
    """Every figure of ``text`` with its direction, kind and negation, sentence by sentence, in order."""
    return tuple(s for a, b in tx.sentence_spans(text) for s in _statements_in(text[a:b]))


def _places(value: Decimal) -> int:
    exponent = value.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _same_figure(a: FigureStatement, b: FigureStatement) -> bool:
    if a.unit != b.unit or a.kind != b.kind:
        return False
    quantum = Decimal(1).scaleb(-min(_places(a.value), _places(b.value)))
    return a.value.quantize(quantum, ROUND_HALF_UP) == b.value.quantize(quantum, ROUND_HALF_UP)


def compare_figures(claim: str, passage: str) -> FigureCheck:
    """How the passage's figure statements bear on the claim's: see the module docstring. A conflict found
    for any claim figure wins over an agreement found for another."""
    claimed_moves = [s for s in figure_statements(claim) if s.direction]
    if not claimed_moves:
        return FigureCheck(FiguresOutcome.NONE)  # the common case: the passage need not be read
    stated = figure_statements(passage)
    agreement: FigureCheck | None = None
    for claimed in claimed_moves:
        for peer in stated:
            if not peer.direction or not _same_figure(claimed, peer):
                continue
            one_negated = claimed.negated != peer.negated
            if one_negated and claimed.direction != peer.direction:
                continue  # "did not fall 12%" and "rose 12%" can both be true; nothing to read
            same_way = not one_negated and claimed.direction == peer.direction
            check = FigureCheck(
                FiguresOutcome.AGREE if same_way else FiguresOutcome.CONFLICT,
                claimed.describe(),
                peer.describe(),
            )
            if not same_way:
                return check
            agreement = agreement or check
    return agreement or FigureCheck(FiguresOutcome.NONE)


def figure_side(claim: str, passage: str) -> tuple[str, FigureCheck]:
    """The side the figures settle, ``"support"``, ``"refute"`` or ``""``, with the check behind it.

    A conflict settles "refute". An agreement settles "support" only when neither text negates or denies
    anything: a restated figure says nothing about the rest of the claim, and a "not", "false" or
    "rubbish" elsewhere may be what the passage is about ("… 800 Million Contract … Called Rubbish").
    """
    check = compare_figures(claim, passage)
    if check.outcome is FiguresOutcome.CONFLICT:
        return "refute", check
    if check.outcome is FiguresOutcome.AGREE and not any(
        tx.is_negation(t.text) or t.text in _DISMISSALS for t in [*tx.tokens(claim), *tx.tokens(passage)]
    ):
        return "support", check
    return "", check
