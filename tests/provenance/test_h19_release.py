"""H19: pickups that mostly reproduce a press release derive from the release."""

from __future__ import annotations

from decimal import Decimal

from icarus.ledger.evidence import SourceClass
from icarus.provenance import EdgeOrigin, build_graph
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story, words

RELEASE_WORDS = words(900, 150)


def _release(**extra: object) -> object:
    return item(
        "rel",
        publisher="Acme Corp via PR Newswire",
        domain="prnewswire.com",
        text=" ".join(RELEASE_WORDS),
        source_class=SourceClass.RELEASE_SERVICE,
        **extra,  # type: ignore[arg-type]
    )


def test_h19_release_and_pickups_are_one_cluster_with_the_release(settings: ProvenanceSettings) -> None:
    pickups = []
    for n in range(9):
        # Each pickup keeps 120 of the release's words and adds an intro and a closing line of its own.
        own = words(1000 + n, 12)
        text = " ".join(own[:6] + RELEASE_WORDS[:120] + own[6:])
        pickups.append(item(f"pick-{n}", text=text, minutes=10 + n))
    graph = build_graph([_release(), *pickups], [], settings)
    assert list(graph.cluster_members) == ["cluster:pick-0"]
    assert set(graph.release_overlap) == {f"pick-{n}" for n in range(9)}
    assert all(value >= Decimal("0.70") for value in graph.release_overlap.values())
    assert {edge.origin for edge in graph.citation_edges} == {EdgeOrigin.RELEASE_OVERLAP}
    assert {edge.kind for edge in graph.similarity_edges} >= {"release_containment"}


def test_h19_containment_exactly_at_the_threshold_joins(settings: ProvenanceSettings) -> None:
    # 17 words give ten 8-word shingles; the first 14 words from the release give exactly 7 of them.
    text = " ".join(RELEASE_WORDS[:14] + words(77, 3))
    graph = build_graph([_release(), item("edge", text=text)], [], settings)
    assert graph.release_overlap == {"edge": Decimal("0.7000")}
    assert graph.cluster_of("edge") == graph.cluster_of("rel")


def test_h19_containment_just_below_the_threshold_stays_apart(settings: ProvenanceSettings) -> None:
    text = " ".join(RELEASE_WORDS[:13] + words(77, 4))  # 6 of 10 shingles
    graph = build_graph([_release(), item("below", text=text)], [], settings)
    assert graph.release_overlap == {}
    assert graph.cluster_of("below") != graph.cluster_of("rel")


def test_h19_release_recognised_by_wire_host_alone(settings: ProvenanceSettings) -> None:
    release = item("bw", domain="businesswire.com", text=" ".join(RELEASE_WORDS))
    pickup = item("p", text=" ".join(RELEASE_WORDS[:100] + words(5, 20)))
    graph = build_graph([release, pickup], [], settings)
    assert "p" in graph.release_overlap
    assert graph.cluster_of("p") == graph.cluster_of("bw")


def test_h19_unrelated_news_is_untouched(settings: ProvenanceSettings) -> None:
    graph = build_graph([_release(), item("news", text=story(3))], [], settings)
    assert graph.release_overlap == {}
    assert len(graph.cluster_members) == 2
