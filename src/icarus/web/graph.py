"""The provenance graph of one claim as plain data, and a deterministic inline SVG picture of it.

``GraphView`` is what the picture needs: the clusters counted once (with the origin elected for the
claim), the items in them, the named sources and artifacts they cite, the citation edges and the cycles.
It is built either from a published result's trace (``graph_from_trace``), which is what a stored report
holds, or straight from ``icarus.provenance.build_graph`` / ``elect_origins`` output
(``graph_from_provenance``). Both give the same view for the same ledger.

``render_graph_svg`` lays the view out on a fixed grid (clusters in columns, members stacked, cited
sources and artifacts in boxes of their own) with no randomness and no dependence on input order, so the
same view always gives the same bytes. Colour is never the only signal: origins carry a star and the word
"origin", cycle edges are dashed and listed in the description, and the SVG has a title and description
that say in words what it shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any, Final

from icarus.provenance import Cluster, ProvenanceGraph

__all__ = [
    "ClusterView",
    "EdgeView",
    "GraphView",
    "graph_from_provenance",
    "graph_from_trace",
    "render_graph_svg",
]

SOURCE_PREFIX: Final = "source:"
ARTIFACT_PREFIX: Final = "artifact:"
SOURCES_BOX: Final = "named sources, not evidence"
ARTIFACTS_BOX: Final = "under review"

# Layout, in SVG user units. The picture scales with its container; these fix its proportions.
COLUMN_WIDTH: Final = 230
COLUMN_GAP: Final = 60
MAX_COLUMNS: Final = 3
NODE_HEIGHT: Final = 26
NODE_GAP: Final = 6
BOX_PADDING: Final = 10
BOX_HEADER: Final = 22
BOX_GAP: Final = 18
MARGIN: Final = 10
LABEL_CHARS: Final = 28
LEGIBLE_WIDTH: Final = 520  # below this the picture scrolls sideways instead of shrinking its text


@dataclass(frozen=True)
class ClusterView:
    """One cluster: its members, the origin elected for this claim, and how it was counted."""

    cluster_id: str
    members: tuple[str, ...]
    origin_id: str | None
    origin_uncertain: bool = False
    uncertain_reasons: tuple[str, ...] = ()
    in_cycle: bool = False
    counted: bool | None = None  # None: not known (a graph drawn without a scored claim)
    stance: str | None = None


@dataclass(frozen=True)
class EdgeView:
    """``source`` derives from ``target`` (an evidence id, ``source:…`` or ``artifact:…``)."""

    source: str
    target: str
    origin: str  # why the edge exists: link, attribution, wire_marker, release_overlap, judge
    in_cycle: bool = False


@dataclass(frozen=True)
class GraphView:
    clusters: tuple[ClusterView, ...]
    edges: tuple[EdgeView, ...]
    cycles: tuple[tuple[str, ...], ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)  # evidence id -> what readers see (publisher)

    @property
    def virtual_nodes(self) -> tuple[str, ...]:
        """Cited nodes that are not evidence items: named sources and artifacts under review."""
        members = {m for c in self.clusters for m in c.members}
        return tuple(sorted({e.target for e in self.edges if e.target not in members}))

    def label(self, node: str) -> str:
        if node.startswith(SOURCE_PREFIX):
            return node[len(SOURCE_PREFIX) :].replace("-", " ")
        if node.startswith(ARTIFACT_PREFIX):
            return node[len(ARTIFACT_PREFIX) :]
        return self.labels.get(node) or node


def _cycle_edges(
    edges: Iterable[tuple[str, str, str]], cycles: Sequence[Sequence[str]]
) -> tuple[EdgeView, ...]:
    cycle_of = {member: index for index, cycle in enumerate(cycles) for member in cycle}
    views = {
        EdgeView(
            source,
            target,
            origin,
            source in cycle_of and cycle_of.get(target) == cycle_of[source],
        )
        for source, target, origin in edges
    }
    return tuple(sorted(views, key=lambda e: (e.source, e.target, e.origin)))


def graph_from_trace(
    result: Mapping[str, Any], claim_id: str, labels: Mapping[str, str] | None = None
) -> GraphView:
    """The graph of claim ``claim_id`` from a published result: the trace's provenance section and the
    clusters of the claim's last scoring pass. ``labels`` default to each evidence item's publisher."""
    trace = result.get("trace") or {}
    provenance = trace.get("provenance") or {}
    if labels is None:
        labels = {str(e["id"]): str(e.get("publisher") or e["id"]) for e in result.get("evidence", [])}
    claim_trace = next((c for c in trace.get("claims", []) if c.get("claim_id") == claim_id), None)
    scored = {}
    if claim_trace and claim_trace.get("passes"):
        scored = {c["cluster_id"]: c for c in claim_trace["passes"][-1].get("clusters", [])}
    clusters = []
    for cluster_id, members in sorted((provenance.get("clusters") or {}).items()):
        facts = scored.get(cluster_id, {})
        clusters.append(
            ClusterView(
                cluster_id=cluster_id,
                members=tuple(members),
                origin_id=facts.get("origin"),
                origin_uncertain=bool(facts.get("origin_uncertain", False)),
                uncertain_reasons=tuple(facts.get("uncertain_reasons", ())),
                in_cycle=bool(facts.get("in_cycle", False)),
                counted=facts.get("counted"),
                stance=facts.get("stance"),
            )
        )
    cycles = tuple(tuple(c) for c in provenance.get("cycles", []))
    edges = _cycle_edges(
        ((e["source"], e["target"], e["origin"]) for e in provenance.get("citation_edges", [])), cycles
    )
    return GraphView(tuple(clusters), edges, cycles, dict(labels))


def graph_from_provenance(
    graph: ProvenanceGraph, clusters: Sequence[Cluster], labels: Mapping[str, str] | None = None
) -> GraphView:
    """The graph straight from ``build_graph`` and ``elect_origins`` (counting is not known here)."""
    views = tuple(
        ClusterView(
            cluster_id=c.cluster_id,
            members=tuple(c.member_ids),
            origin_id=c.origin_id,
            origin_uncertain=c.origin_uncertain,
            uncertain_reasons=tuple(r.value for r in c.uncertain_reasons),
            in_cycle=c.in_cycle,
        )
        for c in sorted(clusters, key=lambda c: c.cluster_id)
    )
    cycles = tuple(tuple(c) for c in graph.cycles)
    edges = _cycle_edges(((e.source, e.target, e.origin.value) for e in graph.citation_edges), cycles)
    return GraphView(views, edges, cycles, dict(labels or {}))


# --- layout ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Box:
    key: str
    title: str
    nodes: tuple[str, ...]
    x: int
    y: int
    cluster: ClusterView | None

    @property
    def height(self) -> int:
        return _box_height(len(self.nodes))


def _box_height(nodes: int) -> int:
    return BOX_HEADER + BOX_PADDING + nodes * (NODE_HEIGHT + NODE_GAP)


def _ordered_members(cluster: ClusterView) -> tuple[str, ...]:
    rest = tuple(m for m in cluster.members if m != cluster.origin_id)
    return ((cluster.origin_id,) if cluster.origin_id in cluster.members else ()) + rest


def _layout(view: GraphView) -> tuple[list[_Box], int, int]:
    groups: list[tuple[str, str, tuple[str, ...], ClusterView | None]] = [
        (cluster.cluster_id, f"origin {index}", _ordered_members(cluster), cluster)
        for index, cluster in enumerate(view.clusters, start=1)
    ]
    sources = tuple(n for n in view.virtual_nodes if not n.startswith(ARTIFACT_PREFIX))
    artifacts = tuple(n for n in view.virtual_nodes if n.startswith(ARTIFACT_PREFIX))
    if sources:
        groups.append(("sources", SOURCES_BOX, sources, None))
    if artifacts:
        groups.append(("artifacts", ARTIFACTS_BOX, artifacts, None))
    columns = max(1, min(MAX_COLUMNS, len(groups)))
    heights = [MARGIN] * columns
    boxes: list[_Box] = []
    for key, title, nodes, owner in groups:
        column = min(range(columns), key=lambda c: (heights[c], c))  # shortest column, leftmost on ties
        x = MARGIN + column * (COLUMN_WIDTH + COLUMN_GAP)
        boxes.append(_Box(key, title, nodes, x, heights[column], owner))
        heights[column] += _box_height(len(nodes)) + BOX_GAP
    width = _width(columns)
    height = max(heights) - BOX_GAP + MARGIN if groups else 2 * MARGIN + NODE_HEIGHT
    return boxes, width, height


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "\u2026"


def _describe(view: GraphView) -> str:
    items = sum(len(c.members) for c in view.clusters)
    parts = [
        f"{items} evidence item{'s' * (items != 1)} in {len(view.clusters)} "
        f"independent origin{'s' * (len(view.clusters) != 1)}."
    ]
    for index, cluster in enumerate(view.clusters, start=1):
        origin = view.label(cluster.origin_id) if cluster.origin_id else "none elected"
        notes = []
        if cluster.counted is not None:
            notes.append("counted" if cluster.counted else "not counted")
        if cluster.origin_uncertain:
            notes.append("origin uncertain: " + ", ".join(cluster.uncertain_reasons))
        extra = f" ({'; '.join(notes)})" if notes else ""
        parts.append(f"Origin {index}: {origin}, {len(cluster.members)} item(s){extra}.")
    parts.append(f"{len(view.edges)} citation edge{'s' * (len(view.edges) != 1)}.")
    for cycle in view.cycles:
        parts.append("Circular reporting between " + ", ".join(view.label(m) for m in cycle) + ".")
    return " ".join(parts)


def _width(columns: int) -> int:
    return 2 * MARGIN + columns * COLUMN_WIDTH + (columns - 1) * COLUMN_GAP


def graph_css() -> str:
    """The pictures' widths, one rule per column count: no narrower than ``LEGIBLE_WIDTH`` (or their own
    width), no wider than their own. Rules in the page's stylesheet, not style attributes, which the
    pages' Content-Security-Policy refuses."""
    return "\n".join(
        f"svg.provenance.columns-{n}{{min-width:{min(_width(n), LEGIBLE_WIDTH)}px;max-width:{_width(n)}px}}"
        for n in range(1, MAX_COLUMNS + 1)
    )


