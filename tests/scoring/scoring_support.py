"""Helpers to score a ledger and read the parts of the result a test cares about."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from icarus.ledger import Ledger
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger


def score(ledger: Ledger, policy: str = "icarus@1.1") -> dict[str, Any]:
    return score_ledger(ledger, load_policy(policy))


def claim_of(result: dict[str, Any], claim_id: str = "c1") -> dict[str, Any]:
    return next(c for c in result["claims"] if c["id"] == claim_id)


def final_pass(result: dict[str, Any], claim_id: str = "c1") -> dict[str, Any]:
    trace = next(c for c in result["trace"]["claims"] if c["claim_id"] == claim_id)
    return trace["passes"][-1]


def claim_trace(result: dict[str, Any], claim_id: str = "c1") -> dict[str, Any]:
    return next(c for c in result["trace"]["claims"] if c["claim_id"] == claim_id)


def item_trace(result: dict[str, Any], evidence_id: str, claim_id: str = "c1") -> dict[str, Any]:
    return next(i for i in final_pass(result, claim_id)["items"] if i["evidence_id"] == evidence_id)


def weight(result: dict[str, Any], evidence_id: str, claim_id: str = "c1") -> Decimal:
    return Decimal(item_trace(result, evidence_id, claim_id)["weight"])


def codes(result: dict[str, Any], claim_id: str = "c1") -> set[str]:
    return {r["code"].split("@")[0] for r in claim_of(result, claim_id)["reasons"]}


def gates(result: dict[str, Any], claim_id: str = "c1") -> list[tuple[str, str]]:
    return [(g["gate"], g["effect"]) for g in claim_trace(result, claim_id)["gates"]]
