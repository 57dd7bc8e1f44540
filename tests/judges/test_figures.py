"""Figure statements and the rule that sides a passage by them (``icarus.judges.figures``), and the
cross-encoder judge's second version, which applies that rule (``offline-minilm@2``)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icarus.evaluation.stancesets import load_pairs_file
from icarus.judges.cross_encoder import (
    FIGURES_CONFIDENCE,
    FIGURES_VERSION,
    VERSION,
    OfflineMiniLMJudge,
    sided_by_figures,
)
from icarus.judges.figures import (
    NEGATION_WORDS_BEFORE,
    WORDS_AFTER,
    WORDS_BEFORE,
    FiguresOutcome,
    compare_figures,
    figure_side,
    figure_statements,
)
from icarus.judges.protocol import JudgeRequest
from icarus.judges.registry import MINILM_FIGURES_JUDGE, MINILM_JUDGE, create_judge
from icarus.ledger.judgments import Stance

CONTRAST_PAIRS = (
    Path(__file__).resolve().parents[2] / "docs" / "evaluation" / "contrast" / "contrast-pairs.jsonl"
)
PORT_CLAIM = "Container traffic at Halden harbor fell 12% in October, the port says"
PORT_HEADLINE = "October traffic statistics: container throughput down 12%"


def _only(text: str) -> tuple[str, str, str, bool]:
    (statement,) = figure_statements(text)
    return statement.figure, statement.direction, statement.kind, statement.negated


# --- reading one text -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Traffic fell 12% in October.", ("12%", "down", "change", False)),
        ("Throughput was down 12 percent.", ("12 percent", "down", "change", False)),
        ("Sales saw a 12% drop.", ("12%", "down", "change", False)),
        ("Exports were 8% higher than a year before.", ("8%", "up", "change", False)),
        ("Unemployment rose to 7.4 percent.", ("7.4 percent", "up", "level", False)),
        ("Unemployment rose to about 7.4 percent.", ("7.4 percent", "up", "level", False)),
        ("Inflation slowed to 2.9% in March.", ("2.9%", "down", "level", False)),
        ("Traffic did not fall 12% in October.", ("12%", "down", "change", True)),
        ("The bridge is 1,200 metres long.", ("1,200", "", "change", False)),
    ],
)
def test_a_figure_is_read_with_its_direction_kind_and_negation(
    text: str, expected: tuple[str, str, str, bool]
) -> None:
    assert _only(text) == expected


def test_the_direction_word_may_stand_up_to_words_before_words_before_the_figure() -> None:
    gap = ["very"] * (WORDS_BEFORE - 1)
    assert _only(f"Output fell {' '.join(gap)} 12% last year.")[1] == "down"
    assert _only(f"Output fell {' '.join([*gap, 'very'])} 12% last year.")[1] == ""


def test_the_direction_word_may_follow_within_words_after() -> None:
    gap = ["very"] * (WORDS_AFTER - 1)
    assert _only(f"It was a 12% {' '.join(gap)} drop.")[1] == "down"
    assert _only(f"It was a 12% {' '.join([*gap, 'very'])} drop.")[1] == ""


def test_a_clause_break_a_bound_or_another_figure_stops_the_search() -> None:
    assert _only("Exports fell, and 8% of firms closed.")[1] == ""
    assert _only("Heated to higher than 56 °C for an hour.")[1] == ""
    statements = figure_statements("The port handled 41,200 units, down 12% from 46,800.")
    assert [(s.figure, s.direction) for s in statements] == [("41,200", ""), ("12%", "down"), ("46,800", "")]


def test_after_the_figure_only_a_noun_or_comparative_gives_the_direction() -> None:
    assert _only("Heat above 56 °C increased the yield.")[1] == ""
    assert _only("Wages were 8% lower.")[1] == "down"


def test_a_bare_year_like_figure_is_not_read() -> None:
    assert figure_statements("Play begins in the 2016 fall season.") == ()
    assert _only("Output fell 2,016 tonnes.")[0] == "2,016"


def test_up_and_down_as_particles_are_not_directions() -> None:
    assert _only("Imports made up 40% of the total.")[1] == ""
    assert _only("He tore up a 800 million contract.")[1] == ""
    assert _only("Shares were up by about 3% at noon.")[1] == "up"


def test_digits_inside_names_are_not_figures() -> None:
    assert figure_statements("Rising CO2 levels and COVID-19 cases; the S1/S2 site increased.") == ()


def test_a_negation_counts_up_to_negation_words_before_the_direction_word() -> None:
    gap = ["really"] * (NEGATION_WORDS_BEFORE - 1)
    assert _only(f"Traffic did not {' '.join(gap)} fall 12%.")[3] is True
    assert _only(f"Traffic did not {' '.join([*gap, 'really'])} fall 12%.")[3] is False


def test_a_page_long_run_of_figures_is_read_figure_by_figure() -> None:
    # one "sentence" with thousands of figures and no clause break: every figure keeps its own direction
    count = 3_000
    text = " ".join(f"lot {index} rose {index % 50 + 1}% and" for index in range(count))
    rises = [s for s in figure_statements(text) if s.unit == "%"]
    assert len(rises) == count
    assert all(s.direction == "up" and not s.negated for s in rises)
    assert [int(s.value) for s in rises] == [index % 50 + 1 for index in range(count)]


def test_a_negation_in_an_earlier_clause_does_not_negate() -> None:
    assert _only("It was not a surprise, but traffic fell 12%.")[3] is False


def test_a_text_without_figures_has_no_statements() -> None:
    assert figure_statements("Arctic sea ice has declined for decades.") == ()


# --- comparing a claim with a passage ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "passage", "outcome"),
    [
        ("Traffic fell 12% in October.", "Throughput was down 12% in October.", FiguresOutcome.AGREE),
        ("Traffic fell 12% in October.", "Throughput was up 12% in October.", FiguresOutcome.CONFLICT),
        ("Traffic fell 12% in October.", "Traffic did not fall 12% in October.", FiguresOutcome.CONFLICT),
        ("Traffic did not fall 12%.", "Traffic did not fall 12%.", FiguresOutcome.AGREE),
        ("Traffic did not fall 12%.", "Traffic rose 12%.", FiguresOutcome.NONE),
        # a different value is left to the model: it may be another quantity
        ("Traffic fell 12% in October.", "Bulk cargo fell 4% in October.", FiguresOutcome.NONE),
        # a change and a level do not meet, nor do percent and percentage points
        ("Traffic fell 12%.", "Traffic fell to 12%.", FiguresOutcome.NONE),
        ("Turnout rose 3%.", "Turnout rose 3 percentage points.", FiguresOutcome.NONE),
        # units must be the same: 8 inches and 7.5 cm do not meet, though 7.5 rounds to 8
        ("Sea level rose about 8 inches.", "Sea level rose 7.5 cm.", FiguresOutcome.NONE),
        ("Sea level rose about 8 inches.", "Sea level rose 7.5 inches.", FiguresOutcome.AGREE),
        ("The city grew by 30,000 people.", "The city gained 30,000 residents.", FiguresOutcome.NONE),
        # no direction on the claim side: nothing to hold the passage to
        ("The bridge is 1,200 metres long.", "The bridge grew 1,200 metres.", FiguresOutcome.NONE),
    ],
)
def test_compare_figures(claim: str, passage: str, outcome: FiguresOutcome) -> None:
    assert compare_figures(claim, passage).outcome is outcome


@pytest.mark.parametrize(
    ("claimed", "stated", "agree"),
    [
        ("12%", "11.8%", True),  # rounded to the claim's whole percent
        ("12%", "12.4%", True),
        ("12%", "12.5%", False),  # rounds half up to 13
        ("11.8%", "12%", True),  # the passage is the coarser one
        ("11.8%", "11.9%", False),
        ("12%", "13%", False),
    ],
)
def test_values_agree_at_the_coarser_stated_precision(claimed: str, stated: str, agree: bool) -> None:
    outcome = compare_figures(f"Traffic fell {claimed}.", f"Traffic fell {stated}.").outcome
    assert outcome is (FiguresOutcome.AGREE if agree else FiguresOutcome.NONE)


def test_a_conflict_on_one_figure_wins_over_agreement_on_another() -> None:
    check = compare_figures("Sales fell 12% and costs rose 5%.", "Sales fell 12% while costs fell 5%.")
    assert check.outcome is FiguresOutcome.CONFLICT and check.claim == "5% (change, up)"


def test_the_side_an_agreement_settles_yields_to_any_negation_or_dismissal() -> None:
    assert figure_side(PORT_CLAIM, PORT_HEADLINE)[0] == "support"
    assert figure_side(PORT_CLAIM, "Throughput was up 12% in October.")[0] == "refute"
    # a restated figure says nothing about the rest: a dismissal or a negation elsewhere keeps the model's say
    assert (
        figure_side("Plant tore up a 800 million contract offer.", "800 million contract rumor is rubbish")[0]
        == ""
    )
    assert figure_side(PORT_CLAIM, "Traffic fell 12%, but not because of the berth.")[0] == ""
    assert figure_side("Traffic fell 12% in October.", "Bulk cargo fell 4% in October.") == (
        "",
        compare_figures("Traffic fell 12% in October.", "Bulk cargo fell 4% in October."),
    )


# --- the judge that applies it ---------------------------------------------------------------------------


def test_sided_by_figures_moves_the_sided_mass_and_keeps_the_neutral() -> None:
    probabilities = np.array([0.40, 0.42, 0.18])
    assert sided_by_figures(probabilities, "support").tolist() == pytest.approx([0.82, 0.0, 0.18])
    assert sided_by_figures(probabilities, "refute").tolist() == pytest.approx([0.0, 0.82, 0.18])
    assert probabilities.tolist() == [0.40, 0.42, 0.18]  # the input is left alone


FIGURES_JUDGE = OfflineMiniLMJudge(read_figures=True)
PLAIN_JUDGE = OfflineMiniLMJudge()


def _request(claim: str, excerpt: str) -> JudgeRequest:
    return JudgeRequest(claim_id="c1", claim_text=claim, evidence_id="e1", excerpt=excerpt)


def test_the_second_version_is_registered_and_names_itself() -> None:
    assert create_judge(MINILM_FIGURES_JUDGE).provenance.version == FIGURES_VERSION == "2"  # type: ignore[attr-defined]
    assert create_judge(MINILM_JUDGE).provenance.version == VERSION == "1"  # type: ignore[attr-defined]
    verdict = FIGURES_JUDGE.stance(_request(PORT_CLAIM, PORT_HEADLINE))
    assert (verdict.provider, verdict.version) == ("offline-minilm", "2")
    assert verdict.calibration_id == PLAIN_JUDGE.calibration_id  # the same model and calibration


def test_the_port_headline_supports_the_claim_under_the_second_version() -> None:
    # the model alone reads "down 12%" as a refutation of "fell 12%"
    assert PLAIN_JUDGE.stance(_request(PORT_CLAIM, PORT_HEADLINE)).stance is not Stance.SUPPORT
    verdict = FIGURES_JUDGE.stance(_request(PORT_CLAIM, PORT_HEADLINE))
    assert verdict.stance is Stance.SUPPORT
    figures = json.loads(verdict.raw_answer)["figures"]
    assert figures == {"outcome": "agree", "claim": "12% (change, down)", "passage": "12% (change, down)",
                       "side": "support"}  # fmt: skip


def test_the_opposite_direction_refutes_under_the_second_version() -> None:
    passage = "Container traffic at Halden harbor rose 12% in October"
    assert PLAIN_JUDGE.stance(_request(PORT_CLAIM, passage)).stance is Stance.SUPPORT  # the model's error
    assert FIGURES_JUDGE.stance(_request(PORT_CLAIM, passage)).stance is Stance.REFUTE


def test_a_verdict_the_figures_settle_is_no_surer_than_the_rule() -> None:
    claim = "Death rates amongst hospitalized patients has dropped from 6 % to 1.5 % in the uk"
    passage = (
        "Researchers estimated the death rate among patients admitted to hospital had fallen from 6% to 1.5%."
    )
    plain, figures = (
        PLAIN_JUDGE.stance(_request(claim, passage)),
        FIGURES_JUDGE.stance(_request(claim, passage)),
    )
    assert figures.stance is Stance.SUPPORT and figures.confidence == Decimal(str(FIGURES_CONFIDENCE))
    raw = json.loads(figures.raw_answer)
    # the summed sided mass alone would read as surer than the rule is
    assert raw["calibrated_confidence"] > FIGURES_CONFIDENCE == raw["confidence_cap"]
    assert "confidence_cap" not in json.loads(plain.raw_answer)


def test_without_figures_both_versions_answer_alike() -> None:
    request = _request("Arctic sea ice extent has declined since 1979.", "Sea ice has shrunk for decades.")
    plain, figures = PLAIN_JUDGE.stance(request), FIGURES_JUDGE.stance(request)
    assert (plain.stance, plain.confidence) == (figures.stance, figures.confidence)
    assert json.loads(figures.raw_answer)["figures"]["outcome"] == "none"


def test_the_second_version_gets_more_contrast_pairs_right() -> None:
    pairs = load_pairs_file(CONTRAST_PAIRS)
    requests = [_request(p.claim, p.passage) for p in pairs]

    def right(judge: OfflineMiniLMJudge) -> int:
        return sum(judge.stance(r).stance.value == p.label for r, p in zip(requests, pairs, strict=True))

    assert right(FIGURES_JUDGE) > right(PLAIN_JUDGE)


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("0123456789.,%$€ -/°abcCdeflnoprstuwFOR\u00a0\uff11\n")), max_size=120
    ),
    st.text(max_size=120),
)
def test_any_text_is_read_without_error(figure_heavy: str, anything: str) -> None:
    for claim, passage in ((figure_heavy, anything), (anything, figure_heavy), (figure_heavy, figure_heavy)):
        check = compare_figures(claim, passage)
        assert check.outcome in set(FiguresOutcome)
        side, _ = figure_side(claim, passage)
        assert side in ("", "support", "refute")
        assert (check.outcome is FiguresOutcome.NONE) <= (side == "")
