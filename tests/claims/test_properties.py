"""Properties every extraction keeps, whatever the input text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icarus.claims import extract_claims, split_sentences
from icarus.ledger import FieldName
from tests.claims.helpers import subject_of

# Pieces that exercise the splitter's special cases, mixed with arbitrary text.
_TOKENS = st.sampled_from(
    [
        "Dr.",
        "U.S.",
        "e.g.",
        "No.",
        "Jan.",
        "3.5",
        "40%",
        "from 40% to 45%",
        "rose 5%",
        "fell 2 points",
        "Inc.",
        "a.m.",
        "https://ex.com/a.b?c=1.",
        "www.ex.org/x",
        "@user",
        "#tag",
        "lol",
        "/s",
        "😂",
        "👨‍👩‍👧",
        "\u202e",
        "\u200f",
        "\x00",
        "\n",
        "\n\n",
        ".",
        "!",
        "?",
        "…",
        ",",
        ", and",
        ";",
        '"',
        "“",
        "”",
        "(",
        ")",
        "The",
        "council",
        "said",
        "will",
        "is",
        "I think",
        "you should",
        "my neighbour",
        "BREAKING:",
        "1/",
        "3 March 2026",
        "2026-02-30",
        "Marrow",
        "the",
        "and",
        "but",
        " ",
        "  ",
        "\t",
    ]
)
TEXTS = st.one_of(
    st.text(max_size=400),
    st.lists(_TOKENS, max_size=60).map(" ".join),
    st.lists(st.one_of(_TOKENS, st.text(max_size=5)), max_size=60).map("".join),
)
FIELDS = st.sampled_from(
    [FieldName.POST_TEXT, FieldName.PAGE_TEXT, FieldName.IMAGE_TEXT, FieldName.PLAIN_TEXT]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.tuples(FIELDS, TEXTS), min_size=1, max_size=4), budget=st.integers(0, 4))
def test_every_claim_is_the_exact_slice_of_its_field(texts: list[tuple[FieldName, str]], budget: int) -> None:
    subject = subject_of(*texts)
    found = extract_claims(subject, budget)
    ids = [claim.claim_id for claim in found.all]
    assert len(ids) == len(set(ids))
    assert len(found.claims) <= budget
    for claim in found.all:
        # field_text is what G0 slices: the first field of that name.
        source = subject.field_text(claim.source_field)
        assert source is not None
        assert 0 <= claim.span.start < claim.span.end <= len(source)
        assert source[claim.span.start : claim.span.end] == claim.text
        assert claim.text == claim.text.strip()
        for figure in claim.figures:
            assert figure.span is not None
            assert claim.span.start <= figure.span.start <= figure.span.end <= claim.span.end
    assert all(claim.not_assessed is None for claim in found.claims)
    assert all(claim.not_assessed is not None for claim in found.not_assessed)
    assert extract_claims(subject, budget) == found


@settings(max_examples=400, deadline=None)
@given(text=TEXTS)
def test_sentences_are_ordered_disjoint_and_trimmed(text: str) -> None:
    previous_end = 0
    for start, end in split_sentences(text):
        assert previous_end <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        previous_end = end
