"""Origin election: which member of each cluster is its origin, and whether that choice is certain.

Per cluster, among the members the scoring rules call eligible (H9's exclusion can remove some), the
earliest ``first_seen`` wins. Ties go to the higher reputation, then the higher precedence (primary official
over wire over the rest), then the lowest evidence id, so the result never depends on input order. A member
without any timestamp loses to every dated member.

The election is uncertain when the cluster sits in a citation cycle, when no member has a timestamp, when no
member was eligible (the excluded items stand in, as a first report whose date contradicts the event), or
when the elected origin carries its own reasons (date/event mismatch, future date, anonymous sourcing).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal

from icarus.provenance.model import Cluster, ElectionFacts, ProvenanceGraph, UncertainReason

__all__ = ["elect_origins"]

_REASON_ORDER = tuple(UncertainReason)


_UNDATED = datetime.min.replace(tzinfo=UTC)


def _sort_key(evidence_id: str, facts: ElectionFacts) -> tuple[bool, datetime, Decimal, int, str]:
    # Undated members sort after every dated one; their datetime slot is a placeholder never compared
    # with a real date.
    return (
        facts.first_seen is None,
        facts.first_seen or _UNDATED,
        -facts.reputation,
        -facts.precedence,
        evidence_id,
    )


def elect_origins(graph: ProvenanceGraph, facts: Mapping[str, ElectionFacts]) -> tuple[Cluster, ...]:
    """One ``Cluster`` per cluster of ``graph``, sorted by cluster id, with its elected origin.

    ``facts`` must hold an entry for every evidence id in the graph.
    """
    missing = sorted({m for members in graph.cluster_members.values() for m in members} - facts.keys())
    if missing:
        raise KeyError(f"no election facts for {', '.join(missing)}")
    clusters = []
    for cluster_id, members in sorted(graph.cluster_members.items()):
        reasons: set[UncertainReason] = set()
        in_cycle = cluster_id in graph.clusters_in_cycle
        if in_cycle:
            reasons.add(UncertainReason.CYCLE)
        if all(facts[m].first_seen is None for m in members):
            reasons.add(UncertainReason.NO_TIMESTAMP)
        candidates = [m for m in members if facts[m].eligible]
        if not candidates:
            # Only items H9 excluded are left: electing one of them is a date/event mismatch.
            candidates = list(members)
            reasons.add(UncertainReason.DATE_EVENT_MISMATCH)
        origin = min(candidates, key=lambda m: _sort_key(m, facts[m]))
        reasons.update(facts[origin].uncertain_if_elected)
        ordered = tuple(reason for reason in _REASON_ORDER if reason in reasons)
        clusters.append(
            Cluster(
                cluster_id=cluster_id,
                member_ids=members,
                origin_id=origin,
                origin_uncertain=bool(ordered),
                uncertain_reasons=ordered,
                in_cycle=in_cycle,
            )
        )
    return tuple(clusters)
