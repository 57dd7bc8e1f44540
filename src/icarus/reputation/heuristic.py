"""A deterministic reputation estimate for a domain that is not on file.

The estimate uses only features of the domain name itself, never engagement, badges or follower counts
(H29), and never political viewpoint. It is a weak prior: the policy multiplies it by its estimate discount
and says so in the report.
"""

from __future__ import annotations

from decimal import Decimal

from icarus.ledger import ReputationMethod, ReputationRecord, SourceTier

HEURISTIC_NAME = "domain-features@1"

# Suffixes run by institutions with editorial or legal accountability.
_ACCOUNTABLE_SUFFIXES = (
    ".gov",
    ".mil",
    ".edu",
    ".int",
    ".gov.uk",
    ".ac.uk",
    ".gc.ca",
    ".gov.au",
    ".europa.eu",
)
_BASE = Decimal("0.50")
_ACCOUNTABLE_BONUS = Decimal("0.30")
_NOISY_NAME_PENALTY = Decimal("0.10")  # digits or several hyphens: typical of throwaway sites
_FLOOR = Decimal("0.20")
_CEILING = Decimal("0.90")


def estimate(domain: str) -> ReputationRecord:
    """An estimated record for ``domain``, always marked heuristic and clamped to [0.20, 0.90]."""
    name = domain.lower().strip(".")
    score = _BASE
    tier = SourceTier.OTHER
    if name.endswith(_ACCOUNTABLE_SUFFIXES):
        score += _ACCOUNTABLE_BONUS
        tier = SourceTier.PRIMARY_OFFICIAL
    label = name.split(".")[0]
    if any(ch.isdigit() for ch in label) or label.count("-") >= 2:
        score -= _NOISY_NAME_PENALTY
    score = min(_CEILING, max(_FLOOR, score))
    return ReputationRecord(
        domain=name,
        score=score,
        tier=tier,
        method=ReputationMethod.HEURISTIC,
        produced_by=HEURISTIC_NAME,
        version="1",
    )
