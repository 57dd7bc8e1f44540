"""Pasted text gets its language identified, so G0's English-only rule can act on it."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from icarus.capture import capture_text
from icarus.capture.language import CONFIDENCE_FLOOR, MIN_LETTERS, identify_language
from icarus.claims import extract_claims
from icarus.ledger import LanguageSource, NotAssessedReason

FRENCH = "Le taux de chômage est tombé à 7,3 % au deuxième trimestre, son plus bas niveau depuis 2008."
ENGLISH = "The unemployment rate fell to 3.5 percent in May, the lowest level since 1969."


def ranked(label: str, probability: float, english: float = 0.01) -> object:
    return lambda text: [(label, probability), ("en", english)]


def test_french_text_is_recorded_as_french_with_its_confidence(captured_at: datetime) -> None:
    subject = capture_text(FRENCH, captured_at)
    assert subject.language == "fr" and subject.language_source is LanguageSource.DETECTED
    assert subject.language_confidence is not None and subject.language_confidence >= CONFIDENCE_FLOOR
    # G0's not-English rule: the claim is found but not assessed
    claims = extract_claims(subject, 5)
    assert claims.claims == [] and [c.not_assessed for c in claims.not_assessed] == [NotAssessedReason.SCOPE]


def test_english_text_is_recorded_as_english_and_checked(captured_at: datetime) -> None:
    subject = capture_text(ENGLISH, captured_at)
    assert subject.language == "en" and subject.language_source is LanguageSource.DETECTED
    assert subject.language_confidence is not None and subject.language_confidence > Decimal("0.9")
    assert [c.text for c in extract_claims(subject, 5).claims]


def test_a_link_in_the_text_does_not_sway_the_reading(captured_at: datetime) -> None:
    text = f"{FRENCH} https://example.org/the-latest-english-language-report-about-unemployment-rates"
    assert capture_text(text, captured_at).language == "fr"


def test_text_below_the_letter_minimum_is_not_identified() -> None:
    short = "é" * (MIN_LETTERS - 1) + " 2024 !"
    reading = identify_language(short, rank=ranked("fr", 0.99))
    assert (reading.language, reading.confidence, reading.source) == ("en", None, LanguageSource.PRESUMED)
    at_minimum = identify_language("é" * MIN_LETTERS, rank=ranked("fr", 0.99))
    assert at_minimum.language == "fr" and at_minimum.source is LanguageSource.DETECTED


def test_a_reading_other_than_english_needs_the_confidence_floor() -> None:
    text = "a text long enough to be identified"
    at_floor = identify_language(text, rank=ranked("fr", float(CONFIDENCE_FLOOR)))
    assert (at_floor.language, at_floor.confidence) == ("fr", CONFIDENCE_FLOOR)
    below = identify_language(text, rank=ranked("fr", float(CONFIDENCE_FLOOR) - 0.001, english=0.2))
    # English is presumed, and the ledger keeps the identifier's probability for English
    assert (below.language, below.confidence, below.source) == ("en", Decimal("0.2"), LanguageSource.PRESUMED)


def test_no_linguistic_content_is_no_reading() -> None:
    reading = identify_language("a text long enough to be identified", rank=ranked("zxx", 0.99))
    assert reading.language == "en" and reading.source is LanguageSource.PRESUMED


@pytest.mark.parametrize(
    "text",
    [
        "Nigeria has 36 states and 774 local governments",  # Nigerian Pidgin's model claims it at 0.88
        "Unemployment fell to 3.5% in May.",
        "Vaccines cause autism.",  # read as French at 0.31: below the floor
    ],
)
def test_short_english_sentences_stay_english(text: str, captured_at: datetime) -> None:
    assert capture_text(text, captured_at).language == "en"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Die Arbeitslosigkeit sank im Mai auf 3,5 Prozent.", "de"),
        ("A inflação subiu 5% em 2023.", "pt"),
        ("Le chômage a baissé de 3 % en mai selon l'INSEE.", "fr"),
    ],
)
def test_short_sentences_in_other_languages_are_identified(
    text: str, language: str, captured_at: datetime
) -> None:
    assert capture_text(text, captured_at).language == language
