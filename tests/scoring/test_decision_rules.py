"""Decision rules 1-6 and their boundary values, on hand-made totals."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icarus.scoring.icarus.aggregate import Totals
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.decision import decide
from icarus.scoring.labels import Label

POLICY = load_policy("icarus@1.1")


def totals(s: str, rf: str, icc_s: int = 0, icc_r: int = 0) -> Totals:
    return Totals(D(s), D(rf), icc_s, icc_r, diversity=1, tiers=())


def run(t: Totals, misrep: tuple[str, ...] = (), hops: bool = False):
    return decide(t, POLICY, misrepresentation=misrep, too_many_hops=hops)


def test_rule_1_misrepresentation_wins_over_everything() -> None:
    decision = run(totals("2.0", "0", icc_s=3), misrep=("H20: dropped qualifier",))
    assert (decision.label, decision.rule) == (Label.MISLEADING, "rule-1")


def test_rule_2_fires_at_exactly_030_of_max() -> None:
    decision = run(totals("1.00", "0.30", icc_s=2))
    assert (decision.label, decision.rule) == (Label.MISLEADING, "rule-2")


def test_rule_2_does_not_fire_just_below_030_of_max() -> None:
    decision = run(totals("1.00", "0.29", icc_s=2))
    assert decision.rule == "rule-4"
    assert decision.label is Label.SUPPORTED


def test_rule_2_needs_total_of_at_least_060() -> None:
    at_floor = run(totals("0.40", "0.20"))
    below = run(totals("0.40", "0.19"))
    assert (at_floor.label, at_floor.rule) == (Label.MISLEADING, "rule-2")
    assert (below.label, below.rule) == (Label.UNVERIFIABLE, "rule-6")


def test_rule_2_needs_both_sides() -> None:
    assert run(totals("0.90", "0", icc_s=2)).rule == "rule-4"


def test_rule_3_predicate_boundary_at_total_120_and_polarity_050() -> None:
    t = totals("0.70", "0.50")  # total exactly 1.20, polarity 1/6
    assert t.total == D("1.20")
    assert t.abs_polarity_below(POLICY.decision.polarity)
    assert not totals("0.75", "0.25").abs_polarity_below(D("0.50"))  # polarity exactly 0.50 is not below


@given(
    s=st.decimals(min_value=0, max_value=5, places=2),
    rf=st.decimals(min_value=0, max_value=5, places=2),
)
def test_rule_3_can_never_fire_first(s: D, rf: D) -> None:
    t = totals(str(s), str(rf))
    if t.abs_polarity_below(POLICY.decision.polarity) and t.total >= POLICY.decision.mixed_total:
        assert run(t).rule == "rule-2"


def test_rule_4_polarity_exactly_050_is_enough_for_the_polarity_test() -> None:
    t = totals("0.75", "0.25", icc_s=2)
    assert t.polarity == D("0.5")
    assert t.polarity_at_least(D("0.50"))
    # ...but min/max = 1/3 >= 0.30, so rule 2 decides first: the published order is kept.
    assert run(t).rule == "rule-2"


def test_rule_4_requires_two_independent_supporting_origins() -> None:
    assert run(totals("1.80", "0", icc_s=2)).label is Label.SUPPORTED
    one = run(totals("1.80", "0", icc_s=1))
    assert (one.label, one.rule) == (Label.UNVERIFIABLE, "rule-6")
    assert "fewer than two qualifying independent origins" in one.details


def test_rule_5_polarity_exactly_minus_050_and_two_refuting_origins() -> None:
    t = totals("0.25", "0.75", icc_r=2)
    assert t.polarity_at_most(D("-0.50"))
    assert run(totals("0", "0.90", icc_r=2)).label is Label.NOT_SUPPORTED
    assert run(totals("0", "0.90", icc_r=1)).label is Label.UNVERIFIABLE


def test_rule_6_inference_hops_block_rules_4_and_5() -> None:
    decision = run(totals("1.80", "0", icc_s=2), hops=True)
    assert decision.label is Label.UNVERIFIABLE
    assert any("inference hops" in d for d in decision.details)


def test_rule_6_nothing_found_is_unverifiable_never_not_supported() -> None:
    decision = run(totals("0", "0"))
    assert (decision.label, decision.rule) == (Label.UNVERIFIABLE, "rule-6")
    assert "no usable evidence" in decision.details


@pytest.mark.parametrize("s,rf", [("0.30", "0.29"), ("0.59", "0")])
def test_rule_6_below_the_floor(s: str, rf: str) -> None:
    assert run(totals(s, rf)).label is Label.UNVERIFIABLE


def test_binary_floats_would_miss_the_threshold_decimals_do_not() -> None:
    assert 0.75 * 0.60 < 0.45  # the trap the policy avoids
    assert D("0.75") * D("0.60") == POLICY.weighting.counting_threshold
