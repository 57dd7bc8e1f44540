"""What provenance analysis produces: the graph, its cycles, and the clusters that are counted once.

Provenance runs in two steps so that the expensive part is claim-independent:

1. ``build_graph(evidence, artifact_urls, settings)`` -> ``ProvenanceGraph``: canonical URLs (H1), the
   similarity graph and copy groups (H2 similarity, H19 release overlap, H21 amplification), the citation
   graph (links, H2 wire markers, H3 attribution phrases and judge edges), reachability to the subject's
   artifacts (H7), strongly connected components (cycles) and the grouping of items into clusters.
2. ``elect_origins(graph, facts)`` -> ``tuple[Cluster, ...]``: per claim, the origin of every cluster is
   elected from per-item ``ElectionFacts`` that the scoring rules supply (dates, reputation, precedence,
   exclusions and uncertainty reasons).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum


class EdgeOrigin(StrEnum):
    """Why a citation edge exists. Every edge records it; judge edges only ever make items derivative."""

    LINK = "link"  # a parsed hyperlink to another item or artifact
    ATTRIBUTION = "attribution"  # a parsed phrase: "according to", "told", "first reported by" (H3)
    WIRE_MARKER = "wire_marker"  # "(AP) —", "(Reuters) -", wire bylines and credits (H2)
    RELEASE_OVERLAP = "release_overlap"  # 8-word-shingle containment in a press release (H19)
    JUDGE = "judge"  # a calibrated judge's semantic attribution (H3)


@dataclass(frozen=True, slots=True)
class CitationEdge:
    """``source`` derives from ``target``. Targets are evidence ids or virtual node ids.

    Virtual node ids: ``artifact:<canonical url>`` for anything under review (H7) and
    ``source:<normalised name>`` for a named source that is not itself in the ledger ("Reuters").
    """

    source: str
    target: str
    origin: EdgeOrigin
    detail: str


@dataclass(frozen=True, slots=True)
class SimilarityEdge:
    a: str
    b: str
    score: Decimal  # estimated Jaccard (or containment for release overlap), rounded to 4 places
    kind: str  # "shingles", "containment", "metadata", "identical", "release_containment", "amplification"


@dataclass(frozen=True, slots=True)
class ProvenanceGraph:
    """Claim-independent provenance of one ledger's evidence."""

    canonical_urls: dict[str, str]
    # evidence id -> evidence id it duplicates after H1 canonicalisation (same canonical URL or content hash)
    duplicate_of: dict[str, str]
    similarity_edges: tuple[SimilarityEdge, ...]
    citation_edges: tuple[CitationEdge, ...]
    # copy groups: connected components of the similarity graph (sorted member ids, sorted groups)
    copy_groups: tuple[tuple[str, ...], ...]
    # strongly connected components with more than one group, or a self-loop: circular reporting
    cycles: tuple[tuple[str, ...], ...]
    # H7: evidence ids with any path to an artifact under review
    reaches_subject: frozenset[str]
    # H19: evidence id -> containment in a release it overlaps (only items at or above the threshold)
    release_overlap: dict[str, Decimal]
    # H21: groups collapsed as coordinated amplification
    amplification_groups: tuple[tuple[str, ...], ...]
    # cluster id -> sorted member evidence ids; every evidence id is in exactly one cluster
    cluster_members: dict[str, tuple[str, ...]]
    # cluster ids whose members sit in a citation cycle
    clusters_in_cycle: frozenset[str]

    def cluster_of(self, evidence_id: str) -> str:
        for cluster_id, members in self.cluster_members.items():
            if evidence_id in members:
                return cluster_id
        raise KeyError(evidence_id)


class UncertainReason(StrEnum):
    CYCLE = "cycle"
    NO_TIMESTAMP = "no_timestamp"
    DATE_EVENT_MISMATCH = "date_event_mismatch"
    FUTURE_DATE = "future_date"
    ANONYMOUS_SOURCING = "anonymous_sourcing"


@dataclass(frozen=True, slots=True)
class ElectionFacts:
    """What origin election needs to know about one item, as decided by the scoring rules."""

    first_seen: datetime | None  # publication time, or retrieval time standing in; None if neither
    reputation: Decimal
    precedence: int  # 2 primary official, 1 wire, 0 otherwise
    eligible: bool = True  # False when H9's exclusion is live and fires
    # reasons that make the election uncertain if this item is elected (date/event mismatch, future date,
    # anonymous sourcing)
    uncertain_if_elected: tuple[UncertainReason, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Cluster:
    cluster_id: str
    member_ids: tuple[str, ...]
    origin_id: str | None
    origin_uncertain: bool
    uncertain_reasons: tuple[UncertainReason, ...]
    in_cycle: bool
