"""What scoring one claim produces, before it is published: the passes and the claim's outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from icarus.ledger import Claim
from icarus.provenance import Cluster
from icarus.scoring.icarus.aggregate import ClusterSummary, Totals
from icarus.scoring.icarus.assess import ItemAssessment
from icarus.scoring.icarus.blocker import Blocker
from icarus.scoring.icarus.confidence import Confidence
from icarus.scoring.icarus.decision import Decision
from icarus.scoring.icarus.gates import GateEvent
from icarus.scoring.icarus.selfevidence import SelfEvidenceCheck
from icarus.scoring.labels import Band, Label


@dataclass(frozen=True, slots=True)
class Pass:
    """One scoring pass over a claim's evidence (G3 and G4 compare passes)."""

    name: str
    assessments: dict[str, ItemAssessment]
    clusters: tuple[Cluster, ...]
    summaries: list[ClusterSummary]
    totals: Totals
    too_many_hops: bool
    decision: Decision


@dataclass(slots=True)
class ClaimOutcome:
    claim: Claim
    label: Label
    scored_label: Label  # after G0-G4, before G6 holds it: what the next run compares against
    band: Band
    decision: Decision
    confidence: Confidence
    final: Pass
    passes: list[Pass]
    gates: list[GateEvent]
    selfcheck: SelfEvidenceCheck
    freshness: Decimal
    caveats: list[str] = field(default_factory=list)
    recheck_triggers: list[str] = field(default_factory=list)
    review_requests: list[dict[str, str]] = field(default_factory=list)
    blockers: tuple[Blocker, ...] = ()  # what kept it ❔ or below high (``blockers.claim_blockers``)