def render_graph_svg(view: GraphView, svg_id: str) -> str:
    """An inline SVG of ``view``. ``svg_id`` must be unique in the page (marker and title ids use it)."""
    boxes, width, height = _layout(view)
    position: dict[str, tuple[int, int]] = {}
    for box in boxes:
        for row, node in enumerate(box.nodes):
            position[node] = (box.x + BOX_PADDING, box.y + BOX_HEADER + row * (NODE_HEIGHT + NODE_GAP))
    sid = escape(svg_id)
    columns = next(n for n in range(1, MAX_COLUMNS + 1) if _width(n) == width)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="provenance columns-{columns}" id="{sid}" role="img" '
        f'viewBox="0 0 {width} {height}" width="100%" '
        f'aria-labelledby="{sid}-title {sid}-desc">',
        f'<title id="{sid}-title">Provenance graph: who cites whom, grouped by independent origin</title>',
        f'<desc id="{sid}-desc">{escape(_describe(view))}</desc>',
        "<defs>",
        f'<marker id="{sid}-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="arrowhead"/></marker>',
        "</defs>",
    ]
    for box in boxes:
        out.extend(_box_svg(box, view))
    inner = COLUMN_WIDTH - 2 * BOX_PADDING
    for edge in view.edges:
        if edge.source not in position or edge.target not in position:
            continue
        out.append(_edge_svg(edge, position[edge.source], position[edge.target], inner, sid, view))
    out.append("</svg>")
    return "\n".join(out)


