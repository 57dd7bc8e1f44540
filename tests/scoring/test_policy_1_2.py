"""icarus@1.2: rules 2 and 3 need at least one counted cluster on each side; 1.0 and 1.1 keep the old reading.

The clusters here are built with the aggregation's own ``summarise_cluster``, so "counted" is decided exactly
as scoring decides it (weight at or above the counting threshold and a side taken).
"""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icarus.ledger import ReputationMethod, SourceTier, Stance
from icarus.provenance import Cluster
from icarus.scoring.icarus.aggregate import ClusterSummary, Totals, summarise_cluster, totals
from icarus.scoring.icarus.config import DEFAULT_POLICY, POLICY_FILES, load_policy
from icarus.scoring.icarus.decision import Decision, decide
from icarus.scoring.icarus.methodology import render_methodology
from icarus.scoring.labels import Label
from tests.builders import item, ledger
from tests.scoring.helpers import assessment
from tests.scoring.scoring_support import claim_of, codes, final_pass, score

OLD = ("icarus@1.0", "icarus@1.1")
NEW = "icarus@1.2"


def clusters(*sides: tuple[str, str]) -> list[ClusterSummary]:
    """One single-member cluster per (stance, weight), summarised as scoring summarises it."""
    threshold = load_policy(NEW).weighting.counting_threshold
    out = []
    for index, (stance, weight) in enumerate(sides):
        member = assessment(f"e{index}", weight=weight, stance=Stance(stance))
        out.append(summarise_cluster(_cluster(f"k{index}", member.evidence_id), (member,), threshold))
    return out


def _cluster(cluster_id: str, *member_ids: str) -> Cluster:
    return Cluster(cluster_id, member_ids, member_ids[0], False, (), False)


def decided(ref: str, *sides: tuple[str, str]) -> Decision:
    return decide(totals(clusters(*sides)), load_policy(ref), misrepresentation=(), too_many_hops=False)


# --- the config switch ------------------------------------------------------------------------------------


def test_rule_2_switch_is_on_only_in_1_2_and_earlier_hashes_are_unchanged() -> None:
    assert load_policy(NEW).decision.conflict_needs_counted_each_side
    for ref in OLD:
        assert not load_policy(ref).decision.conflict_needs_counted_each_side
        # A switch at its default is not written into the hashed config, so 1.0 and 1.1 hash as before.
        assert "conflict_needs_counted_each_side" not in load_policy(ref).canonical()["decision"]
    assert load_policy(NEW).canonical()["decision"]["conflict_needs_counted_each_side"] is True
    assert sorted(POLICY_FILES) == ["icarus@1.0", "icarus@1.1", "icarus@1.2"]
    assert DEFAULT_POLICY in POLICY_FILES


def test_rule_2_1_2_differs_from_1_1_only_in_the_switch() -> None:
    one, two = load_policy("icarus@1.1").canonical(), load_policy(NEW).canonical()
    assert {k for k in one.keys() | two.keys() if one.get(k) != two.get(k)} == {
        "version",
        "published",
        "summary",
        "decision",
    }
    one["decision"]["conflict_needs_counted_each_side"] = True
    assert one["decision"] == two["decision"]


def test_rule_2_methodology_of_1_2_names_the_counted_each_side_reading_from_config() -> None:
    page = render_methodology(load_policy(NEW))
    assert "2. At least one counted cluster on each side, min(S, Rf)" in page
    assert "3. At least one counted cluster on each side, abs(polarity)" in page
    assert "A counted cluster weighs at least 0.45" in page
    for ref in OLD:
        assert "counted cluster on each side" not in render_methodology(load_policy(ref))
    policy = load_policy(NEW)
    changed = policy.model_copy(
        update={"weighting": policy.weighting.model_copy(update={"counting_threshold": D("0.55")})}
    )
    assert "A counted cluster weighs at least 0.55" in render_methodology(changed)


# --- rule 2 boundary values under 1.2, and the same ledgers under 1.0/1.1 -----------------------------------


def test_rule_2_one_counted_cluster_on_each_side_is_a_genuine_conflict_under_1_2() -> None:
    sides = (("support", "0.60"), ("refute", "0.45"))
    for ref in (*OLD, NEW):
        decision = decided(ref, *sides)
        assert (decision.label, decision.rule) == (Label.MISLEADING, "rule-2"), ref


def test_rule_2_refute_at_exactly_045_counts_and_0_4499_does_not() -> None:
    at = decided(NEW, ("support", "0.60"), ("refute", "0.45"))
    below = decided(NEW, ("support", "0.60"), ("refute", "0.4499"))
    assert at.rule == "rule-2"
    assert (below.label, below.rule) == (Label.UNVERIFIABLE, "rule-6")
    assert decided("icarus@1.1", ("support", "0.60"), ("refute", "0.4499")).rule == "rule-2"


def test_rule_2_support_at_exactly_045_counts_and_0_4499_does_not() -> None:
    assert decided(NEW, ("support", "0.45"), ("refute", "0.60")).rule == "rule-2"
    assert decided(NEW, ("support", "0.4499"), ("refute", "0.60")).rule == "rule-6"


def test_rule_2_075_times_060_is_exactly_the_threshold_and_counts() -> None:
    estimated = D("0.75") * D("0.60")  # an estimated reputation at its best: counted, not 0.4499...
    assert decided(NEW, ("support", "0.60"), ("refute", str(estimated))).rule == "rule-2"


