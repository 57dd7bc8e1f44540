"""Identify the language of captured text that came without a declared one (pasted text, API text).

G0 gives a factual verdict only to English text, so a subject's ``language`` decides whether its claims
are checked. X declares each post's language; pasted text declares nothing, so it is identified here with
py3langid, whose naive Bayes model ships inside its wheel (no download, no network).

The rule, and why:

* Fewer than ``MIN_LETTERS`` letters: not identified at all. A few words are not enough to tell languages
  apart ("GDP grew 2%" reads as Polish about as well as English), so English, the service's language, is
  presumed.
* Otherwise the identifier ranks languages with probabilities calibrated for length (py3langid scales its
  scores by the square root of the text's size, so short texts get low confidence). A reading other than
  English counts only at ``CONFIDENCE_FLOOR`` or above; below it English is presumed, because a wrong
  "not English" withholds a verdict from an English claim on a coin toss, and the identifier's low
  readings on short English sentences are often some other language. Measured on the project's own
  strings (about 6,500 from its source and tests), with Pidgin left out: every reading other than English
  at 0.70 or more was text written wholly or mostly in that language, or ``zxx``.
* Nigerian Pidgin (``pcm``) is left out of the candidates: it is English-based, and its model claims
  short English news sentences ("Nigeria has 36 states…" at 0.88). ``zxx`` (no linguistic content) is
  read as no reading.

What is recorded: the language, the identifier's probability for it, and whether it was identified or
presumed (``LanguageSource``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Protocol

from icarus.ledger.subject import LanguageSource

__all__ = [
    "CONFIDENCE_FLOOR",
    "ENGLISH",
    "EXCLUDED_LANGUAGES",
    "MAX_SAMPLE_CHARS",
    "MIN_LETTERS",
    "LanguageReading",
    "Ranker",
    "identify_language",
]

ENGLISH = "en"
MIN_LETTERS = 12
"""Below this many letters a text is not identified; English is presumed."""
CONFIDENCE_FLOOR = Decimal("0.70")
"""The identifier's probability a reading other than English needs before it is recorded (and G0 fires)."""
EXCLUDED_LANGUAGES = frozenset({"pcm"})
"""Labels left out of the identifier's candidates (English-based, and it steals English sentences)."""
_NO_LANGUAGE = frozenset({"zxx"})
MAX_SAMPLE_CHARS = 20_000
"""Only the text's start is read: plenty to identify a language, and it bounds the time spent."""
_PLACES = Decimal("0.0001")


class Ranker(Protocol):
    def __call__(self, text: str) -> list[tuple[str, float]]:
        """Every candidate language with its probability, best first."""
        ...


@dataclass(frozen=True, slots=True)
class LanguageReading:
    """The language recorded on a subject: a BCP-47 tag, the identifier's probability for it (None when the
    text was not identified) and how it was arrived at."""

    language: str
    confidence: Decimal | None
    source: LanguageSource


def identify_language(text: str, *, rank: Ranker | None = None) -> LanguageReading:
    """The language of ``text`` by the rule in this module's docstring; ``rank`` replaces the model (tests)."""
    sample = text[:MAX_SAMPLE_CHARS]
    if sum(1 for char in sample if char.isalpha()) < MIN_LETTERS:
        return LanguageReading(ENGLISH, None, LanguageSource.PRESUMED)
    ranking = (rank or _model_rank)(sample)
    if not ranking:
        return LanguageReading(ENGLISH, None, LanguageSource.PRESUMED)
    best, probability = ranking[0]
    english = next((_unit(p) for label, p in ranking if label == ENGLISH), None)
    if best == ENGLISH:
        return LanguageReading(ENGLISH, _unit(probability), LanguageSource.DETECTED)
    if best in _NO_LANGUAGE or _unit(probability) < CONFIDENCE_FLOOR:
        return LanguageReading(ENGLISH, english, LanguageSource.PRESUMED)
    return LanguageReading(best, _unit(probability), LanguageSource.DETECTED)


def _unit(probability: float) -> Decimal:
    value = Decimal(repr(float(probability))).quantize(_PLACES, rounding=ROUND_HALF_EVEN)
    return min(max(value, Decimal(0)), Decimal(1))


_lock = threading.Lock()
_identifier: Any = None


def _model_rank(text: str) -> list[tuple[str, float]]:
    global _identifier
    with _lock:
        if _identifier is None:  # loading the model takes about a second: once per process
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            identifier.set_languages(
                [label for label in identifier.labels if label not in EXCLUDED_LANGUAGES]
            )
            _identifier = identifier
    ranked: list[tuple[str, float]] = _identifier.rank(text)
    return ranked
