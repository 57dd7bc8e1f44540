"""``provenance.graphs`` gives igraph's components: the same strong-component numbering, the same weak
component node sets, on random directed graphs with loops and repeated edges."""

from __future__ import annotations

import random

import pytest

from icarus.provenance.graphs import strong_components, weak_components


@pytest.fixture(scope="module")
def igraph() -> object:
    return pytest.importorskip("igraph")


def _graphs(seed: int, count: int) -> list[tuple[int, list[tuple[int, int]]]]:
    rng = random.Random(seed)
    graphs = []
    for _ in range(count):
        nodes = rng.randint(0, 30)
        edges = [(rng.randrange(nodes), rng.randrange(nodes)) for _ in range(rng.randint(0, 3 * nodes))]
        graphs.append((nodes, edges))
    return graphs


def test_strong_components_are_numbered_as_igraph_numbers_them(igraph: object) -> None:
    for nodes, edges in _graphs(7, 3000):
        graph = igraph.Graph(n=nodes, edges=edges, directed=True)  # type: ignore[attr-defined]
        assert strong_components(nodes, edges) == graph.connected_components(mode="strong").membership


def test_weak_components_are_igraphs(igraph: object) -> None:
    for nodes, edges in _graphs(11, 3000):
        graph = igraph.Graph(n=nodes, edges=edges)  # type: ignore[attr-defined]
        expected = sorted(sorted(component) for component in graph.connected_components(mode="weak"))
        assert sorted(sorted(component) for component in weak_components(nodes, edges)) == expected


def test_a_cycle_and_a_tail() -> None:
    # 0 -> 1 -> 2 -> 0 is one component; 3 leads into it; 4 stands alone
    assert strong_components(5, [(0, 1), (1, 2), (2, 0), (3, 0)]) == [2, 2, 2, 1, 0]
    assert sorted(map(sorted, weak_components(5, [(0, 1), (1, 2), (2, 0), (3, 0)]))) == [[0, 1, 2, 3], [4]]