@pytest.mark.parametrize(
    ("sides", "new_rule", "new_label"),
    [
        # Two counted supporters, one weak refuter: polarity exactly +0.50 -> rule 4.
        ((("support", "0.45"), ("support", "0.45"), ("refute", "0.30")), "rule-4", Label.SUPPORTED),
        # Mirror image -> rule 5.
        ((("refute", "0.45"), ("refute", "0.45"), ("support", "0.30")), "rule-5", Label.NOT_SUPPORTED),
        # One counted supporter, one weak refuter -> rule 6.
        ((("support", "0.50"), ("refute", "0.30")), "rule-6", Label.UNVERIFIABLE),
        # Weak on both sides (the SciFact pattern: estimated evidence either way) -> rule 6.
        ((("support", "0.34"), ("refute", "0.32")), "rule-6", Label.UNVERIFIABLE),
    ],
    ids=["rule-4", "rule-5", "rule-6-one-counted", "rule-6-none-counted"],
)
def test_rule_2_without_a_counted_cluster_on_each_side_falls_through_under_1_2(
    sides: tuple[tuple[str, str], ...], new_rule: str, new_label: Label
) -> None:
    for ref in OLD:
        assert decided(ref, *sides).rule == "rule-2", ref  # the old reading: still a conflict
    decision = decided(NEW, *sides)
    assert (decision.rule, decision.label) == (new_rule, new_label)
    if new_rule == "rule-6":
        assert any("not a counted origin on each side" in d for d in decision.details)


def test_rule_2_the_old_reading_is_unchanged_under_1_0_and_1_1_for_uncounted_totals() -> None:
    t = Totals(D("0.40"), D("0.20"), 0, 0, diversity=0, tiers=())  # the floor exactly, nothing counted
    for ref in OLD:
        assert decide(t, load_policy(ref), misrepresentation=(), too_many_hops=False).rule == "rule-2"
    assert decide(t, load_policy(NEW), misrepresentation=(), too_many_hops=False).rule == "rule-6"


def test_rule_2_a_mixed_cluster_is_not_a_counted_side() -> None:
    # A cluster whose counted members disagree counts for neither side, so it cannot supply the counted
    # refuter that 1.2 asks for.
    threshold = load_policy(NEW).weighting.counting_threshold
    s, r = assessment("s", weight="0.60"), assessment("r", weight="0.50", stance=Stance.REFUTE)
    mixed = summarise_cluster(_cluster("m", "s", "r"), (s, r), threshold)
    weak = clusters(("refute", "0.30"))[0]
    t = totals([mixed, weak, *clusters(("support", "0.45"))])
    assert mixed.stance == "mixed" and t.icc_refute == 0
    assert decide(t, load_policy(NEW), misrepresentation=(), too_many_hops=False).rule != "rule-2"


def test_rule_1_still_wins_under_1_2() -> None:
    t = totals(clusters(("support", "0.30"), ("refute", "0.30")))
    decision = decide(t, load_policy(NEW), misrepresentation=("H20: dropped qualifier",), too_many_hops=False)
    assert decision.rule == "rule-1"


# --- rule 3 under 1.2 -------------------------------------------------------------------------------------


def test_rule_3_needs_the_same_counted_sides_under_1_2() -> None:
    # S 0.70 and Rf 0.60 from clusters under the threshold: polarity 1/13, S + Rf 1.30. Without the guard
    # rule 3 would fire here in 1.2 (rule 2 being held back), moving the spurious warning one rule down.
    sides = (("support", "0.35"), ("support", "0.35"), ("refute", "0.30"), ("refute", "0.30"))
    t = totals(clusters(*sides))
    assert t.abs_polarity_below(D("0.50")) and t.total >= load_policy(NEW).decision.mixed_total
    assert decided("icarus@1.1", *sides).rule == "rule-2"
    assert decided(NEW, *sides).rule == "rule-6"


@given(
    s=st.decimals(min_value=0, max_value=5, places=2),
    rf=st.decimals(min_value=0, max_value=5, places=2),
    icc_s=st.integers(min_value=0, max_value=3),
    icc_r=st.integers(min_value=0, max_value=3),
)
def test_rule_3_can_never_fire_first_under_1_2(s: D, rf: D, icc_s: int, icc_r: int) -> None:
    t = Totals(s, rf, icc_s, icc_r, diversity=0, tiers=())
    decision = decide(t, load_policy(NEW), misrepresentation=(), too_many_hops=False)
    assert decision.rule != "rule-3"


# --- whole ledgers ------------------------------------------------------------------------------------------


def _estimated(eid: str, stance: str, score_text: str) -> object:
    return item(
        eid, stance=stance, score=score_text, method=ReputationMethod.HEURISTIC, tier=SourceTier.SCHOLARLY
    )


def test_rule_2_weak_estimated_evidence_on_both_sides_is_unverifiable_under_1_2_and_misleading_before() -> (
    None
):
    evidence = [_estimated("pro", "support", "0.70"), _estimated("con", "refute", "0.65")]
    for ref in OLD:
        result = score(ledger(evidence), ref)  # type: ignore[arg-type]
        assert claim_of(result)["label"] == "misleading" and "rule-2" in codes(result), ref
    result = score(ledger(evidence), NEW)  # type: ignore[arg-type]
    assert claim_of(result)["label"] == "unverifiable"
    assert "rule-6" in codes(result)
    totals_ = final_pass(result)["totals"]
    assert (totals_["icc_support"], totals_["icc_refute"]) == (0, 0)
    assert result["policy"] == NEW and result["config_hash"] == load_policy(NEW).config_hash


def test_rule_2_two_counted_supporters_and_a_weak_refuter_are_supported_under_1_2() -> None:
    evidence = [item("a"), item("b"), _estimated("con", "refute", "0.90")]  # Rf 0.4374
    assert claim_of(score(ledger(evidence), "icarus@1.1"))["label"] == "misleading"  # type: ignore[arg-type]
    assert claim_of(score(ledger(evidence), NEW))["label"] == "supported"  # type: ignore[arg-type]
