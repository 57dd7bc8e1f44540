"""Figures read from claim text, and what the statistics rules (H12, H13, H15) then make of them."""

from __future__ import annotations

import time  # the time bounds here are CPU seconds of this process, so a busy machine cannot fail them
from decimal import Decimal as D

import pytest

from icarus.claims import extract_claims, extract_figures
from icarus.claims.figures import MEASURE_WINDOW
from icarus.claims.quantities import LEVELS, level_pair
from icarus.ledger import Derivation, FieldName, Figure
from icarus.scoring.icarus.statistics import (
    arithmetic_fails,
    conflates_percent_and_points,
    lacks_base_rate,
)
from tests.builders import item, ledger, subject
from tests.scoring.scoring_support import claim_of, score

TOLERANCE = D("0.005")  # statistics.relative_tolerance in every published policy


def figures(text: str) -> list[Figure]:
    return extract_figures(text, 0, len(text))


def one(text: str) -> Figure:
    [figure] = figures(text)
    return figure


def stated(text: str, figure: Figure) -> str:
    assert figure.span is not None
    return text[figure.span.start : figure.span.end]


# --- the two readings that used to go wrong ----------------------------------------------------------------


def test_change_keeps_levels_stated_in_million_tonnes() -> None:
    text = "Coal output rose 20% from 40 million tonnes to 45 million tonnes."
    figure = one(text)
    assert (figure.derivation, figure.value, figure.unit, figure.operands) == (
        Derivation.PERCENT_CHANGE,
        D(20),
        "%",
        [D(40), D(45)],
    )
    assert (figure.relative, figure.base_rate_given, figure.measure) == (True, True, "coal_output")
    assert stated(text, figure) == "rose 20%"
    # 40 -> 45 is +12.5 %: the stated 20 % fails H13, and with its levels stated H15 has nothing to say.
    assert arithmetic_fails(figure, TOLERANCE)
    assert not lacks_base_rate(figure)


def test_levels_then_a_rise_of_five_percent_is_one_change() -> None:
    text = "Support for the plan went from 40% to 45%, a rise of 5%."
    figure = one(text)
    assert (figure.derivation, figure.value, figure.operands) == (
        Derivation.PERCENT_CHANGE,
        D(5),
        [D(40), D(45)],
    )
    assert figure.measure == "support_plan"
    assert stated(text, figure) == "rise of 5%"
    # 40 % -> 45 % is 5 points, a 12.5 % rise: "a rise of 5%" conflates the two (H12).
    assert conflates_percent_and_points(figure, None, TOLERANCE)


# --- variations -----------------------------------------------------------------------------------------


def test_fall_with_currency_and_short_scale_words() -> None:
    figure = one("Revenue fell 12% from $3.2bn to $2.8bn.")
    assert (figure.value, figure.operands, figure.base_rate_given) == (D(-12), [D("3.2"), D("2.8")], True)
    # -12.5 % exactly; "12%" is within half a unit of its stated precision.
    assert not arithmetic_fails(figure, TOLERANCE)


def test_up_from_levels_then_a_ten_percent_increase() -> None:
    text = "Sales were up from 4.1 million to 4.5 million, a 10% increase."
    figure = one(text)
    assert (figure.derivation, figure.value, figure.operands) == (
        Derivation.PERCENT_CHANGE,
        D(10),
        [D("4.1"), D("4.5")],
    )
    assert stated(text, figure) == "10% increase"
    assert figure.measure == "sales"
    assert not arithmetic_fails(figure, TOLERANCE)  # +9.76 % rounds to 10


def test_a_unit_stated_once_after_the_second_level_applies_to_both() -> None:
    text = "Turnout rose from 40 to 45 per cent."
    levels = figures(text)
    assert [(f.value, f.unit, f.derivation, f.measure) for f in levels] == [
        (D(40), "%", None, "turnout"),
        (D(45), "%", None, "turnout"),
    ]
    assert [stated(text, f) for f in levels] == ["40", "45 per cent"]


