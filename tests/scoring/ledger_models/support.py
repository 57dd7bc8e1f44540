"""Build Icarus ledgers whose links state their ledger-model fields directly, and score them."""

from __future__ import annotations

from typing import Any

from icarus.ledger import (
    LedgerClaim,
    LedgerClaimType,
    LedgerLink,
    LinkDirection,
    ObservationKind,
    Relevance,
)
from icarus.ledger.document import Ledger
from icarus.scoring.ledger.model import LedgerScoringModel
from icarus.scoring.registry import get_model
from tests.builders import claim, item, judgment, ledger

STANCE = {"SUPPORT": "support", "CONTRADICT": "refute", "QUALIFY": "neutral", "NEUTRAL": "neutral"}


def link(
    evidence_id: str,
    direction: str = "SUPPORT",
    relevance: str = "DIRECT",
    observation: str = "DIRECT_TEXT",
    steps: int = 0,
    *,
    claim_id: str = "c1",
    **fields: Any,
) -> Any:
    """An evidence item judged against ``claim_id`` whose judgment carries these ledger-link fields."""
    stated = LedgerLink(
        direction=LinkDirection(direction),
        relevance=Relevance(relevance),
        observation=ObservationKind(observation),
        interpretive_steps=steps,
        **fields,
    )
    return item(
        evidence_id,
        judgments=[judgment(claim_id, STANCE[direction], link=stated)],
    )


def links_ledger(items: list[Any], claim_type: str = "OBSERVATIONAL", **claim_fields: Any) -> Ledger:
    stated = LedgerClaim(claim_type=LedgerClaimType(claim_type), **claim_fields)
    return ledger(items, [claim(ledger_claim=stated)])


def model(ref: str) -> LedgerScoringModel:
    found = get_model(ref)
    assert isinstance(found, LedgerScoringModel)
    return found


def trace_of(
    ref: str, items: list[Any], claim_type: str = "OBSERVATIONAL", **claim_fields: Any
) -> dict[str, Any]:
    """The one claim's trace when the ledger is scored under ``ref``."""
    result = model(ref).score(links_ledger(items, claim_type, **claim_fields))
    (claim_trace,) = result["trace"]["claims"]
    return claim_trace


def links_by_id(claim_trace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["link"]: entry for entry in claim_trace["links"]}
