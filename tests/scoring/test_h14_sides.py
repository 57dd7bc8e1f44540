"""H14 by side (``icarus.scoring.icarus.magnitude``): who is excluded when clusters state one quantity ten
times apart, and H14 taking a quantity-only scope mismatch from H26. The pipeline cases are in
tests/pipeline/test_evidence_figures.py."""

from __future__ import annotations

from decimal import Decimal as D

from icarus.ledger import Figure, ScopeAnswer, ScopeDimension, SourceClass
from tests.builders import item, judgment, ledger
from tests.scoring.scoring_support import item_trace, score, weight

POLICY = "icarus@1.2"


def containers(value: str) -> list[Figure]:
    return [Figure(measure="halden_harbor", value=D(value), unit="container")]


def primary(evidence_id: str, value: str, **extra: object) -> object:
    return item(
        evidence_id,
        figures=containers(value),
        source_class=SourceClass.PRIMARY_OFFICIAL,
        score="1.0",
        **extra,
    )


def test_H14_a_non_primary_item_on_the_primary_sources_side_stays_counted() -> None:
    result = score(
        ledger(
            [
                primary("p", "41000"),
                item("t", figures=containers("41000")),
                item("n", figures=containers("410000")),
            ]
        ),
        POLICY,
    )
    assert weight(result, "n") == 0
    assert weight(result, "p") > 0 and weight(result, "t") > 0
    assert D(item_trace(result, "t")["V"]) == D("0.93")  # flagged all the same


def test_H14_without_a_primary_source_neither_side_counts() -> None:
    trio = [item("a", figures=containers("41000")), item("b", figures=containers("41000"))]
    result = score(ledger([*trio, item("n", figures=containers("410000"))]), POLICY)
    assert weight(result, "a") == weight(result, "b") == weight(result, "n") == 0


def test_H14_two_primary_sources_apart_exclude_each_other() -> None:
    result = score(ledger([primary("p", "41000"), primary("q", "410000")]), POLICY)
    reasons = item_trace(result, "p")["excluded_by"]
    assert reasons == [{"rule": "H14", "reason": "unresolved order-of-magnitude conflict"}]
    assert weight(result, "q") == 0


def quantity_mismatch(*dimensions: ScopeDimension) -> list[object]:
    return [judgment(scope=ScopeAnswer(matches=False, mismatched=list(dimensions)))]


def test_H14_takes_a_quantity_only_scope_mismatch_from_H26() -> None:
    n = item("n", figures=containers("410000"), judgments=quantity_mismatch(ScopeDimension.QUANTITY))
    result = score(ledger([primary("p", "41000"), n]), POLICY)
    assert "H14" in item_trace(result, "n")["flags"] and "H26" not in item_trace(result, "n")["flags"]


def test_H26_stays_when_the_mismatch_is_more_than_the_quantity_or_there_is_no_rival() -> None:
    both = quantity_mismatch(ScopeDimension.QUANTITY, ScopeDimension.GEOGRAPHY)
    elsewhere = score(
        ledger([primary("p", "41000"), item("n", figures=containers("410000"), judgments=both)]), POLICY
    )
    assert {"H14", "H26"} <= set(item_trace(elsewhere, "n")["flags"])
    alone = item("n", figures=containers("410000"), judgments=quantity_mismatch(ScopeDimension.QUANTITY))
    assert "H26" in item_trace(score(ledger([alone]), POLICY), "n")["flags"]
    close = item("n", figures=containers("409000"), judgments=quantity_mismatch(ScopeDimension.QUANTITY))
    assert "H26" in item_trace(score(ledger([primary("p", "41000"), close]), POLICY), "n")["flags"]


def test_H14_and_its_hold_on_H26_are_off_where_H14_is_not_live() -> None:
    n = item("n", figures=containers("410000"), judgments=quantity_mismatch(ScopeDimension.QUANTITY))
    flags = item_trace(score(ledger([primary("p", "41000"), n]), "icarus@1.0"), "n")["flags"]
    assert "H26" in flags and "H14" not in flags
