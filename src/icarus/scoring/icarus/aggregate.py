"""Weight once: clusters, their stance and weight, and the claim-level totals S, Rf, polarity, ICC."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from icarus.ledger import SourceTier, Stance
from icarus.provenance import Cluster
from icarus.scoring.icarus.assess import ItemAssessment

ZERO = Decimal(0)
MIXED = "mixed"


@dataclass(frozen=True, slots=True)
class ClusterSummary:
    cluster: Cluster
    members: tuple[ItemAssessment, ...]  # the members judged against this claim
    weight: Decimal
    stance: str  # "support", "refute", "neutral" or "mixed"
    strongest_id: str | None
    counted: bool

    @property
    def strongest(self) -> ItemAssessment | None:
        for member in self.members:
            if member.evidence_id == self.strongest_id:
                return member
        return None


@dataclass(frozen=True, slots=True)
class Totals:
    support: Decimal  # S
    refute: Decimal  # Rf
    icc_support: int
    icc_refute: int
    diversity: int
    tiers: tuple[SourceTier, ...]

    @property
    def total(self) -> Decimal:
        return self.support + self.refute

    @property
    def polarity(self) -> Decimal:
        """(S - Rf) / (S + Rf), or 0 when nothing weighs. Comparisons use ``polarity_at_least``."""
        if self.total == 0:
            return ZERO
        return (self.support - self.refute) / self.total

    def polarity_at_least(self, threshold: Decimal) -> bool:
        """polarity >= threshold, decided without division so the boundary is exact."""
        return self.total > 0 and self.support - self.refute >= threshold * self.total

    def polarity_at_most(self, threshold: Decimal) -> bool:
        return self.total > 0 and self.support - self.refute <= threshold * self.total

    def abs_polarity_below(self, threshold: Decimal) -> bool:
        return abs(self.support - self.refute) < threshold * self.total


def summarise_cluster(
    cluster: Cluster, members: tuple[ItemAssessment, ...], threshold: Decimal
) -> ClusterSummary:
    """A cluster weighs its strongest member and takes that member's stance; counted members that
    disagree make it MIXED, which counts for neither side."""
    if not members:
        return ClusterSummary(cluster, members, ZERO, Stance.NEUTRAL.value, None, counted=False)
    strongest = min(members, key=lambda m: (-m.directional_weight, -m.confidence, m.evidence_id))
    weight = strongest.directional_weight
    sides = {m.stance for m in members if m.directional_weight >= threshold}
    stance = MIXED if {Stance.SUPPORT, Stance.REFUTE} <= sides else strongest.stance.value
    if weight == 0:
        stance = Stance.NEUTRAL.value
    counted = weight >= threshold and stance in (Stance.SUPPORT.value, Stance.REFUTE.value)
    return ClusterSummary(cluster, members, weight, stance, strongest.evidence_id, counted)


def totals(summaries: list[ClusterSummary]) -> Totals:
    support = sum((s.weight for s in summaries if s.stance == Stance.SUPPORT.value), ZERO)
    refute = sum((s.weight for s in summaries if s.stance == Stance.REFUTE.value), ZERO)
    counted = [s for s in summaries if s.counted]
    tiers = sorted({s.strongest.tier for s in counted if s.strongest is not None})
    return Totals(
        support=support,
        refute=refute,
        icc_support=sum(1 for s in counted if s.stance == Stance.SUPPORT.value),
        icc_refute=sum(1 for s in counted if s.stance == Stance.REFUTE.value),
        diversity=len(tiers),
        tiers=tuple(tiers),
    )
