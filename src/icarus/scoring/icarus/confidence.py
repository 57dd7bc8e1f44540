"""The confidence score: computed from the evidence graph, never asked of a model."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from icarus.scoring.icarus.aggregate import ClusterSummary, Totals
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.labels import Band

ZERO = Decimal(0)
ONE = Decimal(1)


@dataclass(frozen=True, slots=True)
class Confidence:
    terms: dict[str, Decimal]  # each weighted term, before penalties
    penalties: dict[str, Decimal]  # each penalty applied (positive numbers, subtracted)
    score: Decimal  # clamped to [0, 1]
    band: Band


def band_for(score: Decimal, policy: PolicyConfig) -> Band:
    if score >= policy.bands.high:
        return Band.HIGH
    if score >= policy.bands.medium:
        return Band.MEDIUM
    return Band.LOW


def mean_stance_confidence(summaries: list[ClusterSummary]) -> Decimal:
    """Mean C of the strongest member of each cluster that adds to S or Rf (0 when none)."""
    values = [
        s.strongest.confidence
        for s in summaries
        if s.strongest is not None and s.weight > 0 and s.stance in ("support", "refute")
    ]
    return sum(values, ZERO) / len(values) if values else ZERO


def confidence(
    totals: Totals,
    summaries: list[ClusterSummary],
    freshness: Decimal,
    policy: PolicyConfig,
    *,
    claim_in_cycle: bool,
) -> Confidence:
    w = policy.confidence
    terms = {
        "evidence_mass": w.evidence_mass * min(ONE, totals.total / w.evidence_mass_saturation),
        "independent_origins": w.independent_origins
        * min(ONE, Decimal(max(totals.icc_support, totals.icc_refute)) / w.independent_origins_saturation),
        "diversity": w.diversity * min(ONE, Decimal(totals.diversity) / w.diversity_saturation),
        "polarity": w.polarity * abs(totals.polarity),
        "stance_confidence": w.stance_confidence * mean_stance_confidence(summaries),
        "freshness": w.freshness * freshness,
    }
    p = policy.penalties
    counted = [s for s in summaries if s.counted]
    penalties: dict[str, Decimal] = {}
    if any(s.cluster.origin_uncertain for s in counted):
        penalties["uncertain_origin"] = p.uncertain_origin
    heuristic = sum(1 for s in counted if s.strongest is not None and s.strongest.estimated)
    if heuristic:
        penalties["heuristic_reputation"] = min(p.heuristic_cap, p.heuristic_cluster * heuristic)
    if claim_in_cycle:
        penalties["circular_reporting"] = p.circular_reporting
    if any(m.open_correction for s in counted for m in s.members):
        penalties["open_correction"] = p.open_correction
    raw = sum(terms.values(), ZERO) - sum(penalties.values(), ZERO)
    score = min(ONE, max(ZERO, raw))
    return Confidence(terms, penalties, score, band_for(score, policy))
