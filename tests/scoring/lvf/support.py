"""Shared pieces for the LVF tests: a fixed assessor and small ledgers."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from icarus.ledger import EvidenceItem, Ledger
from icarus.scoring.lvf import AssessmentRequest, AssessorResult, Criterion
from icarus.scoring.lvf.assessors import AssessorStatus
from tests import builders as b

WORTHY = "Container traffic at Halden harbor fell 12% in October 2026, the port authority said."


def all_scores(value: str) -> dict[Criterion, Decimal]:
    return {c: Decimal(value) for c in Criterion}


@dataclass
class FixedAssessor:
    """Answers the same scores for every claim and counts how often it was asked."""

    scores: dict[Criterion, Decimal]
    name: str = "fixed@1"
    calls: list[str] = field(default_factory=list)

    def assess(self, request: AssessmentRequest) -> AssessorResult:
        self.calls.append(request.facts.claim.claim_id)
        return AssessorResult(
            assessor=self.name,
            provider="test",
            version="1",
            status=AssessorStatus.OK,
            scores=dict(self.scores),
        )


def worthy_ledger(
    evidence: list[EvidenceItem] | None = None, text: str = WORTHY, **claim_extra: object
) -> Ledger:
    return b.ledger(
        evidence if evidence is not None else [b.item("e1"), b.item("e2")],
        claims=[b.claim(text=text, source=text, **claim_extra)],
        subject=b.subject(text),
    )
