"""Provenance: which evidence items are independent, and which are copies or derivatives of an origin.

``build_graph`` does the claim-independent work (H1 canonical URLs, H2/H19/H21 copy groups, H2/H3 citation
edges, H7 reachability, cycles, clusters); ``elect_origins`` elects each cluster's origin from per-claim
facts. Both are pure: no I/O, no clock, no randomness, and the same ledger gives the same result in any
input order.
"""

from icarus.provenance.canonical import canonical_url
from icarus.provenance.election import elect_origins
from icarus.provenance.graph import build_graph
from icarus.provenance.model import (
    CitationEdge,
    Cluster,
    EdgeOrigin,
    ElectionFacts,
    ProvenanceGraph,
    SimilarityEdge,
    UncertainReason,
)

__all__ = [
    "CitationEdge",
    "Cluster",
    "EdgeOrigin",
    "ElectionFacts",
    "ProvenanceGraph",
    "SimilarityEdge",
    "UncertainReason",
    "build_graph",
    "canonical_url",
    "elect_origins",
]
