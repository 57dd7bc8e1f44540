"""A flagged rule's reason says what it fired on: the claim's own figure, or the evidence items by id."""

from __future__ import annotations

from decimal import Decimal as D

from icarus.ledger import Derivation, Figure, ReputationMethod
from tests.builders import claim, item, ledger
from tests.scoring.scoring_support import claim_of, score


def _reason(result: dict, code: str) -> str:  # type: ignore[type-arg]
    reasons = claim_of(result)["reasons"]
    [message] = [
        r["message"] for r in reasons if r["code"] == f"{code}@1" and r["message"].startswith("fired")
    ]
    return message


def _relative_risk() -> Figure:
    return Figure(measure="migraine risk", value=D("50"), unit="%", relative=True, base_rate_given=False)


def test_H15_on_a_claim_with_no_evidence_names_the_claims_own_figure_not_evidence() -> None:
    result = score(ledger([], claims=[claim(figures=[_relative_risk()])]))
    message = _reason(result, "H15")
    assert message == "fired on the claim's own figure \u201c50 %\u201d (migraine risk)"
    assert "evidence" not in message


def test_H12_on_the_claims_figure_names_that_figure() -> None:
    conflated = Figure(
        measure="approval",
        value=D("5"),
        unit="%",
        derivation=Derivation.PERCENT_CHANGE,
        operands=[D("40"), D("45")],
    )
    result = score(ledger([item("a"), item("b")], claims=[claim(figures=[conflated])]))
    assert _reason(result, "H12") == "fired on the claim's own figure \u201c5 %\u201d (approval)"


def test_H12_on_an_evidence_item_names_the_item() -> None:
    conflated = Figure(
        measure="approval",
        value=D("5"),
        unit="%",
        derivation=Derivation.PERCENT_CHANGE,
        operands=[D("40"), D("45")],
    )
    result = score(ledger([item("a", figures=[conflated]), item("b")]))
    assert _reason(result, "H12") == "fired on evidence item a"


def test_H4_on_several_items_names_each_id_in_order() -> None:
    evidence = [item(eid, method=ReputationMethod.HEURISTIC) for eid in ("zeta", "alpha")]
    assert _reason(score(ledger(evidence)), "H4") == "fired on evidence items alpha, zeta"


def test_a_rule_on_both_the_claim_and_an_item_names_both() -> None:
    result = score(
        ledger([item("a", figures=[_relative_risk()])], claims=[claim(figures=[_relative_risk()])])
    )
    assert _reason(result, "H15") == (
        "fired on the claim's own figure \u201c50 %\u201d (migraine risk) and on evidence item a"
    )


def test_no_reason_claims_evidence_that_the_claim_does_not_have() -> None:
    result = score(ledger([], claims=[claim(figures=[_relative_risk()])]))
    assert not any("this claim's evidence" in r["message"] for r in claim_of(result)["reasons"])
