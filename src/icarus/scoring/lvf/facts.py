"""What the LVF assessors and components read about one claim: counted evidence and independent origins.

Independence comes from the provenance graph (``build_graph``, ``elect_origins``), never from article
counts: ten pickups of one wire story are one cluster, so they are one origin. An item is *counted* for a
claim when a stance judge answered (no failure) with support or refute at or above the neutral threshold,
and nothing about the item takes it out of corroboration (a weightless source class, a retraction, an
inaccessible page, out-of-scope directness, a superseded release, a scope mismatch).

Pure: the ledger in, facts out. No I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from icarus.ledger import (
    Access,
    Claim,
    ClaimJudgment,
    Directness,
    EvidenceItem,
    Ledger,
    SourceClass,
    Stance,
)
from icarus.provenance import ElectionFacts, ProvenanceGraph, build_graph, elect_origins
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.selfevidence import check_claim
from icarus.scoring.lvf.config import LvfConfig

__all__ = ["ClaimFacts", "CountedItem", "OriginView", "claim_facts", "ledger_graph"]

# Classes that carry no corroboration weight (satire only counts when the claim is about the piece).
_WEIGHTLESS = frozenset({SourceClass.AGGREGATOR, SourceClass.CONTENT_FARM, SourceClass.PLATFORM})


@dataclass(frozen=True, slots=True)
class CountedItem:
    item: EvidenceItem
    judgment: ClaimJudgment
    stance: Stance  # support or refute
    confidence: Decimal


@dataclass(frozen=True, slots=True)
class OriginView:
    """One provenance cluster with counted evidence: its representative item decides its stance."""

    cluster_id: str
    origin_id: str | None
    representative: CountedItem
    members: tuple[CountedItem, ...]

    @property
    def stance(self) -> Stance:
        return self.representative.stance


@dataclass(frozen=True, slots=True)
class ClaimFacts:
    claim: Claim
    judged: tuple[EvidenceItem, ...]  # items with a judgment for this claim
    stance_judge_ran: bool  # at least one stance answer without a failure
    counted: tuple[CountedItem, ...]
    origins: tuple[OriginView, ...]  # clusters with counted evidence, sorted by cluster id
    cluster_count: int  # clusters over the whole ledger
    items: Mapping[str, EvidenceItem]
    # Rule 1's findings about the claim (a verified H20 self-evidence finding, H16, H12, H13), e.g.
    # "H20 on study": the claim misstates material it cites, so its own citation cannot corroborate it.
    misrepresentations: tuple[str, ...] = ()

    @property
    def supporting(self) -> tuple[OriginView, ...]:
        return tuple(o for o in self.origins if o.stance is Stance.SUPPORT)

    @property
    def refuting(self) -> tuple[OriginView, ...]:
        return tuple(o for o in self.origins if o.stance is Stance.REFUTE)


def ledger_graph(ledger: Ledger, config: LvfConfig) -> ProvenanceGraph:
    """The claim-independent provenance graph, built with the provenance settings the config names."""
    settings = load_policy(config.provenance_settings_from).provenance
    return build_graph(ledger.evidence, ledger.subject.artifact_urls, settings)


def _excluded(item: EvidenceItem, judgment: ClaimJudgment) -> bool:
    flags = item.flags
    if item.source_class in _WEIGHTLESS:
        return True
    if item.source_class is SourceClass.SATIRE and not judgment.claim_is_about_source:
        return True
    return (
        flags.retracted
        or flags.self_citation
        or flags.superseded
        or flags.access is Access.INACCESSIBLE
        or item.directness is Directness.OUT_OF_SCOPE
        or not judgment.scope.matches
    )


def _election_facts(items: Mapping[str, EvidenceItem]) -> dict[str, ElectionFacts]:
    facts = {}
    for evidence_id, item in items.items():
        precedence = (
            2
            if item.source_class is SourceClass.PRIMARY_OFFICIAL
            else int(item.source_class is SourceClass.WIRE)
        )
        facts[evidence_id] = ElectionFacts(
            item.published_at or item.retrieved_at, item.reputation.score, precedence
        )
    return facts


def _representative(members: list[CountedItem]) -> CountedItem:
    # The most confident answer speaks for the cluster; ties go to the lowest evidence id.
    return min(members, key=lambda c: (-c.confidence, c.item.evidence_id))


def claim_facts(ledger: Ledger, claim: Claim, graph: ProvenanceGraph, config: LvfConfig) -> ClaimFacts:
    items = {item.evidence_id: item for item in ledger.evidence}
    threshold = config.ledger_assessor.neutral_below_confidence
    found = check_claim(claim, ledger, load_policy(config.provenance_settings_from)).misrepresentations
    misstated = {m.evidence_id for m in found if m.evidence_id is not None}
    judged: list[EvidenceItem] = []
    counted: dict[str, CountedItem] = {}
    ran = False
    for item in sorted(ledger.evidence, key=lambda e: e.evidence_id):
        judgment = item.judgment_for(claim.claim_id)
        if judgment is None:
            continue
        judged.append(item)
        answer = judgment.stance
        if answer.failure is not None:
            continue
        ran = True
        if answer.stance is Stance.NEUTRAL or answer.confidence < threshold or _excluded(item, judgment):
            continue
        if answer.stance is Stance.SUPPORT and item.evidence_id in misstated:
            continue  # the claim misstates this item: what it says cannot support the claim as stated
        counted[item.evidence_id] = CountedItem(item, judgment, answer.stance, answer.confidence)

    clusters = elect_origins(graph, _election_facts(items))
    origins = []
    for cluster in clusters:
        members = [counted[m] for m in cluster.member_ids if m in counted]
        if not members:
            continue
        origins.append(
            OriginView(cluster.cluster_id, cluster.origin_id, _representative(members), tuple(members))
        )
    return ClaimFacts(
        claim=claim,
        judged=tuple(judged),
        stance_judge_ran=ran,
        counted=tuple(counted[k] for k in sorted(counted)),
        origins=tuple(origins),
        cluster_count=len(clusters),
        items=items,
        misrepresentations=tuple(f"{m.rule} on {m.evidence_id}" if m.evidence_id else m.rule for m in found),
    )
