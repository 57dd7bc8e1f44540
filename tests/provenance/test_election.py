"""Origin election: earliest first, then reputation, precedence and id; uncertainty is disclosed."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from icarus.provenance import ElectionFacts, ProvenanceGraph, UncertainReason, elect_origins
from tests.provenance.conftest import T0


def _graph(*clusters: tuple[str, ...], in_cycle: frozenset[str] = frozenset()) -> ProvenanceGraph:
    members = {f"cluster:{ids[0]}": ids for ids in clusters}
    return ProvenanceGraph(
        canonical_urls={},
        duplicate_of={},
        similarity_edges=(),
        citation_edges=(),
        copy_groups=clusters,
        cycles=(),
        reaches_subject=frozenset(),
        release_overlap={},
        amplification_groups=(),
        cluster_members=members,
        clusters_in_cycle=in_cycle,
    )


def _facts(
    minutes: float | None, reputation: str = "0.80", precedence: int = 0, **extra: object
) -> ElectionFacts:
    first_seen = None if minutes is None else T0 + timedelta(minutes=minutes)
    return ElectionFacts(
        first_seen=first_seen, reputation=Decimal(reputation), precedence=precedence, **extra
    )  # type: ignore[arg-type]


def _elect(facts: dict[str, ElectionFacts], **kwargs: frozenset[str]) -> object:
    [cluster] = elect_origins(_graph(tuple(sorted(facts)), **kwargs), facts)
    return cluster


def test_election_earliest_first_seen_wins() -> None:
    cluster = _elect({"a": _facts(10), "b": _facts(5, reputation="0.30"), "c": _facts(20, reputation="1.00")})
    assert cluster.origin_id == "b"  # type: ignore[attr-defined]
    assert not cluster.origin_uncertain  # type: ignore[attr-defined]


def test_election_same_time_higher_reputation_wins() -> None:
    cluster = _elect({"a": _facts(5, reputation="0.80"), "b": _facts(5, reputation="0.95")})
    assert cluster.origin_id == "b"  # type: ignore[attr-defined]


def test_election_same_time_and_reputation_higher_precedence_wins() -> None:
    cluster = _elect({"a": _facts(5, precedence=1), "b": _facts(5, precedence=2), "c": _facts(5)})
    assert cluster.origin_id == "b"  # type: ignore[attr-defined]


def test_election_full_tie_lowest_id_wins() -> None:
    cluster = _elect({"b": _facts(5), "a": _facts(5), "c": _facts(5)})
    assert cluster.origin_id == "a"  # type: ignore[attr-defined]


def test_election_retrieval_time_standing_in_counts_as_a_date() -> None:
    # The scoring rules put retrieval time in first_seen when published_at is missing.
    cluster = _elect({"a": _facts(None, reputation="1.00"), "b": _facts(90)})
    assert cluster.origin_id == "b"  # type: ignore[attr-defined]
    assert cluster.uncertain_reasons == ()  # type: ignore[attr-defined]


def test_election_no_timestamps_at_all_is_uncertain() -> None:
    cluster = _elect({"a": _facts(None), "b": _facts(None, reputation="0.95")})
    assert cluster.origin_id == "b"  # type: ignore[attr-defined]
    assert cluster.origin_uncertain  # type: ignore[attr-defined]
    assert cluster.uncertain_reasons == (UncertainReason.NO_TIMESTAMP,)  # type: ignore[attr-defined]


def test_election_ineligible_members_are_skipped() -> None:
    cluster = _elect({"a": _facts(1, eligible=False), "b": _facts(5)})
    assert cluster.origin_id == "b"  # type: ignore[attr-defined]
    assert not cluster.origin_uncertain  # type: ignore[attr-defined]


def test_election_no_eligible_member_falls_back_to_all_and_is_uncertain() -> None:
    cluster = _elect({"a": _facts(1, eligible=False), "b": _facts(5, eligible=False)})
    assert cluster.origin_id == "a"  # type: ignore[attr-defined]
    assert cluster.uncertain_reasons == (UncertainReason.DATE_EVENT_MISMATCH,)  # type: ignore[attr-defined]


def test_election_reasons_of_the_elected_origin_only() -> None:
    anonymous = (UncertainReason.ANONYMOUS_SOURCING,)
    later = _elect({"a": _facts(1), "b": _facts(5, uncertain_if_elected=anonymous)})
    assert not later.origin_uncertain  # type: ignore[attr-defined]
    first = _elect({"a": _facts(1, uncertain_if_elected=(UncertainReason.FUTURE_DATE,)), "b": _facts(5)})
    assert first.uncertain_reasons == (UncertainReason.FUTURE_DATE,)  # type: ignore[attr-defined]


def test_election_cycle_is_uncertain() -> None:
    cluster = _elect({"a": _facts(1), "b": _facts(2)}, in_cycle=frozenset({"cluster:a"}))
    assert cluster.in_cycle  # type: ignore[attr-defined]
    assert cluster.uncertain_reasons == (UncertainReason.CYCLE,)  # type: ignore[attr-defined]


def test_election_requires_facts_for_every_member() -> None:
    with pytest.raises(KeyError, match="b"):
        elect_origins(_graph(("a", "b")), {"a": _facts(1)})


def test_election_output_is_sorted_by_cluster_id() -> None:
    graph = _graph(("c", "d"), ("a",), ("b",))
    facts = {evidence_id: _facts(1) for evidence_id in "abcd"}
    assert [cluster.cluster_id for cluster in elect_origins(graph, facts)] == [
        "cluster:a",
        "cluster:b",
        "cluster:c",
    ]
