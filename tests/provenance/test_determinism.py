"""Same ledger in, same graph out: across runs and across input orders."""

from __future__ import annotations

import random
from decimal import Decimal

from icarus.ledger.evidence import SourceClass
from icarus.provenance import ElectionFacts, build_graph, elect_origins
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import T0, item, story, words


def _ledger() -> list:  # type: ignore[type-arg]
    ap = "WASHINGTON (AP) — " + story(1)
    release = " ".join(words(2, 120))
    return [
        item("ap", publisher="AP", domain="apnews.com", text=ap, source_class=SourceClass.WIRE),
        *[item(f"ap-copy-{n}", text=ap, minutes=n) for n in range(4)],
        item("rt", publisher="Reuters", domain="reuters.com", text="(Reuters) - " + story(3), minutes=2),
        item("rw", text=story(4) + "\nThe vote passed, according to Reuters.", minutes=40),
        item("rel", domain="globenewswire.com", text=release, source_class=SourceClass.RELEASE_SERVICE),
        item("rel-pick", text=release + " " + " ".join(words(5, 10)), minutes=8),
        item("a", url="https://a.example/x", text=story(6), links=["https://b.example/y"]),
        item("b", url="https://b.example/y", text=story(7), links=["https://a.example/x"]),
        *[item(f"blog-{n}", domain=f"blog{n}.example", text=story(8), minutes=n) for n in range(3)],
        item("subject-linker", text=story(9), links=["https://x.com/u/status/1"]),
    ]


def test_same_input_twice_gives_equal_output(settings: ProvenanceSettings) -> None:
    first = build_graph(_ledger(), ["https://x.com/u/status/1"], settings)
    second = build_graph(_ledger(), ["https://x.com/u/status/1"], settings)
    assert first == second
    assert len(first.cluster_members) == 6
    assert first.cycles == (("a", "b"),)
    assert first.amplification_groups == (("blog-0", "blog-1", "blog-2"),)
    assert first.reaches_subject == frozenset({"subject-linker"})


def test_shuffled_input_gives_equal_output(settings: ProvenanceSettings) -> None:
    expected = build_graph(_ledger(), ["https://x.com/u/status/1"], settings)
    facts = {
        evidence_id: ElectionFacts(first_seen=T0, reputation=Decimal("0.5"), precedence=0)
        for evidence_id in expected.canonical_urls
    }
    for seed in range(5):
        ledger = _ledger()
        random.Random(seed).shuffle(ledger)
        graph = build_graph(ledger, ["https://x.com/u/status/1"], settings)
        assert graph == expected
        assert elect_origins(graph, facts) == elect_origins(expected, facts)


def test_outputs_are_sorted(settings: ProvenanceSettings) -> None:
    graph = build_graph(_ledger(), [], settings)
    assert list(graph.copy_groups) == sorted(graph.copy_groups)
    assert all(list(group) == sorted(group) for group in graph.copy_groups)
    assert list(graph.cluster_members) == sorted(graph.cluster_members)
    edges = [(edge.source, edge.target, edge.origin, edge.detail) for edge in graph.citation_edges]
    assert edges == sorted(edges)
    assert all(edge.a < edge.b for edge in graph.similarity_edges)
