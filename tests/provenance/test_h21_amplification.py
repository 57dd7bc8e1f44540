"""H21: near-identical posts from several domains inside an hour, with no shared origin, are one group."""

from __future__ import annotations

from icarus.provenance import build_graph
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story

BODY = story(55)


def test_h21_three_blogs_three_domains_within_twenty_minutes_are_one_group(
    settings: ProvenanceSettings,
) -> None:
    blogs = [item(f"blog-{n}", domain=f"blog{n}.example", text=BODY, minutes=n * 10) for n in range(3)]
    graph = build_graph([*blogs, item("other", text=story(56))], [], settings)
    assert graph.amplification_groups == (("blog-0", "blog-1", "blog-2"),)
    assert ("blog-0", "blog-1", "blog-2") in graph.copy_groups
    assert graph.cluster_of("blog-2") == "cluster:blog-0"
    assert {edge.kind for edge in graph.similarity_edges if edge.kind == "amplification"} == {"amplification"}


def test_h21_window_is_inclusive_at_sixty_minutes(settings: ProvenanceSettings) -> None:
    blogs = [
        item(f"b{n}", domain=f"b{n}.example", text=BODY, minutes=minutes)
        for n, minutes in enumerate((0, 30, 60))
    ]
    assert build_graph(blogs, [], settings).amplification_groups == (("b0", "b1", "b2"),)


def test_h21_outside_the_window_is_not_amplification(settings: ProvenanceSettings) -> None:
    blogs = [
        item(f"b{n}", domain=f"b{n}.example", text=BODY, minutes=minutes)
        for n, minutes in enumerate((0, 30, 61))
    ]
    graph = build_graph(blogs, [], settings)
    assert graph.amplification_groups == ()
    assert graph.copy_groups == (("b0", "b1", "b2"),)  # still copies of one another


def test_h21_needs_three_domains(settings: ProvenanceSettings) -> None:
    blogs = [item(f"b{n}", domain=f"b{n % 2}.example", text=BODY, minutes=n) for n in range(4)]
    assert build_graph(blogs, [], settings).amplification_groups == ()


def test_h21_shared_attributed_origin_is_syndication_not_amplification(settings: ProvenanceSettings) -> None:
    text = BODY + "\nThe numbers were first reported by Reuters."
    blogs = [item(f"b{n}", domain=f"b{n}.example", text=text, minutes=n) for n in range(3)]
    graph = build_graph(blogs, [], settings)
    assert graph.amplification_groups == ()
    assert graph.cluster_members == {"cluster:b0": ("b0", "b1", "b2")}
