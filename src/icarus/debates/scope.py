"""Does a document measure what the claim states: the same quantity, for the same place and period?

A page on the right topic may measure something else: inflation for a claim about GDP growth, another
country, an older year. Such a document is set aside: context only, never evidence, never a source. The
check is deterministic and reads the claim's own figures (``icarus.claims.figures``) and the stated
quantities, years and places of both texts (``icarus.text.words``):

* quantity: the claim states a figure for a measure ("unemployment", "container traffic") and the document
  states figures but names none of that measure's words → ``different_quantity``;
* geography: the claim names places and the document names none of them but names other places →
  ``different_geography``;
* period: a dated claim ("in 2023") and a document whose stated years (or, with none stated, its
  publication year, when earlier) miss the claim's → ``different_period``. A claim in the present tense
  speaks for the day it was made (the debate's ``held_at``, not the day it is checked): a figure one or
  two years older is kept (``PRESENT_TENSE_TOLERANCE_YEARS``), three or more years older is set aside,
  and so is a document that speaks only of later years (``LATER_PUBLICATION_TOLERANCE_YEARS`` for one
  dated by its publication alone). A claim that names a fixed past moment ("at independence", "back
  then", "in the 1960s") is about that moment, so no figure is too old for it.

Kept documents are ``same_scope``, or ``unclear`` when they might not measure exactly what the claim states
(the document names neither the measure nor a figure, or the judge read a scope mismatch the rules above
do not settle).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from icarus.claims import extract_figures
from icarus.claims.cues import temporal_scope
from icarus.debates.model import ScopeDecision
from icarus.ledger import TemporalScope
from icarus.ledger.judgments import ScopeAnswer, ScopeDimension
from icarus.text import words as tx

__all__ = [
    "COUNTRY_NAMES",
    "KEPT_DECISIONS",
    "LATER_PUBLICATION_TOLERANCE_YEARS",
    "PRESENT_TENSE_TOLERANCE_YEARS",
    "ClaimScope",
    "ScopeCheck",
    "check_scope",
    "country_places",
    "describe_set_aside",
    "names_past_moment",
]

PRESENT_TENSE_TOLERANCE_YEARS: Final = 2
"""How many years old a figure may be and still speak to a claim stated in the present tense."""
LATER_PUBLICATION_TOLERANCE_YEARS: Final = 1
"""How many years after a present-tense claim a page dated only by its publication may appear and still
speak to it: a year's figures are often published the next year."""
_PAST_MOMENT: Final = re.compile(
    r"\b(?:at|upon|before|by\s+the\s+time\s+of)\s+(?:the\s+time\s+of\s+)?(?:\w+'s\s+|its\s+|our\s+|their\s+)?"
    r"independence\b"
    r"|\bwhen\s+(?:\w+\s+){1,3}(?:became|gained|got|won)\s+(?:its\s+|our\s+|their\s+)?independen(?:t|ce)\b"
    r"|\bback\s+(?:in|then|when)\b|\bin\s+those\s+days\b|\bat\s+(?:that|the)\s+time\b"
    r"|\b(?:years|decades|a\s+century|centuries)\s+ago\b|\blast\s+century\b"
    r"|\bin\s+the\s+(?:early\s+|late\s+|mid-?)?(?:'?\d0|1[89]\d0|20\d0)s\b"
    r"|\bin\s+the\s+(?:early\s+|late\s+|mid-?)?(?:twen|thir|for|fif|six|seven|eigh|nine)ties\b"
    r"|\bwhen\s+(?:i|we|he|she|they)\s+(?:took|came\s+(?:in)?to|left)\s+(?:office|power)\b",
    re.IGNORECASE,
)
"""A claim fixed at a past moment without a year: that moment, not the present, is what it measures."""

KEPT_DECISIONS: Final = frozenset({ScopeDecision.SAME_SCOPE, ScopeDecision.UNCLEAR})
_MEASURES_SHOWN = 3  # what a set-aside document measures instead: its first few measures, enough to say