@pytest.mark.parametrize(
    ("text", "operands"),
    [
        ("Spending rose 113% from roughly $800 billion to $1.7 trillion.", [D(800), D(1700)]),
        ("Output rose 10% from 4.1 to 4.5 million barrels.", [D("4.1"), D("4.5")]),
        ("Visitors rose 10% from 400 pages to 2,200.", [D(400), D(2200)]),
        ("Costs rose 10% from £4.1m to £4.5m.", [D("4.1"), D("4.5")]),
        ("The debt fell 10% from 1.2 million to 900,000 dollars.", [D("1.2"), D("0.9")]),
        ("Detentions rose 10% from about 70,000 people annually to about 400,000.", [D(70000), D(400000)]),
        ("The tax fell 75% from 4 percent down to 1 percent.", [D(4), D(1)]),
        ("Prices rose 5 percent from 3.1 euros to 3.26 euros.", [D("3.1"), D("3.26")]),
    ],
)
def test_levels_with_scale_words_and_units(text: str, operands: list[D]) -> None:
    figure = one(text)
    assert figure.derivation is Derivation.PERCENT_CHANGE
    assert figure.operands == operands
    assert figure.base_rate_given


@pytest.mark.parametrize(
    "text",
    [
        "Sales rose 5% from 2010 to 2020.",
        "Unemployment increased more than 200 percent from 2008 to 2011.",
        "Membership rose 5% from 2005 to 2013 Jens said.",
        "Traffic rose 5% from 40 tonnes to 45 people.",
        "The road grew 5% from 40 m to 45 km.",
        "Wages rose 5% from 89 cents to $240 million.",
    ],
)
def test_years_and_unlike_units_are_not_levels(text: str) -> None:
    figure = one(text)
    assert (figure.operands, figure.base_rate_given) == ([], False)
    assert lacks_base_rate(figure)


@pytest.mark.parametrize(
    ("text", "value", "measure", "phrase"),
    [
        ("There was a 40% drop in oil prices in Nigeria.", D(-40), "oil_prices", "40% drop"),
        ("Prices saw a 15 percent spike in 2024.", D(15), "prices_saw", "15 percent spike"),
        ("Tuition saw an increase of 48.2 percent.", D("48.2"), "tuition_saw", "increase of 48.2 percent"),
        ("The plan brought a 22 percent reduction in ozone.", D(-22), "ozone", "22 percent reduction"),
        ("Wages increased only 30 percent.", D(30), "wages", "increased only 30 percent"),
    ],
)
def test_change_stated_by_a_noun(text: str, value: D, measure: str, phrase: str) -> None:
    figure = one(text)
    assert (figure.derivation, figure.value, figure.measure) == (Derivation.PERCENT_CHANGE, value, measure)
    assert stated(text, figure) == phrase
    assert lacks_base_rate(figure)  # no levels: a relative figure without a base rate (H15)


def test_points_stated_by_a_noun_with_levels() -> None:
    text = "Unemployment saw a 2-point drop from 6% to 4%."
    figure = one(text)
    assert (figure.derivation, figure.unit, figure.value, figure.operands, figure.relative) == (
        Derivation.POINT_CHANGE,
        "pp",
        D(-2),
        [D(6), D(4)],
        False,
    )
    assert stated(text, figure) == "2-point drop"
    assert not arithmetic_fails(figure, TOLERANCE)
    assert not conflates_percent_and_points(figure, None, TOLERANCE)


def test_points_never_take_levels_that_are_not_percentages() -> None:
    figure = one("Approval rose 5 points from 40 million to 45 million.")
    assert (figure.derivation, figure.operands) == (Derivation.POINT_CHANGE, [])


def test_each_change_takes_its_nearest_levels() -> None:
    text = "Coal rose 20% from 40 to 45 tonnes and gas fell 10% from 50 to 45 tonnes."
    coal, gas = figures(text)
    assert (coal.value, coal.operands) == (D(20), [D(40), D(45)])
    assert (gas.value, gas.operands) == (D(-10), [D(50), D(45)])
    assert arithmetic_fails(coal, TOLERANCE) and not arithmetic_fails(gas, TOLERANCE)


def test_levels_that_follow_another_change_verb_are_that_change_s() -> None:
    text = (
        "Despite having their budget increased by over 40 percent since 2009 pending claims for benefits "
        "have increased from 391,000 to 890,000 under the Obama Administration."
    )
    assert one(text).operands == []  # the claims' levels, not the budget's


