"""``offline-minilm@5``: the first judge's side calls stand only where a second judge takes the same side."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from icarus.judges.agreement import (
    FIRST_JUDGE,
    SECOND_JUDGE,
    VERSION,
    AgreementJudge,
    agreement_calibration_id,
)
from icarus.judges.protocol import JudgeRequest
from icarus.judges.registry import DEFAULT_OFFLINE_JUDGE, JUDGES, MINILM_AGREEMENT_JUDGE, create_judge
from icarus.ledger import Stance
from tests.judges.test_thresholded_judge import CALIBRATION, Fixed

REQUEST = JudgeRequest(
    claim_id="c1",
    claim_text="Charcoal shows no benefit for acute paraquat poisoning.",
    evidence_id="e1",
    excerpt="Acute paraquat poisoning is often fatal.",
    evidence_text="Acute paraquat poisoning is often fatal.",
)

SUPPORT, REFUTE, NEUTRAL = Stance.SUPPORT, Stance.REFUTE, Stance.NEUTRAL


@pytest.mark.parametrize(
    ("first", "second", "published"),
    [
        (SUPPORT, SUPPORT, SUPPORT),
        (REFUTE, REFUTE, REFUTE),
        (REFUTE, NEUTRAL, NEUTRAL),  # the second judge sees nothing: no side call
        (REFUTE, SUPPORT, NEUTRAL),  # the two disagree: no side call
        (SUPPORT, REFUTE, NEUTRAL),
        (NEUTRAL, SUPPORT, NEUTRAL),  # the second judge never adds a side call
    ],
)
def test_a_side_call_stands_only_where_both_judges_take_that_side(
    first: Stance, second: Stance, published: Stance
) -> None:
    verdict = AgreementJudge(Fixed(first, "0.80"), Fixed(second, "0.70")).stance(REQUEST)
    assert verdict.stance is published
    assert (verdict.provider, verdict.version) == ("offline-minilm", VERSION)


def test_a_kept_call_keeps_the_first_judges_confidence_and_records_both_answers() -> None:
    verdict = AgreementJudge(Fixed(REFUTE, "0.80"), Fixed(REFUTE, "0.55")).stance(REQUEST)
    assert verdict.confidence == Decimal("0.80")
    raw = json.loads(verdict.raw_answer)
    assert raw["agreed"] is True
    assert raw["second"]["stance"] == "refute" and raw["second"]["confidence"] == "0.55"
    assert raw["first"] == {"p": "0.80"}


def test_a_demoted_call_is_neutral_with_what_the_first_judge_left() -> None:
    verdict = AgreementJudge(Fixed(REFUTE, "0.80"), Fixed(NEUTRAL, "0.90")).stance(REQUEST)
    assert verdict.stance is NEUTRAL
    assert verdict.confidence == Decimal("0.20")
    assert json.loads(verdict.raw_answer)["agreed"] is False


def test_the_second_judge_is_asked_only_about_side_calls() -> None:
    second = Fixed(SUPPORT, "0.90")
    AgreementJudge(Fixed(NEUTRAL, "0.90"), second).stance(REQUEST)
    assert second.asked == 0
    AgreementJudge(Fixed(SUPPORT, "0.90"), second).stance(REQUEST)
    assert second.asked == 1


def test_a_failed_second_opinion_demotes_and_a_failed_first_answer_passes_through() -> None:
    demoted = AgreementJudge(Fixed(SUPPORT, "0.90"), Fixed(SUPPORT, "0", failed=True)).stance(REQUEST)
    assert demoted.stance is NEUTRAL and demoted.failure is None
    assert json.loads(demoted.raw_answer)["second_failure"] == "judge_unavailable"
    failed = AgreementJudge(Fixed(SUPPORT, "0", failed=True), Fixed(SUPPORT, "0.90")).stance(REQUEST)
    assert failed.failure is not None and failed.stance is NEUTRAL


def test_the_calibration_id_changes_with_either_component() -> None:
    same = agreement_calibration_id("a", "b")
    assert same == agreement_calibration_id("a", "b")
    assert same != agreement_calibration_id("a", "c") != agreement_calibration_id("c", "b")
    assert AgreementJudge(Fixed(SUPPORT, "0.9"), Fixed(SUPPORT, "0.9")).calibration_id == (
        agreement_calibration_id(CALIBRATION, CALIBRATION)
    )


def test_the_registered_judge_pairs_the_relevance_judge_with_the_wordllama_judge() -> None:
    assert MINILM_AGREEMENT_JUDGE in JUDGES
    judge = create_judge(MINILM_AGREEMENT_JUDGE)
    assert isinstance(judge, AgreementJudge)
    assert judge.first.calibration_id == create_judge(FIRST_JUDGE).calibration_id  # type: ignore[attr-defined]
    assert judge.second.calibration_id == create_judge(SECOND_JUDGE).calibration_id  # type: ignore[attr-defined]


def test_the_real_pair_drops_a_topical_refute_the_cross_encoder_alone_makes() -> None:
    # SciFact claim 246 as researched over the corpus: the cross-encoder refutes a sentence about the poison,
    # not about charcoal (docs/evaluation.md, "Two judges must agree")
    alone = create_judge(FIRST_JUDGE).stance(REQUEST)
    both = create_judge(MINILM_AGREEMENT_JUDGE).stance(REQUEST)
    assert alone.stance is REFUTE
    assert both.stance is NEUTRAL
    assert DEFAULT_OFFLINE_JUDGE in JUDGES


def test_the_shipped_second_judge_is_built_only_when_a_side_call_needs_it() -> None:
    judge = AgreementJudge(Fixed(NEUTRAL, "0.90"))
    judge.stance(REQUEST)
    assert judge._second is None  # nothing to confirm: the embedding table is never loaded
    wordllama = create_judge(SECOND_JUDGE)
    # the calibration id is known before the judge is built, and is the one the built judge has
    assert judge.calibration_id == agreement_calibration_id(CALIBRATION, wordllama.calibration_id)  # type: ignore[attr-defined]
    AgreementJudge(Fixed(SUPPORT, "0.90")).stance(REQUEST)
    confirmed = AgreementJudge(Fixed(SUPPORT, "0.90"))
    confirmed.stance(REQUEST)
    assert confirmed._second is not None


PORT_CLAIM = "Container traffic at Halden harbor fell 12% in October, the port says."


def _port_request(passage: str) -> JudgeRequest:
    return JudgeRequest(
        claim_id="c1", claim_text=PORT_CLAIM, evidence_id="e1", excerpt=passage, evidence_text=passage
    )


@pytest.mark.parametrize(
    ("passage", "settled"),
    [
        ("In October the port handled 41,200 units, down 12% from 46,800 a year before.", True),
        ("In October the port handled 41,200 units, up 12% from 36,800 a year before.", False),  # conflict
        ("It is not true that traffic was down 12% in October.", False),  # negated: the rule stays out
        ("Traffic at the harbor was quiet in October.", False),  # no figure
    ],
)
def test_only_a_restated_figure_with_its_direction_settles_support(passage: str, settled: bool) -> None:
    from icarus.judges.agreement import figures_support

    assert figures_support(_port_request(passage)) is settled


def test_a_support_the_figures_settle_stands_without_the_second_judge() -> None:
    second = Fixed(NEUTRAL, "0.90")
    request = _port_request("In October the port handled 41,200 units, down 12% from 46,800 a year before.")
    verdict = AgreementJudge(Fixed(SUPPORT, "0.70"), second).stance(request)
    assert verdict.stance is SUPPORT and second.asked == 0
    assert json.loads(verdict.raw_answer)["settled_by_figures"] is True


def test_a_refute_the_figures_settle_still_needs_the_second_judge() -> None:
    second = Fixed(NEUTRAL, "0.90")
    request = _port_request("In October the port handled 41,200 units, up 12% from 36,800 a year before.")
    verdict = AgreementJudge(Fixed(REFUTE, "0.70"), second).stance(request)
    assert verdict.stance is NEUTRAL and second.asked == 1


def test_the_real_pair_keeps_the_ports_own_statistics_as_support() -> None:
    request = _port_request(
        "In October 2026 the port handled 41,200 twenty-foot equivalent units, down 12% from 46,800 in "
        "October 2025."
    )
    assert create_judge(SECOND_JUDGE).stance(request).stance is NEUTRAL  # the embedding judge misses it
    assert create_judge(MINILM_AGREEMENT_JUDGE).stance(request).stance is SUPPORT