@dataclass(frozen=True)
class ClaimScope:
    """What the claim measures, where and when: read once, compared with every document."""

    measure_stems: frozenset[str]
    places: frozenset[str]
    years: frozenset[int]
    present_tense: bool
    as_of_year: int  # the year the claim was made: the debate's date
    past_moment: bool = False  # it names a fixed past moment ("at independence"): no figure is too old

    @classmethod
    def of(
        cls, text: str, as_of: datetime, whole_claim: str | None = None, country: str | None = None
    ) -> ClaimScope:
        """The scope of ``text``. A part of a claim that states no figure ("traffic fell in October") is
        about the measure of the ``whole_claim`` it was split from. A claim that names no place is about
        the debate's ``country`` (a name, or an ISO code ``COUNTRY_NAMES`` knows), when one is set.
        ``as_of`` is when the claim was made (the debate's date), not when it is checked."""
        places = frozenset(tx.places(text)) or country_places(country)
        stems = _measure_stems(text, places)
        if not stems and whole_claim:
            stems = _measure_stems(whole_claim, frozenset(tx.places(whole_claim)))
        return cls(
            measure_stems=frozenset(stems),
            places=places,
            years=frozenset(tx.years(text)),
            present_tense=temporal_scope(text, text) is not TemporalScope.HISTORICAL,
            as_of_year=as_of.year,
            past_moment=names_past_moment(text),
        )


def names_past_moment(text: str) -> bool:
    """Whether ``text`` fixes its claim at a past moment it names without a year ("at independence",
    "back then", "in the 1960s", "when we took office")."""
    return bool(_PAST_MOMENT.search(text))


_BRITAIN: Final = frozenset({"united kingdom", "britain", "england", "scotland", "wales"})
COUNTRY_NAMES: Final[Mapping[str, frozenset[str]]] = {
    "ar": frozenset({"argentina"}),
    "br": frozenset({"brazil"}),
    "ca": frozenset({"canada"}),
    "cl": frozenset({"chile"}),
    "cn": frozenset({"china"}),
    "co": frozenset({"colombia"}),
    "de": frozenset({"germany"}),
    "es": frozenset({"spain"}),
    "fr": frozenset({"france"}),
    "gb": _BRITAIN,
    "in": frozenset({"india"}),
    "it": frozenset({"italy"}),
    "jp": frozenset({"japan"}),
    "mx": frozenset({"mexico"}),
    "nl": frozenset({"netherlands"}),
    "pe": frozenset({"peru"}),
    "pt": frozenset({"portugal"}),
    "uk": _BRITAIN,
    "us": frozenset({"united states", "america"}),
    "ve": frozenset({"venezuela"}),
}
"""Country codes a debate's country filter may use, with the names a page would call the country by."""


def country_places(country: str | None) -> frozenset[str]:
    """The place names of a debate's country filter: its known names for an ISO code, the name itself for a
    name; nothing for a code not known here (so nothing is set aside for it)."""
    if not country or not country.strip():
        return frozenset()
    folded = country.strip().casefold()
    if folded in COUNTRY_NAMES:
        return COUNTRY_NAMES[folded]
    return frozenset({folded}) if len(folded) > 3 else frozenset()


@dataclass(frozen=True)
class ScopeCheck:
    """The decision about one document and, when it is set aside, what it measures instead."""

    decision: ScopeDecision
    measures: str = ""

    @property
    def kept(self) -> bool:
        return self.decision in KEPT_DECISIONS


def check_scope(
    claim: ClaimScope,
    text: str,
    published_at: datetime | None = None,
    judged: ScopeAnswer | None = None,
) -> ScopeCheck:
    """Whether the document ``text`` (title and body) measures the claim's quantity, place and period."""
    stated = _stated_measures(text)
    if claim.measure_stems and stated and not _mentions_any(text, claim.measure_stems):
        return ScopeCheck(ScopeDecision.DIFFERENT_QUANTITY, _humanise(stated, tx.places(text)))
    lowered = text.lower()
    if claim.places and not any(place in lowered for place in claim.places):
        other_places = tx.places(text) - claim.places
        if other_places:
            return ScopeCheck(
                ScopeDecision.DIFFERENT_GEOGRAPHY, f"figures for {', '.join(sorted(other_places))}"
            )
    period = _period_mismatch(claim, text, published_at)
    if period is not None:
        return ScopeCheck(ScopeDecision.DIFFERENT_PERIOD, period)
    if claim.measure_stems and not stated and not _mentions_any(text, claim.measure_stems):
        return ScopeCheck(ScopeDecision.UNCLEAR)
    if judged is not None and not judged.matches and _unsettled(claim, text, judged):
        return ScopeCheck(ScopeDecision.UNCLEAR)
    return ScopeCheck(ScopeDecision.SAME_SCOPE)


