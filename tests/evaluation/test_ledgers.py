"""Evaluation ledgers: a gold passage becomes an anchored evidence item whose excerpt quotes the source."""

from __future__ import annotations

from icarus.evaluation.cases import Passage
from icarus.evaluation.ledgers import passage_item
from icarus.reputation.manual import default_registry
from icarus.research.excerpts import EXCERPT_MAX_CHARS

CLAIM = "Kirron Kher said rape is part of Indian culture and tradition."
QUESTION = "Did Kirron Kher say that rape is part of Indian culture and tradition?"


def _item(text: str, quote_start: int) -> tuple[str, str]:
    passage = Passage(
        key="q0a0",
        url="https://news.example.com/a",
        publisher="example.com",
        text=text,
        quote_start=quote_start,
    )
    item = passage_item(passage, CLAIM, default_registry(), "ev-0")
    assert item.excerpt is not None
    span = item.excerpt.span
    assert item.excerpt.text == text[span.start : span.end]  # still an exact slice of the item's text
    return item.excerpt.text, text[quote_start:]


def test_a_short_answer_is_quoted_whole_and_the_question_is_not() -> None:
    answer = "There is no record of her saying this."
    excerpt, quoted = _item(f"{QUESTION} {answer}", len(QUESTION) + 1)
    assert excerpt == quoted == answer


def test_a_long_answer_is_cut_within_the_answer_even_when_the_question_echoes_the_claim() -> None:
    filler = "The minister spoke about the budget at length. " * (EXCERPT_MAX_CHARS // 40)
    answer = f"{filler}Kher never said rape is part of Indian culture, her office said."
    text = f"{QUESTION} {answer}"
    excerpt, _ = _item(text, len(QUESTION) + 1)
    assert excerpt == "Kher never said rape is part of Indian culture, her office said."
    # without a quote start the same text is cut at the question, which shares every word with the claim
    unanchored, _ = _item(text, 0)
    assert unanchored == QUESTION


def test_a_passage_without_a_prefix_keeps_the_whole_short_text() -> None:
    excerpt, _ = _item("Satellite records show the decline.", 0)
    assert excerpt == "Satellite records show the decline."
