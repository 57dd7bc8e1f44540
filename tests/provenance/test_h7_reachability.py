"""H7: anything with a path back to what is under review derives from it."""

from __future__ import annotations

from icarus.provenance import EdgeOrigin, build_graph
from icarus.provenance.citations import Mention, resolve_mentions
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
    assert edge.target == "artifact:https://x.com/i/status/12345"  # a post is its status number (H1)
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


def test_h7_the_material_under_review_as_a_ledger_item_reaches_it_and_so_do_its_copies(
    settings: ProvenanceSettings,
) -> None:
    page = "https://authorblog.example/post/1"
    body = story(20)
    author = item("blog", url=page + "?utm_source=feed", domain="authorblog.example", text=body)
    rewrite = item("x", text=body + "\nA few words of its own.", links=[page])
    unrelated = item("other", text=story(21))
    graph = build_graph([author, rewrite, unrelated], [page], settings)
    assert graph.reaches_subject == frozenset({"blog", "x"})


def test_h7_narrowing_a_mention_to_the_copy_group_keeps_the_artifact_target() -> None:
    artifact = "artifact:https://authorblog.example/post/1"
    mention = Mention("x", ("blog", artifact), EdgeOrigin.LINK, "https://authorblog.example/post/1")
    edges = resolve_mentions([mention], {"x": 0, "blog": 0, "other": 1})
    assert {(edge.source, edge.target) for edge in edges} == {("x", "blog"), ("x", artifact)}
