"""Properties every extraction keeps, whatever the input text."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from icarus.claims import extract_claims, extract_figures, split_sentences
from icarus.ledger import Derivation, FieldName
from icarus.scoring.icarus.statistics import (
    arithmetic_fails,
    conflates_percent_and_points,
    lacks_base_rate,
    stated_precision,
)
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
        "from 40 million tonnes to 45 million tonnes",
        "from $3.2bn",
        "to £2.8m",
        "a rise of 5%",
        "a 10% increase",
        "a 2-point drop",
        "per cent",
        "from 2010 to 2020",
        "1,400",
        "−3.5",
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


# --- stated changes and their levels (H12, H13, H15) -----------------------------------------------------

_SUBJECTS = st.sampled_from(
    ["Coal output", "Support for the Dunmore plan", "Revenue at Marrow Council", "Sales"]
)
# How both levels are written: the first, the second, and whether they are percentages.
_LEVEL_STYLES = st.sampled_from(
    [
        ("{}%", "{}%", True),
        ("{}", "{} per cent", True),
        ("{} percent", "{} percent", True),
        ("{} million tonnes", "{} million tonnes", False),
        ("${}bn", "${}bn", False),
        ("£{}m", "£{}m", False),
        ("{} million", "{} million", False),
        ("{}", "{} million", False),
        ("{} people", "{} people", False),
        ("{} barrels", "{}", False),
    ]
)
_RISES = st.sampled_from(["rose", "increased", "grew", "climbed", "jumped", "was up", "up"])
_FALLS = st.sampled_from(["fell", "dropped", "declined", "decreased", "was down", "down"])
_RISE_NOUNS = st.sampled_from(["rise", "increase", "gain", "jump"])
_FALL_NOUNS = st.sampled_from(["fall", "drop", "decline", "decrease", "cut"])
# A change as stated: the phrase around "{n}%" with the levels "{a}" and "{b}" somewhere in it.
_PHRASINGS = st.sampled_from(
    [
        "{subject} {verb} {n}% from {a} to {b}.",
        "{subject} {verb} by {n} percent, from {a} to {b}.",
        "{subject} went from {a} to {b}, a {noun} of {n}%.",
        "{subject} moved from {a} to {b}, a {n}% {noun}.",
        "{subject} {verb} from {a} to {b} last year, a {n} per cent {noun}.",
    ]
)
_LEVEL_VALUES = st.decimals(min_value=Decimal("0.1"), max_value=Decimal(99_999), places=2).map(
    lambda d: d.normalize().quantize(Decimal(1)) if d == d.to_integral_value() else d.normalize()
)
_STATED = st.decimals(min_value=Decimal("0.1"), max_value=Decimal(500), places=1).map(
    lambda d: d.quantize(Decimal(1)) if d == d.to_integral_value() else d
)
TOLERANCE = Decimal("0.005")  # statistics.relative_tolerance in every published policy


def _written(value: Decimal) -> str:
    text = format(value, "f")
    whole, _, decimals = text.partition(".")
    if len(whole) > 3 and not decimals:
        return f"{int(whole):,}"  # "12,500": a thousands separator the reader drops
    return text


def _percent_change(first: Decimal, second: Decimal) -> Fraction:
    return (Fraction(second) - Fraction(first)) / Fraction(first) * 100


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    subject=_SUBJECTS,
    style=_LEVEL_STYLES,
    phrasing=_PHRASINGS,
    first=_LEVEL_VALUES,
    second=_LEVEL_VALUES,
    n=_STATED,
    rising=st.booleans(),
)
def test_a_stated_change_keeps_its_levels_and_h13_recomputes_them(
    data: st.DataObject,
    subject: str,
    style: tuple[str, str, bool],
    phrasing: str,
    first: Decimal,
    second: Decimal,
    n: Decimal,
    rising: bool,
) -> None:
    assume(first != second)
    verb = data.draw(_RISES if rising else _FALLS)
    noun = data.draw(_RISE_NOUNS if rising else _FALL_NOUNS)
    a_style, b_style, percent = style
    text = phrasing.format(
        subject=subject,
        verb=verb,
        noun=noun,
        n=_written(n),
        a=a_style.format(_written(first)),
        b=b_style.format(_written(second)),
    )
    changes = [f for f in extract_figures(text, 0, len(text)) if f.derivation is not None]
    assert len(changes) == 1, text
    [change] = changes
    # One change, its levels as operands: no plain level is left over, and H15 has nothing to say.
    assert extract_figures(text, 0, len(text)) == [change], text
    assert change.derivation is Derivation.PERCENT_CHANGE
    assert change.operands == [first, second], text
    assert change.value == (n if rising else -n)
    assert change.base_rate_given and not lacks_base_rate(change)
    assert change.span is not None and 0 <= change.span.start < change.span.end <= len(text)
    # H13 fires exactly when the stated figure is off the recomputed change by more than its tolerance.
    off_by = abs(Fraction(change.value) - _percent_change(first, second))
    allowed = max(abs(Fraction(n)) * Fraction(TOLERANCE), Fraction(stated_precision(n)) / 2)
    assert arithmetic_fails(change, TOLERANCE) == (off_by > allowed), text
    if percent:
        points = Fraction(second) - Fraction(first)
        if change.value == points and off_by > allowed:
            # "a rise of 5%" for 40 % -> 45 %: the points stated as a % change (H12).
            assert conflates_percent_and_points(change, None, TOLERANCE), text


@settings(max_examples=200, deadline=None)
@given(
    subject=_SUBJECTS,
    verb=st.one_of(_RISES, _FALLS),
    n=_STATED,
    start=st.integers(1500, 2100),
    length=st.integers(1, 40),
)
def test_a_period_between_two_years_is_never_a_pair_of_levels(
    subject: str, verb: str, n: Decimal, start: int, length: int
) -> None:
    text = f"{subject} {verb} {_written(n)}% from {start} to {min(start + length, 2100)}."
    [change] = extract_figures(text, 0, len(text))
    assert change.operands == [] and lacks_base_rate(change)


@settings(max_examples=200, deadline=None)
@given(
    subject=_SUBJECTS,
    first=_LEVEL_VALUES,
    second=_LEVEL_VALUES,
    units=st.sampled_from([("tonnes", "people"), ("$", "euros"), ("m", "km"), ("cents", "$")]),
)
def test_levels_in_different_units_are_never_operands(
    subject: str, first: Decimal, second: Decimal, units: tuple[str, str]
) -> None:
    def written(value: Decimal, unit: str) -> str:
        return f"{unit}{_written(value)}" if unit == "$" else f"{_written(value)} {unit}"

    text = f"{subject} rose 5% from {written(first, units[0])} to {written(second, units[1])}."
    [change] = extract_figures(text, 0, len(text))
    assert change.operands == [], text


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    subject=_SUBJECTS,
    first=st.integers(1, 99),
    second=st.integers(1, 99),
    phrasing=st.sampled_from(
        [
            "{subject} went from {a}% to {b}%, a {noun} of {n}%.",
            "{subject} {verb} {n}% from {a}% to {b}%.",
            "{subject} {verb} from {a} to {b} per cent, a {n} percent {noun}.",
        ]
    ),
)
def test_a_change_in_points_stated_as_a_percent_change_is_h12(
    data: st.DataObject, subject: str, first: int, second: int, phrasing: str
) -> None:
    assume(first != second)
    rising = second > first
    text = phrasing.format(
        subject=subject,
        verb=data.draw(_RISES if rising else _FALLS),
        noun=data.draw(_RISE_NOUNS if rising else _FALL_NOUNS),
        n=abs(second - first),
        a=first,
        b=second,
    )
    [change] = extract_figures(text, 0, len(text))
    assert (change.value, change.operands) == (second - first, [first, second]), text
    relative = _percent_change(Decimal(first), Decimal(second))
    allowed = max(abs(Fraction(change.value)) * Fraction(TOLERANCE), Fraction(1, 2))
    # The points match by construction; H12 fires unless the relative change happens to match as well.
    assert conflates_percent_and_points(change, None, TOLERANCE) == (
        abs(relative - Fraction(change.value)) > allowed
    )
