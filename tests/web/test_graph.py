"""The provenance picture: same view, same bytes; the trace and build_graph/elect_origins agree; words
say what colour shows."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from decimal import Decimal

from icarus.provenance import ElectionFacts, build_graph, elect_origins
from icarus.scoring.icarus.config import load_policy
from icarus.web.graph import (
    ClusterView,
    EdgeView,
    GraphView,
    graph_from_provenance,
    graph_from_trace,
    render_graph_svg,
)
from tests.web.support import fixture_ledger, scored

SVG = "{http://www.w3.org/2000/svg}"


def test_the_cycle_fixture_draws_one_cycle_with_dashed_edges_and_says_so() -> None:
    _, result = scored("circular-reporting")
    view = graph_from_trace(result, "c1")
    assert [c.members for c in view.clusters] == [("courier", "harborwatch")]
    cycle_edges = {(e.source, e.target) for e in view.edges if e.in_cycle}
    assert cycle_edges == {("courier", "harborwatch"), ("harborwatch", "courier")}
    svg = render_graph_svg(view, "g1")
    root = ET.fromstring(svg)
    assert root.get("role") == "img" and root.get("aria-labelledby") == "g1-title g1-desc"
    desc = root.find(f"{SVG}desc")
    assert desc is not None and "Circular reporting between Coastline Courier, Harbor Watch" in (
        desc.text or ""
    )
    dashed = [p for p in root.iter(f"{SVG}path") if "cycle" in (p.get("class") or "").split()]
    assert len(dashed) == 2
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert any("\u21bb cycle" in t for t in texts)  # the box says "cycle" in words, not only in red
    assert any(t.startswith("\u2605 origin: ") for t in texts)


def test_two_wires_are_two_counted_origins_with_their_origins_first() -> None:
    _, result = scored("two-independent-wires")
    view = graph_from_trace(result, next(iter(result["claims"]))["id"])
    assert [(c.origin_id, c.counted) for c in view.clusters] == [("ap", True), ("reuters", True)]
    root = ET.fromstring(render_graph_svg(view, "g"))
    titles = [t.text for t in root.iter(f"{SVG}text") if (t.text or "").startswith("origin ")]
    assert titles == ["origin 1 \u00b7 counted", "origin 2 \u00b7 counted"]


def test_rendering_ignores_input_order() -> None:
    _, result = scored("two-independent-wires")
    view = graph_from_trace(result, result["claims"][0]["id"])
    shuffled_edges = list(view.edges)
    random.Random(7).shuffle(shuffled_edges)
    reordered = GraphView(
        view.clusters, tuple(shuffled_edges), view.cycles, dict(reversed(view.labels.items()))
    )
    rebuilt = graph_from_trace(
        {**result, "evidence": list(reversed(result["evidence"]))}, result["claims"][0]["id"]
    )
    assert render_graph_svg(rebuilt, "x") == render_graph_svg(view, "x")
    # edges are drawn in the order given to GraphView; the view built by graph_from_* is always sorted
    assert sorted(reordered.edges, key=lambda e: (e.source, e.target, e.origin)) == list(view.edges)


def test_build_graph_and_elect_origins_give_the_trace_view() -> None:
    ledger = fixture_ledger("circular-reporting")
    policy = load_policy("icarus@1.1")
    graph = build_graph(ledger.evidence, ledger.subject.artifact_urls, policy.provenance)
    facts = {
        item.evidence_id: ElectionFacts(
            first_seen=item.published_at, reputation=Decimal("0.85"), precedence=0
        )
        for item in ledger.evidence
    }
    direct = graph_from_provenance(graph, elect_origins(graph, facts))
    _, result = scored("circular-reporting")
    traced = graph_from_trace(result, "c1")
    assert direct.edges == traced.edges and direct.cycles == traced.cycles
    assert [c.members for c in direct.clusters] == [c.members for c in traced.clusters]
    assert all(c.in_cycle and c.origin_uncertain for c in direct.clusters)
    assert direct.clusters[0].counted is None  # counting is the scorer's, not known from the graph alone


def test_labels_from_posts_and_pages_are_escaped() -> None:
    view = GraphView(
        clusters=(ClusterView("cluster:a", ("a",), "a"),),
        edges=(EdgeView("a", "source:<script>", "attribution"),),
        labels={"a": 'Evil "<b>" & co'},
    )
    svg = render_graph_svg(view, 'id"><script>')
    assert "<script>" not in svg and "<b>" not in svg
    ET.fromstring(svg)  # still well-formed XML


def test_many_clusters_wrap_into_at_most_three_columns() -> None:
    clusters = tuple(ClusterView(f"cluster:{i}", (f"e{i}",), f"e{i}") for i in range(7))
    root = ET.fromstring(render_graph_svg(GraphView(clusters, ()), "g"))
    xs = {
        float(r.get("x") or 0)
        for g in root.iter(f"{SVG}g")
        if "box" in (g.get("class") or "").split()
        for r in g.findall(f"{SVG}rect")
    }
    assert len(xs) == 3
    width = float((root.get("viewBox") or "").split()[2])
    assert width == 3 * 230 + 2 * 60 + 2 * 10
