"""The provenance graph: copy groups and named sources, who derives from whom, and the clusters counted once.

Nodes are copy groups (from ``similarity``) and virtual nodes (``source:<name>`` for a named source that
is not in the ledger, ``artifact:<url>`` for anything under review). A citation edge from item ``s`` to
``t`` becomes an edge from ``s``'s group to ``t``'s group or virtual node.

* H7 reachability: every member of a group with a path to an ``artifact:`` node reaches the subject.
* Cycles: strongly connected components of more than one group, and mutual citation between distinct
  items of one group, are circular reporting.
* Clusters: the condensation (one node per strongly connected component) is a DAG. Each sink (a component
  that cites nothing else) roots a cluster, virtual sinks included. Every other component joins the cluster
  of the sink it reaches by the fewest edges; between equally short paths it follows the next node with the
  lowest id, where a node is named by the id actually cited in it (an evidence id, or ``source:...``). An
  item that cites two independent wires therefore joins one of them and does not merge them.

Shortest-path assignment is what the policy asks for; it means that when a sink gains an out-edge (stops
being a sink), the components upstream of it are re-assigned by distance. Adding an item never adds more
than one cluster; adding a verbatim copy adds none (see tests/provenance/test_invariants.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence, Set

from icarus.ledger.evidence import EvidenceItem
from icarus.ledger.policy import ProvenanceSettings
from icarus.provenance.canonical import canonical_url, find_duplicates, item_canonical_url
from icarus.provenance.citations import ARTIFACT_PREFIX, extract_mentions, resolve_mentions
from icarus.provenance.gc_pause import collection_paused
from icarus.provenance.graphs import strong_components
from icarus.provenance.model import CitationEdge, EdgeOrigin, ProvenanceGraph
from icarus.provenance.similarity import similarity_graph

__all__ = ["build_graph"]


def _intra_group_cycles(edges: Sequence[CitationEdge], group_of: Mapping[str, int]) -> list[tuple[str, ...]]:
    """Mutual citation between distinct items of the same copy group."""
    local = [
        (edge.source, edge.target)
        for edge in edges
        if edge.target in group_of
        and edge.source != edge.target
        and group_of[edge.source] == group_of[edge.target]
    ]
    if not local:
        return []
    names = sorted({name for pair in local for name in pair})
    index = {name: i for i, name in enumerate(names)}
    membership = strong_components(len(names), [(index[a], index[b]) for a, b in local])
    members: dict[int, list[str]] = defaultdict(list)
    for name, component in zip(names, membership, strict=True):
        members[component].append(name)
    return [tuple(sorted(found)) for found in members.values() if len(found) > 1]


def _assign_sinks(components: int, dag: Mapping[int, Mapping[int, str]], populated: Set[int]) -> list[int]:
    """For each component, the sink it joins: the nearest sink holding ledger items (``populated``) if it
    reaches one, else the nearest sink of any kind (a source named only outside the ledger).

    ``dag[c][d]`` is the lowest id that ``c`` cites inside ``d`` (an evidence id or a virtual node id).
    Among next steps on a shortest path, the one citing the lowest id wins, and the component follows it.
    Keying ties on the cited id rather than on a group's lowest member keeps the choice stable when a
    verbatim copy (with any id) joins a group.

    Preferring ledger sinks matters for the count: an item that copies a ledger origin and also names an
    outside source would otherwise start a cluster of its own under that outside name, and so add an
    origin by citing one more source (H3: a citation only ever makes an item derivative).
    """
    reverse: dict[int, list[int]] = defaultdict(list)
    for source, targets in dag.items():
        for target in targets:
            reverse[target].append(source)
    sinks = [c for c in range(components) if not dag.get(c)]
    assigned = list(range(components))
    joined: set[int] = set()
    # Two rounds: every component that reaches a ledger sink joins one; the rest go by any sink.
    for starts in ([c for c in sinks if c in populated], sinks):
        distance = _distances_to(starts, reverse, components)
        for component in sorted(range(components), key=lambda c: distance[c]):
            if distance[component] <= 0 or component in joined:
                continue
            best = min(
                (cited, target)
                for target, cited in dag[component].items()
                if distance[target] == distance[component] - 1
            )
            assigned[component] = assigned[best[1]]
            joined.add(component)
    return assigned


def _distances_to(starts: Sequence[int], reverse: Mapping[int, Sequence[int]], components: int) -> list[int]:
    """Edges from each component to the nearest of ``starts`` (0 for those, -1 where none is reached)."""
    distance = [-1] * components
    for component in starts:
        distance[component] = 0
    frontier = list(starts)
    while frontier:
        following: list[int] = []
        for component in frontier:
            for upstream in reverse.get(component, ()):
                if distance[upstream] == -1:
                    distance[upstream] = distance[component] + 1
                    following.append(upstream)
        frontier = following
    return distance


def build_graph(
    evidence: Sequence[EvidenceItem], artifact_urls: Sequence[str], settings: ProvenanceSettings
) -> ProvenanceGraph:
    """Claim-independent provenance of one ledger: canonical URLs, copy groups, citations, clusters."""
    with collection_paused():  # allocation-heavy, leaves almost no cycles: see gc_pause
        return _build_graph(evidence, artifact_urls, settings)


def _build_graph(
    evidence: Sequence[EvidenceItem], artifact_urls: Sequence[str], settings: ProvenanceSettings
) -> ProvenanceGraph:
    items = sorted(evidence, key=lambda item: item.evidence_id)
    ids = [item.evidence_id for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError("evidence ids must be unique")

    canonical_urls = {item.evidence_id: item_canonical_url(item) for item in items}
    duplicate_of = find_duplicates(items, canonical_urls)
    mentions = extract_mentions(items, canonical_urls, artifact_urls)
    cited: dict[str, list[frozenset[str]]] = defaultdict(list)
    target_sets: dict[int, frozenset[str]] = {}  # one set per distinct (shared) target tuple
    for mention in mentions:
        targets = target_sets.get(id(mention.targets))
        if targets is None:
            targets = target_sets[id(mention.targets)] = frozenset(mention.targets)
        cited[mention.source].append(targets)
    similarity = similarity_graph(items, settings, duplicate_of, cited)
    group_of = dict(zip(ids, similarity.group_index, strict=True))
    release_edges = [
        CitationEdge(item_id, release_id, EdgeOrigin.RELEASE_OVERLAP, f"containment {score}")
        for item_id, release_id, score in similarity.release_pairs
    ]
    citation_edges = tuple(
        sorted(
            set(resolve_mentions(mentions, group_of, similarity.overlap.closest)) | set(release_edges),
            key=lambda e: (e.source, e.target, e.origin, e.detail),
        )
    )

    # Node numbering: groups first (in order of their lowest member id), then virtual nodes by name.
    groups = similarity.copy_groups
    virtual = sorted({edge.target for edge in citation_edges if edge.target not in group_of})
    node_of_virtual = {name: len(groups) + i for i, name in enumerate(virtual)}
    node_count = len(groups) + len(virtual)

    def node(target: str) -> int:
        return group_of[target] if target in group_of else node_of_virtual[target]

    # Between two nodes, remember the lowest id cited: it breaks ties between equally short paths.
    cited_between: dict[tuple[int, int], str] = {}
    for edge in citation_edges:
        pair = (group_of[edge.source], node(edge.target))
        if pair[0] != pair[1] and (pair not in cited_between or edge.target < cited_between[pair]):
            cited_between[pair] = edge.target
    node_edges = sorted(cited_between)

    # H7: everything upstream of an artifact.
    upstream: dict[int, list[int]] = defaultdict(list)
    for source, target in node_edges:
        upstream[target].append(source)
    # The material under review itself, when it is also a ledger item, counts as reaching it (with its copies).
    artifact_urls_canonical = {canonical_url(url) for url in artifact_urls}
    stack = [node_of_virtual[name] for name in virtual if name.startswith(ARTIFACT_PREFIX)]
    stack.extend(
        sorted(
            {
                group_of[evidence_id]
                for evidence_id, url in canonical_urls.items()
                if url in artifact_urls_canonical
            }
        )
    )
    reached = set(stack)
    while stack:
        for source in upstream[stack.pop()]:
            if source not in reached:
                reached.add(source)
                stack.append(source)
    reaches_subject = frozenset(
        evidence_id for number, members in enumerate(groups) if number in reached for evidence_id in members
    )

    # Strongly connected components and their condensation.
    membership = strong_components(node_count, node_edges)
    nodes_of: dict[int, list[int]] = defaultdict(list)
    for number, component in enumerate(membership):
        nodes_of[component].append(number)
    components = max(membership, default=-1) + 1
    dag: dict[int, dict[int, str]] = defaultdict(dict)
    for (source, target), lowest in cited_between.items():
        step = (membership[source], membership[target])
        if step[0] != step[1] and (step[1] not in dag[step[0]] or lowest < dag[step[0]][step[1]]):
            dag[step[0]][step[1]] = lowest
    populated = {membership[number] for number in range(len(groups))}
    sink_of = _assign_sinks(components, dag, populated)

    cycles: set[tuple[str, ...]] = set()
    for nodes in nodes_of.values():
        group_nodes = [n for n in nodes if n < len(groups)]
        if len(group_nodes) > 1:
            cycles.add(tuple(sorted(evidence_id for n in group_nodes for evidence_id in groups[n])))
    cycles.update(_intra_group_cycles(citation_edges, group_of))
    in_cycle = {evidence_id for cycle in cycles for evidence_id in cycle}

    members_by_sink: dict[int, list[str]] = defaultdict(list)
    for number, members in enumerate(groups):
        members_by_sink[sink_of[membership[number]]].extend(members)
    cluster_members: dict[str, tuple[str, ...]] = {}
    for gathered in members_by_sink.values():
        ordered = tuple(sorted(gathered))
        cluster_members[f"cluster:{ordered[0]}"] = ordered
    cluster_members = dict(sorted(cluster_members.items()))
    clusters_in_cycle = frozenset(
        cluster_id for cluster_id, members in cluster_members.items() if in_cycle.intersection(members)
    )

    return ProvenanceGraph(
        canonical_urls=canonical_urls,
        duplicate_of=dict(sorted(duplicate_of.items())),
        similarity_edges=similarity.edges,
        citation_edges=citation_edges,
        copy_groups=groups,
        cycles=tuple(sorted(cycles)),
        reaches_subject=reaches_subject,
        release_overlap=similarity.release_overlap,
        amplification_groups=similarity.amplification_groups,
        cluster_members=cluster_members,
        clusters_in_cycle=clusters_in_cycle,
    )
