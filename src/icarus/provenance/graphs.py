"""Connected components of the small graphs provenance builds, numbered as igraph numbers them.

igraph took a tenth of a second to import (its drawing modules load whatever a plot could need), for a few
graphs of tens of nodes per ledger. ``strong_components`` is Tarjan's algorithm, roots taken in node order
and each node's successors in ascending order, with the components numbered in reverse of the order they
close: the membership ``igraph.Graph.connected_components(mode="strong")`` gives
(``tests/provenance/test_graphs.py`` compares both on random graphs). ``weak_components`` gives the node
sets only, which callers sort.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["strong_components", "weak_components"]


def strong_components(nodes: int, edges: Iterable[tuple[int, int]]) -> list[int]:
    """Each node's strongly connected component, numbered as igraph numbers them (module docstring)."""
    successors: list[list[int]] = [[] for _ in range(nodes)]
    for source, target in edges:
        successors[source].append(target)
    for targets in successors:
        targets.sort()
    order = [-1] * nodes  # when each node was reached, -1 before
    lowest = [0] * nodes  # the earliest reached node it leads back to
    on_stack = [False] * nodes
    stack: list[int] = []
    closed = [-1] * nodes  # the number of the component, in the order components close
    reached = count = 0
    for root in range(nodes):
        if order[root] != -1:
            continue
        order[root] = lowest[root] = reached
        reached += 1
        stack.append(root)
        on_stack[root] = True
        path = [(root, 0)]  # the depth-first path, each node with its next successor to visit
        while path:
            node, next_index = path[-1]
            if next_index < len(successors[node]):
                path[-1] = (node, next_index + 1)
                target = successors[node][next_index]
                if order[target] == -1:
                    order[target] = lowest[target] = reached
                    reached += 1
                    stack.append(target)
                    on_stack[target] = True
                    path.append((target, 0))
                elif on_stack[target]:
                    lowest[node] = min(lowest[node], order[target])
                continue
            path.pop()
            if path:
                parent = path[-1][0]
                lowest[parent] = min(lowest[parent], lowest[node])
            if lowest[node] == order[node]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    closed[member] = count
                    if member == node:
                        break
                count += 1
    return [count - 1 - number for number in closed]


def weak_components(nodes: int, edges: Sequence[tuple[int, int]]) -> list[set[int]]:
    """The node sets of the graph's connected components, edge directions ignored (in no set order)."""
    parent = list(range(nodes))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for source, target in edges:
        parent[root(source)] = root(target)
    groups: dict[int, set[int]] = {}
    for node in range(nodes):
        groups.setdefault(root(node), set()).add(node)
    return list(groups.values())
