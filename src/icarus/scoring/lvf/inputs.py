"""What a run records of the judged, clustered evidence that its NLI and reliability components read.

One entry per independent origin (provenance cluster) with counted evidence: the stance and confidence of
the answer that speaks for it, and the reputation of the origin's item. With these and the assessors'
scores a stored run can be recomputed without the ledger (docs/spec/lvf.md).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict

from icarus.scoring.lvf.facts import ClaimFacts

__all__ = ["OriginInput", "RunInputs", "run_inputs"]


class OriginInput(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    cluster_id: str
    stance: Literal["support", "refute"]
    confidence: Decimal
    reputation: Decimal


class RunInputs(BaseModel):
    """``stance_judge_ran``: at least one stance answer without a failure (else NLI is not run)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stance_judge_ran: bool
    origins: tuple[OriginInput, ...] = ()


def run_inputs(facts: ClaimFacts) -> RunInputs:
    origins = []
    for origin in facts.origins:
        # Reliability reads the elected origin's item when the ledger holds it, else the representative's.
        item = facts.items.get(origin.origin_id or "") or origin.representative.item
        origins.append(
            OriginInput(
                cluster_id=origin.cluster_id,
                stance="support" if origin.stance.value == "support" else "refute",
                confidence=origin.representative.confidence,
                reputation=item.reputation.score,
            )
        )
    return RunInputs(stance_judge_ran=facts.stance_judge_ran, origins=tuple(origins))
