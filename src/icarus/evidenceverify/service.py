"""One EvidenceVerify run: decide whether to search, search if so, then apply the pure six steps."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from icarus.evidenceverify.search import independent_search
from icarus.judges.protocol import Judge
from icarus.research.excerpts import best_excerpt
from icarus.research.providers import SearchProvider
from icarus.scoring.evidenceverify.criticality import CriticalityJudge
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    EvidenceStore,
    EvidenceVerifyConfig,
    VerificationResult,
)
from icarus.scoring.evidenceverify.verify import SearchOutcome, search_needed, verify_claim

__all__ = ["evidence_verify"]


def evidence_verify(
    claim: ClaimItem,
    store: EvidenceStore,
    config: EvidenceVerifyConfig,
    *,
    stance_judge: Judge,
    criticality_judge: CriticalityJudge,
    providers: Sequence[SearchProvider],
    independent: bool,
    as_of: datetime,
    searched: SearchOutcome | None = None,
) -> VerificationResult:
    """``searched``: the outcome of a search already run for this claim (a replay reuses the stored one)
    instead of searching again."""
    reasons = search_needed(claim, store, independent)
    search: SearchOutcome | None = None
    if reasons:
        search = searched or independent_search(claim, store, providers, config, as_of)
    result = verify_claim(
        claim,
        store,
        config,
        stance_judge=stance_judge,
        excerpt=best_excerpt,
        criticality=criticality_judge.criticality(claim, config),
        search=search,
    )
    if reasons:
        notes = ["independent search: " + "; ".join(reasons), *result.verification_notes]
        result = result.model_copy(update={"verification_notes": notes})
    return result
