"""The confidence formula: each term, each penalty, the clamp and the band edges."""

from __future__ import annotations

from decimal import Decimal as D

from icarus.ledger import SourceTier, Stance
from icarus.provenance import Cluster
from icarus.scoring.icarus.aggregate import ClusterSummary, Totals
from icarus.scoring.icarus.confidence import band_for, confidence, mean_stance_confidence
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.labels import Band
from tests.scoring.helpers import assessment

POLICY = load_policy("icarus@1.1")


def summary(
    eid: str,
    weight: str,
    stance: str = "support",
    *,
    uncertain: bool = False,
    in_cycle: bool = False,
    estimated: bool = False,
    open_correction: bool = False,
    confidence_value: str = "0.90",
) -> ClusterSummary:
    member = assessment(
        eid,
        weight=weight,
        stance=Stance(stance),
        estimated=estimated,
        open_correction=open_correction,
        confidence=confidence_value,
    )
    cluster = Cluster(f"cluster:{eid}", (eid,), eid, uncertain, (), in_cycle)
    return ClusterSummary(
        cluster,
        (member,),
        member.directional_weight,
        stance,
        eid,
        counted=member.directional_weight >= D("0.45"),
    )


def test_band_edges_are_inclusive() -> None:
    assert band_for(D("0.70"), POLICY) is Band.HIGH
    assert band_for(D("0.6999"), POLICY) is Band.MEDIUM
    assert band_for(D("0.45"), POLICY) is Band.MEDIUM
    assert band_for(D("0.4499"), POLICY) is Band.LOW


def test_terms_match_the_published_formula() -> None:
    sums = [summary("a", "0.90"), summary("b", "0.90"), summary("c", "0.70")]
    t = Totals(D("2.50"), D("0"), 3, 0, diversity=3, tiers=(SourceTier.WIRE,))
    result = confidence(t, sums, D("1"), POLICY, claim_in_cycle=False)
    assert result.terms["evidence_mass"] == D("0.30")
    assert result.terms["independent_origins"] == D("0.25")
    assert result.terms["diversity"] == D("0.15")
    assert result.terms["polarity"] == D("0.15")
    assert result.terms["stance_confidence"] == D("0.10") * D("0.90")
    assert result.terms["freshness"] == D("0.05")
    assert result.penalties == {}
    assert result.score == D("0.990")
    assert result.band is Band.HIGH


def test_saturation_caps_each_term() -> None:
    t = Totals(D("9"), D("0"), 7, 0, diversity=8, tiers=())
    result = confidence(t, [summary("a", "0.9")], D("1"), POLICY, claim_in_cycle=False)
    assert result.terms["evidence_mass"] == D("0.30")
    assert result.terms["independent_origins"] == D("0.25")
    assert result.terms["diversity"] == D("0.15")


def test_uncertain_origin_penalty_once() -> None:
    sums = [summary("a", "0.9", uncertain=True), summary("b", "0.9", uncertain=True)]
    t = Totals(D("1.8"), D("0"), 2, 0, 1, ())
    assert confidence(t, sums, D("1"), POLICY, claim_in_cycle=False).penalties == {
        "uncertain_origin": D("0.15")
    }


def test_heuristic_penalty_per_cluster_capped_at_020() -> None:
    two = [summary("a", "0.5", estimated=True), summary("b", "0.5", estimated=True)]
    three = [*two, summary("c", "0.5", estimated=True)]
    one = two[:1]
    t = Totals(D("1.5"), D("0"), 3, 0, 1, ())
    assert confidence(t, one, D("1"), POLICY, claim_in_cycle=False).penalties["heuristic_reputation"] == D(
        "0.10"
    )
    assert confidence(t, two, D("1"), POLICY, claim_in_cycle=False).penalties["heuristic_reputation"] == D(
        "0.20"
    )
    assert confidence(t, three, D("1"), POLICY, claim_in_cycle=False).penalties["heuristic_reputation"] == D(
        "0.20"
    )


def test_uncounted_heuristic_cluster_is_not_penalised() -> None:
    sums = [summary("a", "0.30", estimated=True)]
    t = Totals(D("0.3"), D("0"), 0, 0, 0, ())
    assert "heuristic_reputation" not in confidence(t, sums, D("1"), POLICY, claim_in_cycle=False).penalties


def test_cycle_and_open_correction_penalties() -> None:
    sums = [summary("a", "0.9", open_correction=True)]
    t = Totals(D("0.9"), D("0"), 1, 0, 1, ())
    result = confidence(t, sums, D("1"), POLICY, claim_in_cycle=True)
    assert result.penalties == {"circular_reporting": D("0.20"), "open_correction": D("0.10")}


def test_score_is_clamped_at_zero() -> None:
    sums = [summary("a", "0.5", uncertain=True, estimated=True, open_correction=True)]
    t = Totals(D("0.5"), D("0"), 1, 0, 1, ())
    result = confidence(t, sums, D("0"), POLICY, claim_in_cycle=True)
    assert result.score == D("0")
    assert result.band is Band.LOW


def test_mean_stance_confidence_uses_strongest_member_of_each_weighing_cluster() -> None:
    sums = [
        summary("a", "0.9", confidence_value="0.80"),
        summary("b", "0.9", confidence_value="0.60"),
        summary("n", "0.9", stance="neutral"),
    ]
    assert mean_stance_confidence(sums) == D("0.70")
