"""Inputs a policy version publishes as not yet live, switched off before its rules read the ledger.

Most not-live rule parts are read where the rule acts (``policy.live(...)`` beside the rule). One is an
input rather than a rule: Lin et al.'s domain rating, which reaches the core inside each evidence item's
reputation record. Where a version holds it inert, every record whose score came from that rating is
replaced by the record the registry gave without it (``ReputationRecord.without_lin``: another source's
baseline, else the heuristic estimate with its discount), so that the version scores what it publishes.
A ledger recorded before records carried that fallback has nothing to swap and is scored as it was.
"""

from __future__ import annotations

from icarus.ledger import EvidenceItem, Ledger
from icarus.scoring.icarus.config import PolicyConfig

__all__ = ["LIN_RATING", "inputs_in_force"]

LIN_RATING = "reputation.lin2023"


def _without_lin(item: EvidenceItem) -> EvidenceItem:
    fallback = item.reputation.without_lin
    return item if fallback is None else item.model_copy(update={"reputation": fallback})


def inputs_in_force(ledger: Ledger, policy: PolicyConfig) -> Ledger:
    """``ledger`` as ``policy`` reads it: the same object when nothing it holds is switched off."""
    if policy.live(LIN_RATING):
        return ledger
    evidence = [_without_lin(item) for item in ledger.evidence]
    if all(new is old for new, old in zip(evidence, ledger.evidence, strict=True)):
        return ledger
    return ledger.model_copy(update={"evidence": evidence})
