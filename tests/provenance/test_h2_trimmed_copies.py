"""H2 containment: a pickup that runs only part of a story is a copy of it, though its Jaccard is low.

Texts here are single lines of pseudo-words, so the count of five-word shingles is exact: ``k`` words
give ``k - 4`` shingles, and a text of the story's first ``k`` words plus ``m`` words of its own shares
``k - 4`` of its ``k + m - 4`` shingles with the story.
"""

from __future__ import annotations

from decimal import Decimal

from icarus.ledger.evidence import EvidenceItem
from icarus.provenance import build_graph
from icarus.provenance.similarity import CONTAINMENT_MAX_HOLDERS
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, words

STORY = words(301, 400)


def _text(*parts: list[str]) -> str:
    return " ".join(word for part in parts for word in part)


def test_h2_first_half_of_a_story_without_markers_joins_its_cluster(settings: ProvenanceSettings) -> None:
    evidence = [
        item("wire", text=_text(STORY), minutes=0),
        item("trimmed", text=_text(STORY[:200]), minutes=30),  # Jaccard about 0.49, containment 1
        item("other", text=_text(words(302, 300)), minutes=10),
    ]
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("other",), ("trimmed", "wire"))
    [edge] = [edge for edge in graph.similarity_edges if edge.kind == "containment"]
    assert (edge.a, edge.b, edge.score) == ("trimmed", "wire", Decimal("1.0000"))
    assert not [edge for edge in graph.similarity_edges if edge.kind == "shingles"]
    assert len(graph.cluster_members) == 2  # one origin for the story, one for the other report


def test_h2_containment_exactly_at_the_threshold_joins(settings: ProvenanceSettings) -> None:
    assert settings.similarity_threshold == Decimal("0.70")
    # 74 story words and 30 of its own: 70 of 100 shingles are the story's.
    evidence = [item("story", text=_text(STORY)), item("part", text=_text(STORY[:74], words(303, 30)))]
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("part", "story"),)
    [edge] = graph.similarity_edges
    assert (edge.kind, edge.score) == ("containment", Decimal("0.7000"))


def test_h2_containment_just_under_the_threshold_stays_apart(settings: ProvenanceSettings) -> None:
    # 73 story words and 31 of its own: 69 of 100 shingles.
    evidence = [item("story", text=_text(STORY)), item("part", text=_text(STORY[:73], words(303, 31)))]
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("part",), ("story",))
    assert graph.similarity_edges == ()


def test_h2_a_shared_quotation_does_not_make_reports_copies(settings: ProvenanceSettings) -> None:
    """Independent reports that each quote the same statement verbatim keep their own origins."""
    statement = words(304, 60)
    evidence = [
        item(f"report-{n}", text=_text(words(310 + n, 120), statement, words(320 + n, 60))) for n in range(5)
    ]
    graph = build_graph(evidence, [], settings)
    assert len(graph.copy_groups) == 5


def test_h2_the_quotation_republished_alone_is_the_reports_common_origin(
    settings: ProvenanceSettings,
) -> None:
    """The statement on its own page lies whole in each report: it joins every one of them, so the reports
    that relay it collapse into one origin (fewer origins, never more)."""
    statement = words(304, 60)
    evidence = [item(f"report-{n}", text=_text(words(310 + n, 120), statement)) for n in range(3)]
    evidence.append(item("statement", text=_text(statement)))
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("report-0", "report-1", "report-2", "statement"),)
    assert {edge.kind for edge in graph.similarity_edges} == {"containment"}


def test_h2_a_passage_held_by_too_many_groups_opens_no_containment_edge(settings: ProvenanceSettings) -> None:
    """Hostile input: many items that are mostly one shared passage. Looking each one up in every other
    group would take quadratic time and memory, so a shingle held by more than the cap leads nowhere."""
    passage = words(308, 300)

    def items(count: int) -> list[EvidenceItem]:
        # each lies, 296 of its 411 shingles (0.72), in every other; their Jaccard is about 0.56
        return [item(f"i{n:03d}", text=_text(words(400 + n, 115), passage)) for n in range(count)]

    crowded = items(2 * CONTAINMENT_MAX_HOLDERS)
    edges = [
        edge for edge in build_graph(crowded, [], settings).similarity_edges if edge.kind == "containment"
    ]
    # Every pair looked up would give an edge per pair (8,128); only pairs that also share a rarer shingle
    # by chance are looked up.
    assert len(edges) < len(crowded)
    few = build_graph(items(10), [], settings)
    assert few.copy_groups == (tuple(f"i{n:03d}" for n in range(10)),)
    assert {edge.kind for edge in few.similarity_edges} == {"containment"}


def test_h2_trimmed_copy_counts_against_the_whole_copy_group(settings: ProvenanceSettings) -> None:
    """Half from the story's first version, half from the paragraphs its update added: together the
    group holds all of it, though neither version alone holds 0.70."""
    update = STORY + words(305, 200)
    trimmed = STORY[:50] + update[400:500]
    evidence = [
        item("first", text=_text(STORY), minutes=0),
        item("updated", text=_text(update), minutes=60),
        item("trimmed", text=_text(trimmed), minutes=90),
    ]
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("first", "trimmed", "updated"),)


def test_h2_containment_is_the_same_whatever_the_item_order(settings: ProvenanceSettings) -> None:
    evidence = [
        item("a", text=_text(STORY)),
        item("b", text=_text(STORY[100:260])),
        item("c", text=_text(words(306, 200))),
        item("d", text=_text(STORY[:90], words(307, 10))),
    ]
    forward = build_graph(evidence, [], settings)
    backward = build_graph(list(reversed(evidence)), [], settings)
    assert forward.copy_groups == backward.copy_groups == (("a", "b", "d"), ("c",))
    assert forward.similarity_edges == backward.similarity_edges
