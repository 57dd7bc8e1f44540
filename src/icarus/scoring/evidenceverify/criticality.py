"""Criticality: is the claim central to the argument (or high-impact), or a peripheral supporting point?

It is a judge's typed answer. A claim item that states its ``centrality`` is taken at its word. Otherwise
the embedded judge ``offline-criticality@1`` decides deterministically: a claim whose checkworthiness (the
claims package's cue score: numbers, dates, names, comparisons, attributions) reaches the configured points
is critical; a vaguer supporting point is peripheral. Critical claims need more independent sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from icarus.claims.cues import checkworthiness
from icarus.scoring.evidenceverify.models import ClaimItem, EvidenceVerifyConfig

__all__ = ["OFFLINE_CRITICALITY", "CriticalityAnswer", "CriticalityJudge", "OfflineCriticalityJudge"]

OFFLINE_CRITICALITY = "offline-criticality@1"


@dataclass(frozen=True, slots=True)
class CriticalityAnswer:
    critical: bool
    reason: str
    judge: str  # who answered: a judge name@version, or "claim" when the claim item states it


@runtime_checkable
class CriticalityJudge(Protocol):
    name: str

    def criticality(self, claim: ClaimItem, config: EvidenceVerifyConfig) -> CriticalityAnswer: ...


class OfflineCriticalityJudge:
    name = OFFLINE_CRITICALITY

    def criticality(self, claim: ClaimItem, config: EvidenceVerifyConfig) -> CriticalityAnswer:
        if claim.centrality is not None:
            return CriticalityAnswer(
                claim.centrality == "central", f"the claim is marked {claim.centrality}", "claim"
            )
        worth = checkworthiness(claim.text)
        critical = worth.points >= config.criticality_points
        verdict = "at least" if critical else "below"
        reason = f"checkworthiness {worth.points} is {verdict} {config.criticality_points} ({', '.join(worth.features) or 'no cues'})"
        return CriticalityAnswer(critical, reason, self.name)
