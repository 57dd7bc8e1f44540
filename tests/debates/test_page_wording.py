"""The debate pages in words a journalist reads (issue 33): what the panels found instead of "the methods
agree", confidence bands instead of raw scores, methods by name, the time a claim was said and the order
it was said in, the debate's title, a failed upload shown as failed, a styled page per claim, and the
dashboard listing debates beside checks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from icarus.debates.model import RESEARCH_MODE_NAMES, Panel, ResearchMode, Verdict
from icarus.debates.page_words import confidence_band, debate_status, method_name, panels_found, said_at
from icarus.debates.research.base import ClaimToResearch
from icarus.scoring.icarus.config import DEFAULT_POLICY, load_policy
from icarus.store.tokens import Role
from tests.debates.test_api import SRT, Site, open_site
from tests.debates.test_pages import sign_in


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    yield from open_site(tmp_path)


def unverifiable(mode: ResearchMode) -> Any:
    def answer(_claim: ClaimToResearch) -> Panel:
        return Panel(research_mode=mode, verdict=Verdict.UNVERIFIABLE, confidence=0.05, explanation="")

    return answer


def test_every_research_method_has_a_plain_name_and_no_name_is_an_id() -> None:
    assert set(RESEARCH_MODE_NAMES) == set(ResearchMode)
    assert method_name("two_step") == "quick search"
    for mode, name in RESEARCH_MODE_NAMES.items():
        assert "_" not in name and name != mode.value


def test_confidence_is_shown_as_the_default_policys_band() -> None:
    bands = load_policy(DEFAULT_POLICY).bands
    assert confidence_band(float(bands.high)) == "high"
    assert confidence_band(float(bands.medium)) == "medium"
    assert confidence_band(float(bands.medium) - 0.01) == "low"
    assert confidence_band(None) is None


def test_what_the_panels_found_is_counted_in_words() -> None:
    none = [{"verdict": "unverifiable", "research_mode": m} for m in ("two_step", "decompose", "agentic")]
    assert panels_found(none) == "No method found enough evidence to decide"
    mixed = [
        {"verdict": "true", "research_mode": "two_step"},
        {"verdict": "true", "research_mode": "decompose"},
        {"verdict": "false", "research_mode": "agentic"},
    ]
    assert panels_found(mixed) == "2 of 3 methods found support; 1 found it false"
    assert (
        panels_found([{"verdict": "true", "research_mode": "two_step"}]) == "The quick search found support"
    )
    waiting = [
        {"verdict": "true", "research_mode": "two_step"},
        {"verdict": "pending", "research_mode": "local"},
    ]
    assert panels_found(waiting) == "1 of 2 methods found support; 1 still researching"


def test_said_at_reads_as_a_clock_and_a_debate_status_never_says_live_after_a_failed_upload() -> None:
    assert said_at(754.2) == "12:34" and said_at(3723) == "1:02:03" and said_at(None) is None
    from datetime import UTC, datetime

    from icarus.debates.page_reads import UploadProblem

    problem = UploadProblem("line 2: bad timing", 2, datetime(2026, 1, 1, tzinfo=UTC))
    assert debate_status("live", 0, "idle", problem) == ("bad", "Upload failed")
    assert debate_status("live", 0, "idle", None)[1] == "Waiting for a transcript or live captions"
    assert debate_status("file", 12, "done", None)[1] == "Transcript uploaded"


def test_an_unverifiable_card_says_no_method_decided_with_its_band_and_methods_in_words(site: Site) -> None:
    site.research.answers[ResearchMode.TWO_STEP] = unverifiable(ResearchMode.TWO_STEP)
    site.research.answers[ResearchMode.DECOMPOSE] = unverifiable(ResearchMode.DECOMPOSE)
    api = site.token(Role.API)
    debate_id = site.debate(api, title="Norvale debate", research_modes=["two_step", "decompose"])
    site.claim(api, debate_id, "Taxes rose 5 percent in 2024.")
    sign_in(site, api, f"/debates/{debate_id}")
    html = site.client.get(f"/debates/{debate_id}").text
    card = html[html.index('<article class="debate-claim"') :]
    assert "\u2754" in card and "The research methods agree" not in card
    assert "No method found enough evidence to decide." in card
    assert "confidence low" in card and not re.search(r"confidence 0\.\d", card)
    assert "Quick search" in card and "Claim split into questions" in card
    assert "<code>two_step</code>" not in html and "<code>decompose</code>" not in html
    assert "Research methods: quick search, claim split into questions." in html


def test_the_header_shows_the_title_not_the_id_and_an_escalated_method_is_explained(site: Site) -> None:
    site.research.answers[ResearchMode.TWO_STEP] = unverifiable(ResearchMode.TWO_STEP)
    api = site.token(Role.API)
    debate_id = site.debate(api, title="Norvale debate", escalate_enabled=True, escalate_max_steps=1)
    site.claim(api, debate_id, "Taxes rose 5 percent in 2024.")
    sign_in(site, api, f"/debates/{debate_id}")
    html = site.client.get(f"/debates/{debate_id}").text
    head = html[
        html.index('<header class="debate-head">') : html.index("</header>", html.index("debate-head"))
    ]
    assert "<h1>Norvale debate</h1>" in head and debate_id not in head.replace(f"/debates/{debate_id}", "")
    assert "added by escalation: the methods before it did not settle the claim" in html


def test_claims_show_when_they_were_said_in_the_order_they_were_said(site: Site) -> None:
    api = site.token(Role.API)
    debate_id = site.debate(api, title="Norvale debate")
    later = SRT.replace(b"00:00:01,000 --> 00:00:04,000", b"00:12:01,000 --> 00:12:04,000").replace(
        b"00:00:05,000 --> 00:00:08,000", b"00:01:05,000 --> 00:01:08,000"
    )
    answer = site.client.post(
        f"/v1/debates/{debate_id}/transcript",
        content=later,
        headers={**api, "Content-Type": "application/x-subrip"},
    )
    assert answer.status_code == 202, answer.text
    sign_in(site, api, f"/debates/{debate_id}")
    html = site.client.get(f"/debates/{debate_id}").text
    assert "Said <strong>12:01</strong> into the recording" in html
    assert "Said <strong>1:05</strong> into the recording" in html
    # the transcript's order, which is also the order of their times here
    assert html.index("Unemployment fell to 3.9 percent") < html.index("Inflation reached 7 percent")
    assert "Transcript uploaded" in html


def test_a_failed_upload_is_shown_as_failed_on_the_list_and_the_page(site: Site) -> None:
    api = site.token(Role.API)
    debate_id = site.debate(api, title="Broken captions")
    bad = b"1\n00:00:01,000 --> 00:00:0X,000\nSPEAKER_1: Taxes rose 5 percent.\n"
    refused = site.client.post(
        f"/v1/debates/{debate_id}/transcript",
        content=bad,
        headers={**api, "Content-Type": "application/x-subrip"},
    )
    assert refused.status_code == 422
    sign_in(site, api, "/debates")
    listed = site.client.get("/debates").text
    row = listed[listed.index("Broken captions") :]
    assert "Upload failed" in row.split("</li>")[0] and ">Live<" not in listed
    page = site.client.get(f"/debates/{debate_id}").text
    assert "Upload failed" in page and "The transcript upload failed" in page


def test_one_claim_has_a_styled_page_of_its_own(site: Site) -> None:
    api = site.token(Role.API)
    debate_id = site.debate(api, title="Norvale debate")
    claim_id = site.claim(api, debate_id, "Taxes rose 5 percent in 2024.")
    sign_in(site, api, f"/debates/{debate_id}")
    listing = site.client.get(f"/debates/{debate_id}").text
    assert f'href="/debates/{debate_id}/claims/{claim_id}"' in listing
    page = site.client.get(f"/debates/{debate_id}/claims/{claim_id}")
    assert page.status_code == 200
    html = page.text
    assert "<style>" in html and "debate-claim{" in html.replace(".debate-claim{", "debate-claim{")
    assert "<h1>One claim from Norvale debate</h1>" in html and "Taxes rose 5 percent in 2024." in html
    assert '<details class="others" open>' in html
    assert site.client.get(f"/debates/{debate_id}/claims/999").status_code == 404


def test_the_dashboard_lists_the_readers_debates_beside_the_checks(site: Site) -> None:
    anonymous = site.client.get("/").text
    assert "Recent checks and debates" in anonymous and "Sign in with your token" in anonymous
    api = site.token(Role.API)
    site.debate(api, title="Norvale debate")
    sign_in(site, api, "/")
    html = site.client.get("/").text
    section = html[html.index('class="dash-debates"') :]
    assert "Norvale debate" in section and "Waiting for a transcript or live captions" in section


def test_the_header_says_when_the_debate_was_held(site: Site) -> None:
    api = site.token(Role.API)
    debate_id = site.debate(api, title="2020 debate", held_at="2020-10-22")
    sign_in(site, api, f"/debates/{debate_id}")
    html = site.client.get(f"/debates/{debate_id}").text
    assert "Held on 22 October 2020: claims are read as of that day." in html
