"""The report page shows what the assisted steps left: a not-assessed reason in words, an implied claim in the
checker's words (never quoted as the author's), the explanation (an accepted draft, else the deterministic
one) and the searches that ran; a removed post's page shows none of its restatements."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from icarus.ledger import parse_ledger
from icarus.reports.render import deterministic_explanation
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.web import ReportPage, render_report_page

FIXTURE = Path(__file__).parents[1] / "fixtures" / "two-independent-wires.json"
STATEMENT = "Container traffic at Halden harbor was 12% lower in October"
AUTHOR = "container traffic at Halden harbor fell 12% in October"
DRAFT = "Two independent wire reports give the same fall in container traffic."
SEARCH = "Halden harbor container traffic October"


def _page(update: dict[str, Any], *, hidden: str | None = None, **ledger_fields: Any) -> str:
    raw = json.loads(FIXTURE.read_text())
    raw["claims"][0].update(update)
    raw.update(ledger_fields)
    ledger = parse_ledger(raw)
    result = score_ledger(ledger, load_policy("icarus@1.2"))
    page = ReportPage(result=result, ledger=ledger.model_dump(mode="json"), source_hidden=hidden)
    return render_report_page(page)


IMPLIED = {
    "implication": {
        "statement": STATEMENT,
        "necessity": "necessary: anchored verbatim in a literal assertion",
        "proposed_by": "model:fixture",
    }
}
PLAN = [
    {
        "claim_id": "c1",
        "searches": [
            {"kind": "close_wording", "text": SEARCH, "proposed_by": "planner"},
            {"kind": "refutation", "text": "Halden harbor traffic rose", "proposed_by": "model"},
        ],
    }
]


def test_a_not_assessed_reason_is_shown_in_words() -> None:
    html = _page({"disposition": "private_individual", "not_assessed": "private_individual"})
    listed = html.split('id="na-h"')[1]
    assert "— about a named private individual</li>" in listed and "— private individual</li>" not in listed
    lead = html.split('id="na-h"')[0]  # nothing was assessed: the lead says why, in the same words
    assert "none assessed: about a named private individual." in lead


def test_an_implied_claim_is_in_the_checker_s_words_and_not_quoted() -> None:
    html = _page(IMPLIED)
    assert f"in the checker's words (not the author's):</strong> {escape(STATEMENT)}" in html
    quoted = html.split('<blockquote class="verbatim"><p>')[1].split("</p>")[0]
    assert quoted == escape(AUTHOR)  # the quotation is the author's words it rests on


def test_an_implied_claim_not_assessed_is_listed_in_the_checker_s_words() -> None:
    html = _page({**IMPLIED, "disposition": "implied_needs_intent", "not_assessed": "implied_needs_intent"})
    listed = html.split('id="na-h"')[1]
    assert f"{escape(STATEMENT)} (the checker's words)" in listed
    assert "an implied claim that would need a guess at what the author meant" in listed


def test_the_explanation_is_the_accepted_draft_or_the_deterministic_one() -> None:
    plain = _page({})
    raw = json.loads(FIXTURE.read_text())
    result = score_ledger(parse_ledger(raw), load_policy("icarus@1.2"))
    assert escape(deterministic_explanation(result["claims"][0])) in plain
    drafted = _page({}, drafts=[{"claim_id": "c1", "text": DRAFT, "cited_evidence_ids": []}])
    assert f'<p class="explanation">{DRAFT} <span class="meta">(drafted by a model' in drafted


def test_the_searches_that_ran_are_listed() -> None:
    html = _page({}, query_plans=PLAN)
    assert "Searches run (2)" in html
    assert f"close wording: <code>{SEARCH}</code>" in html
    assert "refutation: <code>Halden harbor traffic rose</code> — proposed by a model" in html


def test_a_removed_post_s_page_shows_no_restatement_of_it() -> None:
    html = _page(
        IMPLIED,
        hidden="the post was deleted",
        drafts=[{"claim_id": "c1", "text": DRAFT, "cited_evidence_ids": []}],
        query_plans=PLAN,
    )
    assert STATEMENT not in html and DRAFT not in html and SEARCH not in html
    assert "close wording: <code>[the post&#39;s words are hidden" in html
