"""Years and figures in text (``icarus.text.words``): what counts as a year, and the same answers in linear time."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from icarus.text import words as tx

PIECES = [
    "in", "within", "since", "September", "sept.", "Oct.", "c.", "16,", "2019", "1999", "2500", "people",
    "x", "1", ",", ".", " ", "  ", "\n", "\t",
]  # fmt: skip


def test_a_year_needs_a_preposition_a_month_a_day_or_nothing_after_it() -> None:
    assert tx.years("Sales rose in 2019 and fell since 1999.") == {2019, 1999}
    assert tx.years("On September 16, 2024 it rained.") == {2024}
    assert tx.years("About 2000 people came.") == set()  # a count, not a year
    assert tx.years("Within 2019 people came.") == set()  # "in" inside "within" is not a preposition


def test_quantities_skip_years_and_scale_figures() -> None:
    found = tx.quantities("In 2019 output rose 12% to 1.5 million tonnes.")
    assert [(q.value, q.unit) for q in found] == [(Decimal(12), "%"), (Decimal("1500000.0"), "tonn")]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join))
def test_year_context_reads_a_window_yet_answers_as_the_whole_prefix(text: str) -> None:
    for start in range(len(text) + 1):
        assert tx._year_context_before(text, start) == bool(tx._YEAR_BEFORE.search(text[:start]))


def test_a_long_run_of_white_space_before_a_year_still_counts() -> None:
    assert tx.years("since" + " " * 500 + "2019") == {2019}
    assert tx.years("x" * 500 + "in" + "\n" * 3 + "2019 people") == set()  # "xxx…in" is one word


def test_a_long_page_of_figures_gives_every_figure() -> None:
    # quadratic before: each figure searched the whole text before it; the speed is in bench/stance_judge.py
    page = "In 2019 the firm sold 2,500 units and 3,400 parts. " * 3000
    assert tx.years(page) == {2019}
    assert len(tx.quantities(page)) == 6000


def test_digits_in_a_name_or_code_are_not_figures() -> None:
    # "COVID-19" once gave a FIGURES FOUND entry of "19"; the figures beside the names still count.
    def read(text: str) -> list[str]:
        return [q.text for q in tx.stated_figures(text)]

    assert read("COVID-19 deaths: Lagos recorded 1,450 deaths in 2020.") == ["1,450"]
    assert read("covid-19 cases rose 19 percent") == ["19 percent"]
    assert read("The G7 pledged $1.9 trillion; MH17 carried 298 people; H1N1 killed 12,000.") == [
        "$1.9 trillion",
        "298",
        "12,000",
    ]
    assert read("SARS-CoV-2 and the F-35 and Type-2 diabetes and CO2 emissions") == []
    # a word that only qualifies the figure keeps it
    assert read("a top-10 economy, 1-in-5 adults, over-65s, 10-15% of voters") == [
        "10",
        "1",
        "5",
        "65",
        "10",
        "15%",
    ]
