"""H2: wire copies and pickups are one source, whatever their number."""

from __future__ import annotations

from icarus.ledger.evidence import SourceClass
from icarus.provenance import EdgeOrigin, build_graph
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story

AP_BODY = "WASHINGTON (AP) — " + story(101)
REUTERS_BODY = "LONDON (Reuters) - " + story(202)


def _ap() -> list:  # type: ignore[type-arg]
    return [
        item(
            "ap-1",
            publisher="The Associated Press",
            domain="apnews.com",
            text=AP_BODY,
            source_class=SourceClass.WIRE,
        )
    ]


def _reuters() -> list:  # type: ignore[type-arg]
    return [
        item(
            "rt-1",
            publisher="Reuters",
            domain="reuters.com",
            text=REUTERS_BODY,
            source_class=SourceClass.WIRE,
        )
    ]


def test_h2_ap_story_and_nine_syndications_are_one_cluster(settings: ProvenanceSettings) -> None:
    pickups = [
        item(f"syn-{n}", text=AP_BODY + f"\nSubscribe to the newsletter of outlet {n}", minutes=5 + n)
        for n in range(9)
    ]
    graph = build_graph(_ap() + pickups, [], settings)
    assert list(graph.cluster_members) == ["cluster:ap-1"]
    assert len(graph.cluster_members["cluster:ap-1"]) == 10
    assert {edge.origin for edge in graph.citation_edges} == {EdgeOrigin.WIRE_MARKER}
    assert {edge.target for edge in graph.citation_edges} == {"ap-1"}
    assert graph.cycles == ()


def test_h2_ap_and_reuters_independent_plus_ten_pickups_are_two_clusters(
    settings: ProvenanceSettings,
) -> None:
    pickups = [item(f"ap-pick-{n}", text=AP_BODY, minutes=n) for n in range(5)]
    pickups += [item(f"rt-pick-{n}", text=REUTERS_BODY, minutes=n) for n in range(5)]
    graph = build_graph(_ap() + _reuters() + pickups, [], settings)
    assert sorted(graph.cluster_members) == ["cluster:ap-1", "cluster:rt-1"]
    assert len(graph.cluster_members["cluster:ap-1"]) == 6
    assert len(graph.cluster_members["cluster:rt-1"]) == 6


def test_h2_pickups_citing_both_wires_leave_two_clusters(settings: ProvenanceSettings) -> None:
    blend = (
        story(303)
        + "\nThe figures were confirmed, according to Reuters and The Associated Press said in a statement."
    )
    pickups = [
        item(f"both-{n}", text=f"{blend}\nOutlet {n} adds its own closing words here today.")
        for n in range(4)
    ]
    graph = build_graph(_ap() + _reuters() + pickups, [], settings)
    assert len(graph.cluster_members) == 2
    assert not set(graph.cluster_members["cluster:ap-1"]) & set(graph.cluster_members["cluster:rt-1"])


def test_h2_wire_markers_without_the_wire_in_the_ledger_point_at_a_virtual_source(
    settings: ProvenanceSettings,
) -> None:
    evidence = [
        item("p1", text="PARIS (AFP) - " + story(5)),
        item("p2", text=story(6) + "\n© 2026 AFP", minutes=3),
        item("p3", text=story(7), byline="Reuters staff"),
        item("p4", text=story(8) + "\nThe Associated Press contributed to this report."),
    ]
    graph = build_graph(evidence, [], settings)
    targets = {(edge.source, edge.target) for edge in graph.citation_edges}
    assert targets == {
        ("p1", "source:afp"),
        ("p2", "source:afp"),
        ("p3", "source:reuters"),
        ("p4", "source:ap"),
    }
    assert set(graph.cluster_members) == {"cluster:p1", "cluster:p3", "cluster:p4"}
    assert graph.cluster_members["cluster:p1"] == ("p1", "p2")


def test_h2_the_wire_never_cites_itself(settings: ProvenanceSettings) -> None:
    graph = build_graph(_ap(), [], settings)
    assert graph.citation_edges == ()


def test_h2_copy_of_one_wire_story_derives_from_that_story_not_every_story(
    settings: ProvenanceSettings,
) -> None:
    second = item("ap-2", publisher="AP", domain="apnews.com", text="NEW YORK (AP) — " + story(404))
    pickup = item("pick", text=AP_BODY, minutes=4)
    graph = build_graph([*_ap(), second, pickup], [], settings)
    assert {edge.target for edge in graph.citation_edges if edge.source == "pick"} == {"ap-1"}
    assert graph.cluster_of("pick") == "cluster:ap-1"
    assert graph.cluster_of("ap-2") == "cluster:ap-2"


def test_h2_an_upper_case_dateline_is_a_wire_marker(settings: ProvenanceSettings) -> None:
    rewrite = item("rw", text="LONDON (REUTERS) - " + story(303), minutes=30)
    graph = build_graph([*_reuters(), rewrite], [], settings)
    assert graph.cluster_of("rw") == "cluster:rt-1"
    assert [(e.source, e.target, e.origin) for e in graph.citation_edges] == [
        ("rw", "rt-1", EdgeOrigin.WIRE_MARKER)
    ]
