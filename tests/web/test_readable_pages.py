"""Pages in words a reader understands: the dashboard's Subject column, and a report where nothing was
assessed, which must not lead with "❔ Unverifiable"."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from icarus.web import RecentCheck, ReportPage, render_dashboard, render_report_page
from icarus.web.dashboard import subject_label
from icarus.web.report import NOTHING_ASSESSED
from tests.web.support import scored

WHEN = datetime(2026, 11, 20, 12, 30, tzinfo=UTC)
HASH = "sha256:" + "ab" * 32


def test_the_subject_column_reads_as_words() -> None:
    assert subject_label("text", HASH) == "Text"
    assert subject_label("x_post", "1860000000000000001") == "X post 1860000000000000001"
    assert subject_label("url", "https://example.org/a") == "URL https://example.org/a"
    assert subject_label("url", "https://example.org/" + "x" * 100).endswith("\u2026")
    rows = [
        RecentCheck("c1", "recorded", WHEN, "text", HASH, 1, "supported", "high", WHEN, "Turnout fell 5%."),
        RecentCheck("c2", "queued", WHEN, "x_post", "1860000000000000001"),
    ]
    page = render_dashboard(rows)
    assert "sha256:" not in page
    assert "Turnout fell 5%." in page and "X post 1860000000000000001" in page


def test_a_report_with_nothing_assessed_says_so_and_why() -> None:
    led, result = scored("circular-reporting")
    claim = result["claims"][0]
    result["not_assessed"] = [{"id": claim["id"], "text": claim["text"], "reason": "claim_budget"}]
    result["claims"] = []
    page = render_report_page(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    heading = re.search(r'<h1 id="conclusion">(.*?)</h1>', page, re.S)
    assert heading is not None and heading.group(1) == NOTHING_ASSESSED
    assert "1 claim was found, none assessed: claim budget." in page
    assert f"<title>{NOTHING_ASSESSED}" in page


def test_a_report_with_no_claim_at_all_says_none_was_found() -> None:
    led, result = scored("circular-reporting")
    result["claims"], result["not_assessed"] = [], []
    page = render_report_page(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    assert "No checkable factual claim was found" in page


def test_reasons_carry_the_rules_name_and_link_to_the_methodology() -> None:
    from icarus.web.report import rule_name

    led, result = scored("circular-reporting")
    page = render_report_page(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    codes = {str(r["code"]) for claim in result["claims"] for r in claim["reasons"]}
    named = sorted(code for code in codes if rule_name(code))
    assert named, codes
    for code in named:
        assert f"<strong>{rule_name(code)}</strong>:" in page
        assert f'title="{rule_name(code)}: see the methodology"><code>{code}</code></a>' in page
    assert rule_name("H4@1") == "Estimated reputation and review queue"


@pytest.mark.parametrize(
    ("caveat", "words"),
    [
        ("rdap look-up not run", "The domain's registration date (RDAP, H10) was not looked up"),
        ("scholarly updates look-up error", "Retraction and correction notices (H16) could not be looked up"),
        ("reputation estimated, not on file", "reputation estimated, not on file"),
    ],
)
def test_look_up_caveats_in_words(caveat: str, words: str) -> None:
    from icarus.web.report import caveat_in_words

    assert caveat_in_words(caveat).startswith(words)


def test_evidence_gathered_for_another_claim_is_not_listed_under_this_one() -> None:
    from tests.builders import claim, item, ledger, subject
    from tests.scoring.scoring_support import score

    text = "The council approved the budget. Turnout rose to 60 percent."
    claims = [
        claim("c1", "The council approved the budget.", source=text),
        claim("c2", "Turnout rose to 60 percent.", source=text),
    ]
    evidence = [
        item("e1", claim_id="c1", publisher="Budget Wire"),
        item("e2", claim_id="c2", publisher="Turnout Times"),
    ]
    led = ledger(evidence, claims, subject=subject(text))
    page = render_report_page(ReportPage(result=score(led), ledger=led.model_dump(mode="json")))
    first, second = page.split('id="claim-2"', 1)
    assert "Budget Wire" in first and "Turnout Times" not in first.split("Evidence by independent origin")[1]
    assert "1 evidence item gathered for the post's other claims is not listed here" in first
    assert "Turnout Times" in second


def test_the_report_leads_with_the_finding_and_keeps_codes_and_weights_for_auditors() -> None:
    from icarus.web.report import plain_caveats

    led, result = scored("circular-reporting")
    lookups = ["rdap look-up not run", "c2pa look-up not run", "archive look-up not run"]
    result["claims"][0]["caveats"] = [*lookups, "scholarly updates look-up not run"]
    page = render_report_page(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    main = page[: page.index('<h2 id="timeline-h">')] if 'id="timeline-h"' in page else page
    reader, auditors = main.split('<details class="auditors">', 1)
    lead = reader[reader.index("</h1>") : reader.index('<h2 id="claims-h">')]
    assert "1 claim in this post was checked: it is" in lead
    assert "Claim 1</a>, \u201c" in lead
    for code in ("rule-", "overall@", "H4@", "weight "):
        assert code not in reader, code
    assert "was not looked up" not in reader  # one plain sentence instead of one caveat per look-up
    assert reader.count("Not looked up for this check:") == 1
    assert "<code>rule-" in auditors and "weight" in auditors.lower()
    assert auditors.count("was not looked up") == 4  # the raw caveats, kept for auditors
    assert plain_caveats(lookups)[0] == (
        "Not looked up for this check: the domain's registration date, the media's content credentials and "
        "an archived copy and the page's drift. The rules that read them could not act, in either direction."
    )
