from __future__ import annotations

import pytest

from icarus.claims import split_clauses, split_sentences, trim_span


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]


def pieces(text: str) -> list[str]:
    out = []
    for s, e in split_sentences(text):
        for cs, ce in split_clauses(text, s, e):
            start, end = trim_span(text, cs, ce)
            if start < end:
                out.append(text[start:end])
    return out


@pytest.mark.parametrize(
    "text",
    [
        "Dr. Amira Sol said the U.S. economy grew 3.5% in 2023.",
        "Mr. and Mrs. Patel met Prof. Okafor at St. Mary's on Jan. 6 at 9 a.m. sharp.",
        "John F. Kennedy was shot on Nov. 22, 1963, in Dallas.",
        "No. 10 said the rate was 0.25 percent, e.g. lower than in the U.K. last year.",
        "The fund holds $1.5 billion, approx. 2.3% of GDP, according to Acme Inc. figures.",
        "Read https://example.com/a.b?c=1.2&d=e!f and www.example.org/x.y for the 3.14 figure.",
        'He said "Prices rose. Wages fell." on Monday.',
        "Smith vs. Jones was decided 5-4 in Vol. 3 of the reports.",
    ],
)
def test_abbreviations_decimals_urls_and_quotes_do_not_split(text: str) -> None:
    assert sentences(text) == [text]


def test_sentences_split_where_they_end() -> None:
    text = (
        "Unemployment fell to 3.5% in 2023. Wages rose! Did prices rise? Output grew… "
        "It was 9 a.m. The sun rose. Growth was strong in the U.S. The U.K. lagged."
    )
    assert sentences(text) == [
        "Unemployment fell to 3.5% in 2023.",
        "Wages rose!",
        "Did prices rise?",
        "Output grew…",
        "It was 9 a.m.",
        "The sun rose.",
        "Growth was strong in the U.S.",
        "The U.K. lagged.",
    ]


def test_quotation_closing_ends_a_sentence() -> None:
    assert sentences('She said "Stop." Then she left.') == ['She said "Stop."', "Then she left."]


def test_line_breaks() -> None:
    text = "Headline here\nThe body starts. It goes\non after a wrapped line.\n\nsecond paragraph"
    assert sentences(text) == [
        "Headline here",
        "The body starts.",
        "It goes\non after a wrapped line.",
        "second paragraph",
    ]


def test_emoji_run_before_a_new_sentence_ends_one() -> None:
    text = "Best cat ever 😂😂 Meanwhile the debt rose 6% 📈"
    assert sentences(text) == ["Best cat ever 😂😂", "Meanwhile the debt rose 6% 📈"]


def test_edges_are_trimmed_not_rewritten() -> None:
    text = "@a @b 🚨BREAKING: Trains are suspended on Line 4. https://t.co/x #metro #transit 1/"
    assert pieces(text) == ["Trains are suspended on Line 4"]
    text = "1. Prices rose in March.\n• Wages fell in April 👇\n(2/3) But rents doubled (3/3)"
    assert pieces(text) == ["Prices rose in March", "Wages fell in April", "rents doubled"]
    assert pieces("RT @metro: Line 4 reopened at 6 a.m. today") == ["Line 4 reopened at 6 a.m. today"]


def test_trailing_abbreviation_keeps_its_dot() -> None:
    assert pieces("Inflation hit 9% in the U.S.") == ["Inflation hit 9% in the U.S."]
    assert pieces("Shares fell at Acme Inc.") == ["Shares fell at Acme Inc."]


def test_so_far_is_not_a_conjunction() -> None:
    assert pieces("So far 40 people have died.") == ["So far 40 people have died"]
    assert pieces("So the debt doubled.") == ["the debt doubled"]


def test_coordinated_clauses_split_where_safe() -> None:
    text = "The U.S. share of traffic fell from 31% to 27%, and the EU share rose to 44%."
    assert pieces(text) == ["The U.S. share of traffic fell from 31% to 27%", "the EU share rose to 44%"]
    assert pieces("Crime fell 5% in 2024; arrests rose 8% in 2024.") == [
        "Crime fell 5% in 2024",
        "arrests rose 8% in 2024",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "The plant employs 300 people, and it exported 40% of its output.",  # pronoun needs the left side
        "We bought apples, pears, and oranges at the market.",  # a list, not clauses
        'He said "taxes rose, and wages fell" in his speech.',  # inside a quotation
        "The bill (which passed, and was signed in May) cut taxes.",  # inside brackets
        "Prices rose, and fast.",  # right side is no clause
    ],
)
def test_unsafe_joints_are_not_split(text: str) -> None:
    assert len(pieces(text)) == 1


def test_empty_and_blank_text() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\t ") == []
    assert trim_span("   ", 0, 3)[0] == trim_span("   ", 0, 3)[1]
