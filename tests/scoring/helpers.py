"""Hand-built assessments for unit tests of the aggregation and confidence arithmetic."""

from __future__ import annotations

from decimal import Decimal as D

from icarus.ledger import SourceTier, Stance
from icarus.scoring.icarus.assess import ItemAssessment


def assessment(
    evidence_id: str,
    *,
    weight: str,
    stance: Stance = Stance.SUPPORT,
    estimated: bool = False,
    open_correction: bool = False,
    confidence: str = "0.90",
    hops: int = 0,
) -> ItemAssessment:
    """An assessment whose R x D x V x C x P equals ``weight`` (R carries the weight, C is reported)."""
    c = D(confidence)
    return ItemAssessment(
        evidence_id=evidence_id,
        judged_stance=stance,
        stance=stance,
        confidence=c,
        reputation=D(weight) / c,
        directness=D(1),
        validity=D(1),
        provenance_discount=D(1),
        excluded_by=(),
        factors=(),
        flags=(),
        caveats=(),
        inference_hops=hops,
        tier=SourceTier.NATIONAL_NEWS,
        estimated=estimated,
        retracted=False,
        open_correction=open_correction,
        last_change=None,
        live_coverage=False,
        anchored=True,
        anchor_problem="",
        is_primary=False,
        first_seen=None,
        election_eligible=True,
        uncertain_if_elected=(),
        inaccessible=False,
    )
