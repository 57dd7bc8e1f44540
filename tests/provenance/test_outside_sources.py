"""Sources named only outside the ledger: an item that also derives from a ledger origin stays in that origin's
cluster, whatever its evidence ids are called (H3: a citation only ever makes an item derivative)."""

from __future__ import annotations

import pytest

from icarus.ledger.evidence import Attribution, AttributionOrigin
from icarus.ledger.judgments import JudgeProvenance
from icarus.provenance import build_graph
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story

JUDGE = JudgeProvenance(provider="offline-lexical", version="1", calibration_id="cal@1")


def _chain(extra_attribution: Attribution | None = None, x_id: str = "x") -> list:  # type: ignore[type-arg]
    """``x`` links to ``b``, which links to ``a``: one origin, ``a``."""
    a = item("a", url="https://a.example/s", text=story(1))
    b = item("b", url="https://b.example/s", text=story(2), links=["https://a.example/s"], minutes=5)
    x = item(
        x_id,
        text=story(3),
        links=["https://b.example/s"],
        minutes=9,
        attributions=[extra_attribution] if extra_attribution else [],
    )
    return [a, b, x]


def test_a_chain_to_a_ledger_origin_is_one_cluster(settings: ProvenanceSettings) -> None:
    graph = build_graph(_chain(), [], settings)
    assert graph.cluster_members == {"cluster:a": ("a", "b", "x")}


def test_a_judge_attribution_to_an_outside_source_adds_no_origin(settings: ProvenanceSettings) -> None:
    outside = Attribution(
        target_name="Zeta Wire", phrase="per Zeta", origin=AttributionOrigin.JUDGE, judge=JUDGE
    )
    graph = build_graph(_chain(outside), [], settings)
    assert graph.cluster_members == {"cluster:a": ("a", "b", "x")}
    assert any(edge.target == "source:zeta-wire" for edge in graph.citation_edges)


@pytest.mark.parametrize("origin_id", ["a", "wire", "zz"])
def test_naming_the_ids_differently_gives_the_same_clusters(
    settings: ProvenanceSettings, origin_id: str
) -> None:
    # Ids sorting before and after "source:" once decided whether the outside source or the ledger origin won.
    origin = item(origin_id, url="https://origin.example/s", text=story(4))
    quoting = item(
        "q",
        text="The minister told Congress on Friday.\n" + story(5),
        links=["https://origin.example/s"],
        minutes=3,
    )
    graph = build_graph([origin, quoting], [], settings)
    assert graph.cluster_members == {f"cluster:{min(origin_id, 'q')}": tuple(sorted((origin_id, "q")))}


def test_items_citing_only_the_same_outside_source_share_one_cluster(settings: ProvenanceSettings) -> None:
    first = item("first", text=story(6) + "\nThe figures were first reported by Zeta Wire.")
    second = item("second", text=story(7) + "\nThe figures were first reported by Zeta Wire.", minutes=4)
    alone = item("alone", text=story(8))
    graph = build_graph([first, second, alone], [], settings)
    assert graph.cluster_members == {"cluster:alone": ("alone",), "cluster:first": ("first", "second")}


def test_an_item_reaching_two_ledger_origins_joins_the_nearer(settings: ProvenanceSettings) -> None:
    near = item("near", url="https://near.example/s", text=story(9))
    far = item("far", url="https://far.example/s", text=story(10))
    hop = item("hop", url="https://hop.example/s", text=story(11), links=["https://far.example/s"])
    both = item("both", text=story(12), links=["https://near.example/s", "https://hop.example/s"])
    graph = build_graph([near, far, hop, both], [], settings)
    assert graph.cluster_members == {"cluster:both": ("both", "near"), "cluster:far": ("far", "hop")}
