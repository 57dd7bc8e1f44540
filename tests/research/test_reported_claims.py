"""Sentences that report a claim are not quoted as the source's evidence for it (``research.reported_claims``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icarus.judges.protocol import JudgeRequest
from icarus.judges.registry import create_judge
from icarus.research.excerpts import best_excerpt
from icarus.research.reported_claims import is_about_a_statement, reports_a_claim


@pytest.mark.parametrize(
    "sentence",
    [
        "Was the Eiffel Tower sold for scrap in 1925?",
        'Did the minister say "we cannot stop it?"',  # the question mark inside closing quotes
        "Claim: Masks lower your immune system.",
        "The claim - masks weaken immunity - spread in May.",
        "Rumour: the bridge will close.",
        "A viral post claims that Bill Gates wants to microchip people.",
        "He claimed to have found a cure.",
        "The mayor allegedly took the money.",
        "Critics allege that the figures were changed.",
        "It was rumoured that the plant would shut.",
        "Posts on Facebook say the vaccine alters DNA.",
        "Social media users said the video was recent.",
        "A chain message shared thousands of times states that 5G spreads the virus.",
    ],
)
def test_reports_of_a_claim_are_recognised(sentence: str) -> None:
    assert reports_a_claim(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Face masks do not weaken the immune system, immunologists told us.",
        "Container traffic fell 12% in October, the port said.",  # an authority's statement is reporting
        "He was charged over an alleged assault in 2017.",  # "alleged" naming a charge, not distance
        "The claims office opened in 1990.",  # "claims" as a noun, no label colon
        "The study found no effect on mortality.",
        "Fact check: the tower was never sold.",  # a checker's own conclusion
        "The Pentagon confirmed the strike on Tuesday.",
        "Users of the bridge said it was closed for a week.",  # witnesses, not where claims circulate
        "The message, the bank said, was that rates will fall.",
    ],
)
def test_sentences_that_assert_are_not_reports(sentence: str) -> None:
    assert not reports_a_claim(sentence)


def test_claims_about_statements_are_recognised() -> None:
    assert is_about_a_statement("Kirron Kher said rape is part of Indian culture.")
    assert is_about_a_statement("The CDC claimed that 98,000 people died.")
    assert is_about_a_statement("Trump tweeted that the election was rigged.")
    assert not is_about_a_statement("Masks lower immune systems.")
    assert not is_about_a_statement("The Eiffel Tower was sold for scrap in 1925.")


DEBUNK = (
    "Claim: Masks lower your immune system. Rating: False. "
    "Face masks do not weaken the immune system, immunologists told us. "
    "There is no evidence that wearing a mask lowers immunity."
)


def test_the_excerpt_of_a_debunk_is_its_finding_not_the_restated_claim() -> None:
    span = best_excerpt(DEBUNK, "Masks lower immune systems.")
    assert span.slice(DEBUNK) == "Face masks do not weaken the immune system, immunologists told us."


def test_a_question_restating_the_claim_is_passed_over() -> None:
    page = "Fact check: Was the Eiffel Tower sold for scrap in 1925? No. The tower was never sold for scrap."
    assert best_excerpt(page, "The Eiffel Tower was sold for scrap in 1925.").slice(page) == (
        "The tower was never sold for scrap."
    )


def test_a_claim_about_a_statement_keeps_the_report_of_it() -> None:
    page = "The weather was mild. The minister said on Monday that rates will fall. Markets rose."
    claim = "The minister said rates will fall."
    assert best_excerpt(page, claim).slice(page) == "The minister said on Monday that rates will fall."
    report = "Posts claim that rates will fall. Markets rose."
    assert (
        best_excerpt(report, "Posts claim rates will fall.").slice(report)
        == "Posts claim that rates will fall."
    )


def test_a_report_is_kept_when_nothing_else_shares_a_word_with_the_claim() -> None:
    page = "A viral post claims that the bridge will close in May. Uh oh."
    assert best_excerpt(page, "The bridge will close in May.").slice(page) == (
        "A viral post claims that the bridge will close in May."
    )


def test_the_offline_judge_reads_a_debunk_as_a_refutation() -> None:
    claim = "Masks lower immune systems."
    excerpt = best_excerpt(DEBUNK, claim).slice(DEBUNK)
    verdict = create_judge("offline-lexical@1").stance(
        JudgeRequest(claim_id="c1", claim_text=claim, evidence_id="e1", excerpt=excerpt, evidence_text=DEBUNK)
    )
    assert verdict.stance.value == "refute"


@given(st.text(max_size=300))
def test_any_question_or_labelled_claim_is_a_report(text: str) -> None:
    assert reports_a_claim(f"{text}?")
    assert reports_a_claim(f"Claim: {text}")


def test_a_megabyte_page_without_sentence_ends_is_read() -> None:
    page = "posts and tweets and memes " * 40_000  # about a megabyte, one "sentence", many near-matches
    assert not reports_a_claim(page)
    assert best_excerpt(page, "posts tweets memes").start == 0