def _box_svg(box: _Box, view: GraphView) -> list[str]:
    cluster = box.cluster
    classes = ["box"]
    title = box.title
    if cluster is not None:
        if cluster.counted is not None:
            title += " \u00b7 counted" if cluster.counted else " \u00b7 not counted"
            classes.append("counted" if cluster.counted else "uncounted")
        if cluster.in_cycle:
            title += " \u00b7 \u21bb cycle"
            classes.append("in-cycle")
    else:
        classes.append("virtual")
    out = [
        f'<g class="{" ".join(classes)}">',
        f'<rect x="{box.x}" y="{box.y}" width="{COLUMN_WIDTH}" height="{box.height}" rx="8"/>',
        f'<text x="{box.x + BOX_PADDING}" y="{box.y + 15}" class="box-title">{escape(title)}</text>',
    ]
    inner = COLUMN_WIDTH - 2 * BOX_PADDING
    for row, node in enumerate(box.nodes):
        x = box.x + BOX_PADDING
        y = box.y + BOX_HEADER + row * (NODE_HEIGHT + NODE_GAP)
        is_origin = cluster is not None and node == cluster.origin_id
        label = view.label(node)
        shown = ("\u2605 origin: " if is_origin else "") + label
        node_class = "node origin" if is_origin else "node"
        out.append(
            f'<g class="{node_class}"><title>{escape(label)}</title>'
            f'<rect x="{x}" y="{y}" width="{inner}" height="{NODE_HEIGHT}" rx="4"/>'
            f'<text x="{x + 6}" y="{y + 17}">{escape(_short(shown))}</text></g>'
        )
    out.append("</g>")
    return out


def _edge_svg(
    edge: EdgeView,
    source: tuple[int, int],
    target: tuple[int, int],
    inner: int,
    sid: str,
    view: GraphView,
) -> str:
    (sx, sy), (tx, ty) = source, target
    sy += NODE_HEIGHT // 2
    ty += NODE_HEIGHT // 2
    if sx == tx:
        # Same column: leave and re-enter on the right, bowing out further for longer jumps.
        x = sx + inner
        bow = 30 + min(60, abs(ty - sy) // 6)
        path = f"M{x},{sy} C{x + bow},{sy} {x + bow},{ty} {x},{ty}"
    elif tx > sx:
        x1, x2 = sx + inner, tx
        mid = (x1 + x2) // 2
        path = f"M{x1},{sy} C{mid},{sy} {mid},{ty} {x2},{ty}"
    else:
        x1, x2 = sx, tx + inner
        mid = (x1 + x2) // 2
        path = f"M{x1},{sy} C{mid},{sy} {mid},{ty} {x2},{ty}"
    kind = "edge cycle" if edge.in_cycle else "edge"
    words = f"{view.label(edge.source)} cites {view.label(edge.target)} ({edge.origin})"
    if edge.in_cycle:
        words += ", part of a cycle"
    return (
        f'<path class="{kind} {escape(edge.origin)}" d="{path}" marker-end="url(#{sid}-arrow)">'
        f"<title>{escape(words)}</title></path>"
    )
