"""Circular reporting: strongly connected components are disclosed and make the election uncertain."""

from __future__ import annotations

from icarus.provenance import ElectionFacts, UncertainReason, build_graph, elect_origins
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import T0, item, story


def _facts(*ids: str) -> dict[str, ElectionFacts]:
    from decimal import Decimal

    return {
        evidence_id: ElectionFacts(first_seen=T0, reputation=Decimal("0.8"), precedence=0)
        for evidence_id in ids
    }


def test_cycle_a_cites_b_cites_a_is_one_cycle_and_uncertain(settings: ProvenanceSettings) -> None:
    a = item("a", url="https://a.example/s", text=story(1), links=["https://b.example/s"])
    b = item("b", url="https://b.example/s", text=story(2), links=["https://a.example/s"])
    independent = item("c", text=story(3))
    graph = build_graph([a, b, independent], [], settings)
    assert graph.cycles == (("a", "b"),)
    assert graph.cluster_members == {"cluster:a": ("a", "b"), "cluster:c": ("c",)}
    assert graph.clusters_in_cycle == frozenset({"cluster:a"})
    clusters = {cluster.cluster_id: cluster for cluster in elect_origins(graph, _facts("a", "b", "c"))}
    assert clusters["cluster:a"].in_cycle
    assert clusters["cluster:a"].origin_uncertain
    assert clusters["cluster:a"].uncertain_reasons == (UncertainReason.CYCLE,)
    assert not clusters["cluster:c"].origin_uncertain


def test_cycle_feeding_another_source_joins_that_cluster(settings: ProvenanceSettings) -> None:
    a = item(
        "a", url="https://a.example/s", text=story(1), links=["https://b.example/s", "https://w.example/s"]
    )
    b = item("b", url="https://b.example/s", text=story(2), links=["https://a.example/s"])
    wire = item("w", url="https://w.example/s", text=story(4))
    graph = build_graph([a, b, wire], [], settings)
    assert graph.cycles == (("a", "b"),)
    assert graph.cluster_members == {"cluster:a": ("a", "b", "w")}
    assert graph.clusters_in_cycle == frozenset({"cluster:a"})


def test_cycle_between_copies_of_one_group(settings: ProvenanceSettings) -> None:
    body = story(5)
    a = item("a", url="https://a.example/s", text=body, links=["https://b.example/s"])
    b = item("b", url="https://b.example/s", text=body, links=["https://a.example/s"], minutes=2)
    graph = build_graph([a, b], [], settings)
    assert graph.copy_groups == (("a", "b"),)
    assert graph.cycles == (("a", "b"),)
    assert graph.clusters_in_cycle == frozenset({"cluster:a"})


def test_one_way_citation_inside_a_group_is_not_a_cycle(settings: ProvenanceSettings) -> None:
    body = story(6)
    a = item("a", url="https://a.example/s", text=body)
    b = item("b", url="https://b.example/s", text=body, links=["https://a.example/s"], minutes=2)
    assert build_graph([a, b], [], settings).cycles == ()
