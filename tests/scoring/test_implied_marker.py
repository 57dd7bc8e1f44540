"""An implied claim is marked as implied in the published result, with the statement that was checked, and a
removed post's served version hides that statement as it hides the post's own words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from icarus.ledger import Ledger, parse_ledger
from icarus.reports.redaction import hidden_text, redact_ledger, redact_result
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger

FIXTURES = Path(__file__).parents[1] / "fixtures"
IMPLICATION = {
    "statement": "Container traffic at Halden harbor was 12% lower in October",
    "necessity": "necessary: anchored verbatim in a literal assertion",
    "proposed_by": "model:fixture",
}


def _raw(implication: dict[str, str] | None) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((FIXTURES / "two-independent-wires.json").read_text())
    if implication is not None:
        raw["claims"][0]["implication"] = implication
    return raw


def _scored(implication: dict[str, str] | None) -> dict[str, Any]:
    ledger: Ledger = parse_ledger(_raw(implication))
    return score_ledger(ledger, load_policy("icarus@1.2"))


def test_an_implied_claim_carries_the_implied_marker_with_its_statement() -> None:
    claim = _scored(IMPLICATION)["claims"][0]
    assert claim["implied"] == {"statement": IMPLICATION["statement"], "proposed_by": "model:fixture"}
    assert claim["text"] != IMPLICATION["statement"]  # the text stays the author's words it rests on


def test_a_stated_claim_has_no_implied_marker() -> None:
    assert all("implied" not in claim for claim in _scored(None)["claims"])


def test_a_removed_posts_version_hides_the_implied_statement() -> None:
    notice = hidden_text("deleted")
    result = redact_result(_scored(IMPLICATION), "deleted")
    assert result["claims"][0]["implied"]["statement"] == notice
    assert result["claims"][0]["implied"]["proposed_by"] == "model:fixture"
    ledger = redact_ledger(_raw(IMPLICATION), "deleted")
    assert ledger["claims"][0]["implication"]["statement"] == notice
    assert ledger["claims"][0]["implication"]["necessity"] == IMPLICATION["necessity"]