def _unsettled(claim: ClaimScope, text: str, judged: ScopeAnswer) -> bool:
    """Whether the judge's scope mismatch still stands after the checks above. A quantity mismatch does not
    when the document names the claim's measure: it then gives a value for the same quantity, which
    agrees or conflicts with the claim's, rather than measuring something else."""
    measured = bool(claim.measure_stems) and _mentions_any(text, claim.measure_stems)
    return any(dim is not ScopeDimension.QUANTITY or not measured for dim in judged.mismatched)


def describe_set_aside(measures: Iterable[str]) -> str:
    """One sentence saying what the set-aside sources measure instead of the claim's quantity."""
    seen: list[str] = []
    for measure in measures:
        if measure and measure not in seen:
            seen.append(measure)
    if not seen:
        return "Every document found measures something other than what the claim states."
    return (
        "Every document found measures something other than what the claim states: " + "; ".join(seen) + "."
    )


def _measure_stems(text: str, places: frozenset[str]) -> set[str]:
    place_words = {word for place in places for word in place.split()}
    stems: set[str] = set()
    for figure in extract_figures(text, 0, len(text)):
        stems.update(tx.stem(word) for word in figure.measure.split("_") if word and word not in place_words)
    if not stems:  # counts with a noun ("41,200 containers"): the noun is what is measured
        stems.update(q.unit for q in tx.quantities(text) if q.unit and q.unit.isalpha() and len(q.unit) > 2)
    return {stem for stem in stems if stem not in tx.STOPWORDS}


def _stated_measures(text: str) -> list[str]:
    measures: list[str] = []
    for figure in extract_figures(text, 0, len(text)):
        if figure.measure and figure.measure not in measures:
            measures.append(figure.measure)
    return measures


def _mentions_any(text: str, stems: frozenset[str]) -> bool:
    return bool(stems & {tx.stem(token.text) for token in tx.tokens(text)})


def _humanise(measures: list[str], places: set[str]) -> str:
    place_words = {word for place in places for word in place.split()}
    named = (" ".join(w for w in measure.split("_") if w not in place_words) for measure in measures)
    return ", ".join(name for name in list(named)[:_MEASURES_SHOWN] if name)


def _period_mismatch(claim: ClaimScope, text: str, published_at: datetime | None) -> str | None:
    years = tx.years(text)
    stated = {year for year in years if year <= claim.as_of_year}
    if claim.years:
        if stated and not stated & claim.years:
            return f"figures for {', '.join(str(year) for year in sorted(stated))}"
        if not stated and published_at is not None and published_at.year < min(claim.years):
            return f"material published in {published_at.year}, before the period the claim states"
        return None
    if not claim.present_tense:
        return None
    later = _after_the_claim(claim, years, stated, published_at)
    if later is not None:
        return later
    if claim.past_moment:
        return None  # "at independence, the population is ...": the claim's moment is in the past
    reference = max(stated) if stated else (published_at.year if published_at is not None else None)
    if reference is not None and claim.as_of_year - reference > PRESENT_TENSE_TOLERANCE_YEARS:
        return f"figures for {reference}, too old for a claim about the present"
    return None


def _after_the_claim(
    claim: ClaimScope, years: set[int], stated: set[int], published_at: datetime | None
) -> str | None:
    """A document about a later time than a present-tense claim was made in: it cannot measure that
    present (a 2024 figure for a claim made in a 2020 debate)."""
    if stated:
        return None
    if years:
        return f"figures for {', '.join(str(year) for year in sorted(years))}, after the claim was made"
    if published_at is not None and published_at.year - claim.as_of_year > LATER_PUBLICATION_TOLERANCE_YEARS:
        return f"material published in {published_at.year}, after the claim was made"
    return None
