"""The reported-speech rule: a claim that someone said something is settled only by evidence reporting them."""

from __future__ import annotations

import pytest

from icarus.judges.reported_speech import MAX_SPEAKER_WORDS, SPEAKER_WINDOW, reported_speech, reports_speaker

MASKS = "The surgeon general and the CDC both previously said masks are not effective"


def test_speaker_and_words_are_split_at_the_speech_verb() -> None:
    speech = reported_speech(MASKS)
    assert speech is not None
    assert speech.speaker == "The surgeon general and the CDC"
    assert speech.words == "masks are not effective"
    assert {"surgeon", "cdc"} <= speech.stems


@pytest.mark.parametrize(
    ("claim", "speaker"),
    [
        ("Biden said that inflation hit 9% in June.", "Biden"),
        ("Trump claims he won the election", "Trump"),
        ("The minister has repeatedly stated: taxes will not rise.", "The minister"),
        ("According to Reuters, the plant closed in 2019.", "Reuters"),
    ],
)
def test_claims_about_what_was_said_are_recognised(claim: str, speaker: str) -> None:
    speech = reported_speech(claim)
    assert speech is not None and speech.speaker == speaker


@pytest.mark.parametrize(
    "claim",
    [
        "Unemployment fell to 3.9% in May.",
        "Masks are not effective.",
        "The said agreement was never ratified",  # no speaker before the verb
    ],
)
def test_claims_about_the_world_are_not_reported_speech(claim: str) -> None:
    assert reported_speech(claim) is None


def test_a_speaker_longer_than_the_limit_is_not_a_speaker() -> None:
    words = " ".join(["word"] * MAX_SPEAKER_WORDS)
    assert reported_speech(f"{words} said rain is wet") is not None
    assert reported_speech(f"{words} more said rain is wet") is None


def test_evidence_about_the_subject_does_not_report_the_speaker() -> None:
    speech = reported_speech(MASKS)
    assert speech is not None
    assert not reports_speaker(speech, "Masks reduce transmission by half, a large trial found.")
    # the speaker named, but nothing said
    assert not reports_speaker(speech, "The surgeon general visited a hospital in Ohio.")


def test_evidence_that_reports_the_speaker_does() -> None:
    speech = reported_speech(MASKS)
    assert speech is not None
    assert reports_speaker(speech, "In February 2020 the surgeon general tweeted that masks do not work.")
    assert reports_speaker(speech, "The CDC denied ever giving such advice.")


def test_the_speaker_must_be_within_the_window_of_a_speech_verb() -> None:
    speech = reported_speech("Biden said taxes will rise")
    assert speech is not None
    near = "Biden " + "x " * (SPEAKER_WINDOW - 1) + "said"
    far = "Biden " + "x " * SPEAKER_WINDOW + "said"
    assert reports_speaker(speech, near)
    assert not reports_speaker(speech, far)
