"""Claim decision rules 1-6, applied in the published order. The first rule that fires decides."""

from __future__ import annotations

from dataclasses import dataclass

from icarus.scoring.icarus.aggregate import Totals
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.labels import Label


@dataclass(frozen=True, slots=True)
class Decision:
    label: Label
    rule: str  # "rule-1" .. "rule-6"
    message: str
    details: tuple[str, ...] = ()  # for rule 6: every reason the claim stayed unresolved


def decide(
    totals: Totals,
    policy: PolicyConfig,
    *,
    misrepresentation: tuple[str, ...],
    too_many_hops: bool,
    eligible: bool = True,
) -> Decision:
    d = policy.decision
    if misrepresentation:
        return Decision(
            Label.MISLEADING, "rule-1", "the post misstates material: " + "; ".join(misrepresentation)
        )
    sides_may_conflict = not d.conflict_needs_counted_each_side or counted_each_side(totals)
    if sides_may_conflict and conflict_ratio_met(totals, policy):
        return Decision(
            Label.MISLEADING, "rule-2", "genuine conflict between supporting and refuting origins"
        )
    if sides_may_conflict and totals.abs_polarity_below(d.polarity) and totals.total >= d.mixed_total:
        return Decision(Label.MISLEADING, "rule-3", "evidence is materially mixed")
    if not too_many_hops and totals.polarity_at_least(d.polarity) and totals.icc_support >= d.minimum_icc:
        return Decision(Label.SUPPORTED, "rule-4", "independent origins support the claim")
    if not too_many_hops and totals.polarity_at_most(-d.polarity) and totals.icc_refute >= d.minimum_icc:
        return Decision(Label.NOT_SUPPORTED, "rule-5", "independent origins refute the claim")
    return Decision(
        Label.UNVERIFIABLE,
        "rule-6",
        "the evidence does not settle the claim",
        _unresolved_reasons(totals, policy, too_many_hops, eligible),
    )


def counted_each_side(totals: Totals) -> bool:
    """At least one counted cluster supports and one refutes (what icarus@1.2 asks of rules 2 and 3)."""
    return totals.icc_support >= 1 and totals.icc_refute >= 1


def conflict_ratio_met(totals: Totals, policy: PolicyConfig) -> bool:
    """Rule 2's arithmetic: both sides present, min(S, Rf) >= ratio x max(S, Rf), and S + Rf at the floor."""
    d = policy.decision
    s, rf = totals.support, totals.refute
    return totals.total >= d.minimum_total and min(s, rf) > 0 and min(s, rf) >= d.conflict_ratio * max(s, rf)


def _unresolved_reasons(
    totals: Totals, policy: PolicyConfig, too_many_hops: bool, eligible: bool
) -> tuple[str, ...]:
    d = policy.decision
    reasons: list[str] = []
    if not eligible:
        reasons.append("ineligible disposition")
    if totals.total == 0:
        reasons.append("no usable evidence")
    elif totals.total < d.minimum_total:
        reasons.append("too little evidence weight (S + Rf below the floor)")
    if max(totals.icc_support, totals.icc_refute) < d.minimum_icc:
        reasons.append("fewer than two qualifying independent origins")
    if too_many_hops:
        reasons.append("evidence chain deeper than the allowed unsupported inference hops")
    if d.conflict_needs_counted_each_side and conflict_ratio_met(totals, policy):
        reasons.append("evidence on both sides, but not a counted origin on each side (no genuine conflict)")
    if not reasons:
        reasons.append("polarity short of the threshold")
    return tuple(reasons)
