"""H7: anything with a path back to what is under review derives from it."""

from __future__ import annotations

from icarus.provenance import EdgeOrigin, build_graph
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story

POST = "https://x.com/someone/status/12345"


def test_h7_item_linking_to_the_subject_reaches_it(settings: ProvenanceSettings) -> None:
    direct = item(
        "direct", text=story(1), links=["https://twitter.com/someone/status/12345?s=20&ref_src=twsrc"]
    )
    other = item("other", text=story(2))
    graph = build_graph([direct, other], [POST], settings)
    assert graph.reaches_subject == frozenset({"direct"})
    [edge] = graph.citation_edges
    assert edge.target == "artifact:https://x.com/someone/status/12345"
    assert edge.origin is EdgeOrigin.LINK


def test_h7_item_reaching_the_subject_through_another_item(settings: ProvenanceSettings) -> None:
    first = item("first", url="https://first.example/a", text=story(3), links=[POST])
    second = item("second", url="https://second.example/b", text=story(4), links=["https://first.example/a"])
    third = item("third", text=story(5) + "\nThe claim spread, according to Second Example.")
    copy_of_first = item("copy", text=story(3), minutes=9)
    fresh = item("fresh", text=story(6))
    second_named = item(
        "second-pub",
        publisher="Second Example",
        domain="second2.example",
        text=story(7),
        links=["https://second.example/b"],
    )
    graph = build_graph([first, second, third, copy_of_first, fresh, second_named], [POST], settings)
    assert graph.reaches_subject == frozenset({"first", "second", "third", "copy", "second-pub"})
    assert "fresh" not in graph.reaches_subject


def test_h7_no_artifacts_nothing_reaches(settings: ProvenanceSettings) -> None:
    graph = build_graph([item("a", text=story(1), links=[POST])], [], settings)
    assert graph.reaches_subject == frozenset()
    assert graph.citation_edges == ()