@pytest.mark.parametrize(
    ("text", "operands"),
    [
        # a fall owns the levels before a rise: the 30% is another quantity's (H+ ions, not pH)
        ("Ocean pH decreased from 8.25 to 8.14, representing an increase of almost 30% in H+ ions.", []),
        (
            "Ocean pH rose from 8.14 to 8.25, representing an increase of about 1.4% in pH.",
            [D("8.14"), D("8.25")],
        ),
        # "and" or ";" between the levels and the change starts another statement
        ("High days fell from about 19 days to about 3 and an approximate 30% reduction in levels.", []),
        ("High days fell from about 19 days to about 3; an approximate 30% reduction in levels.", []),
        ("High days fell from about 19 days to about 3, an approximate 84% reduction.", [D(19), D(3)]),
    ],
)
def test_levels_before_a_change_that_belong_to_something_else(text: str, operands: list[D]) -> None:
    changes = [f for f in figures(text) if f.derivation is not None]
    assert [f.operands for f in changes] == [operands]


def test_evidence_mode_reads_counts_not_percentage_levels() -> None:
    text = (
        "In 2019 the port, 12% of the region's trade, handled 41,000 containers, not 410 000, for COVID-19."
    )
    read = extract_figures(text, 0, len(text), evidence=True)
    assert [(f.value, f.unit, stated(text, f)) for f in read] == [(D(41000), "container", "41,000")]
    assert [f.unit for f in figures(text)] == ["%"]  # a claim keeps its percentage levels and no counts


def test_up_or_down_before_the_levels_restates_the_change() -> None:
    text = (
        "Florida unemployment has dropped more than 2 percentage points, down from 12 percent to 9.9 percent."
    )
    figure = one(text)
    assert (figure.derivation, figure.value, figure.operands) == (
        Derivation.POINT_CHANGE,
        D(-2),
        [D(12), D("9.9")],
    )
    assert not arithmetic_fails(figure, TOLERANCE)  # 2.1 points: "more than 2" is within half a unit


def test_level_pair_reads_units_and_scales() -> None:
    [match] = LEVELS.finditer("from $800 billion to $1.7 trillion")
    pair = level_pair(match)
    assert pair is not None
    assert (pair.unit, pair.first.scale, pair.second.scale, pair.operands) == (
        "$",
        "billion",
        "trillion",
        (D(800), D(1700)),
    )
    [tonnes] = LEVELS.finditer("from 40 million tonnes to 45 million tonne")
    read = level_pair(tonnes)
    assert read is not None and read.unit == "tonne" and read.first.multiplier == D(10) ** 6


# --- through the scorer ---------------------------------------------------------------------------------


def scored_label(text: str, policy: str) -> tuple[str, list[str]]:
    post = subject(text, FieldName.POST_TEXT)
    [claim] = extract_claims(post, 5).claims
    result = score(ledger([item("a"), item("b")], claims=[claim], subject=post), policy)
    found = claim_of(result)
    return found["label"], list(found["caveats"])


def test_H13_fires_on_a_parsed_change_in_tonnes() -> None:
    label, caveats = scored_label(
        "Coal output rose 20% from 40 million tonnes to 45 million tonnes.", "icarus@1.1"
    )
    assert label == "misleading"
    assert not any("numeric context missing" in caveat for caveat in caveats)


def test_H12_fires_on_levels_then_a_rise_of_five_percent() -> None:
    label, _ = scored_label("Support for the plan went from 40% to 45%, a rise of 5%.", "icarus@1.1")
    assert label == "misleading"


def test_a_rounded_change_with_levels_is_not_misleading_and_has_no_caveat() -> None:
    label, caveats = scored_label("Revenue fell 12% from $3.2bn to $2.8bn.", "icarus@1.1")
    assert label == "supported"
    assert not any("numeric context missing" in caveat for caveat in caveats)


def test_H15_caveat_for_a_change_stated_without_levels() -> None:
    _, caveats = scored_label("There was a 40% drop in oil prices in Nigeria.", "icarus@1.1")
    assert any("numeric context missing" in caveat for caveat in caveats)


# --- long claims ----------------------------------------------------------------------------------------


def test_a_measure_key_reads_only_its_window_before_the_figure() -> None:
    far = "Turnout " + "1 " * (MEASURE_WINDOW // 2 + 5) + "rose 5%"
    assert one(far).measure == "percentage"  # the noun lies beyond the window
    near = "Turnout " + "1 " * (MEASURE_WINDOW // 2 - 10) + "rose 5%"
    assert one(near).measure == "turnout"


def test_a_claim_of_ten_thousand_figures_is_read_in_linear_time() -> None:
    # Reading every figure's noun phrase from the start of the claim took 35 s for 5,000 figures.
    text = "1% " * 5_000 + "rose 5% from 40% to 45% " * 2_500
    started = time.process_time()
    found = figures(text)
    assert len(found) == 7_500
    assert time.process_time() - started < 20
