"""What reports show of the assisted steps: reasons in words, implied claims never as the author's words."""

from __future__ import annotations

import json
from pathlib import Path

from icarus.ledger import Implication, NotAssessedReason, parse_ledger
from icarus.reports.render import NOT_ASSESSED_WORDS, render_markdown
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger

FIXTURE = Path(__file__).parents[1] / "fixtures" / "two-independent-wires.json"
STATEMENT = "Container traffic at Halden harbor was 12% lower in October"


def test_every_not_assessed_reason_has_words() -> None:
    assert set(NOT_ASSESSED_WORDS) == {reason.value for reason in NotAssessedReason}


def test_not_assessed_claims_say_why_in_words() -> None:
    raw = json.loads(FIXTURE.read_text())
    raw["claims"][0].update({"disposition": "personal_advice", "not_assessed": "personal_advice"})
    result = score_ledger(parse_ledger(raw), load_policy("icarus@1.1"))
    markdown = render_markdown(result)
    assert "— personal advice" in markdown and "— personal_advice" not in markdown


def test_an_implied_claim_is_shown_in_the_checker_s_words_and_never_quoted_as_the_author_s() -> None:
    raw = json.loads(FIXTURE.read_text())
    raw["claims"][0]["implication"] = Implication(
        statement=STATEMENT, necessity="necessary: …", proposed_by="model:m"
    ).model_dump()
    ledger = parse_ledger(raw)
    result = score_ledger(ledger, load_policy("icarus@1.1"))
    markdown = render_markdown(result, ledger)
    assert f"Implied claim, in the checker's words (not the author's): {STATEMENT}" in markdown
    assert f"> {STATEMENT}" not in markdown  # never set as a quotation
    assert "Implied by: \u201ccontainer traffic at Halden harbor fell 12% in October\u201d" in markdown
    assert "\u2705 Supported: independent origins support the claim." in markdown  # deterministic explanation
