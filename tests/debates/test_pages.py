"""The debate page over HTTP: signing in, the claim cards (main answer, "Verification in progress", the
disagreement note, other results, primary citations, thumbs) and who may see them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from icarus.debates.model import Citation, Panel, ResearchMode, Verdict
from icarus.debates.research.base import ClaimToResearch
from icarus.debates.web import render_claim_card
from icarus.http.auth import TOKEN_COOKIE
from icarus.store.tokens import Role
from tests.debates.test_api import Site, open_site

TWO_STEP = ResearchMode.TWO_STEP


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    yield from open_site(tmp_path)


@pytest.fixture
def slow_site(tmp_path: Path) -> Iterator[Site]:
    yield from open_site(tmp_path, inline=False)


def sign_in(site: Site, headers: dict[str, str], next_path: str) -> None:
    secret = headers["Authorization"].removeprefix("Bearer ")
    answer = site.client.post(
        "/debates/sign-in", data={"token": secret, "next": next_path}, follow_redirects=False
    )
    assert answer.status_code == 303 and answer.headers["location"] == next_path
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    site.client.cookies.set(TOKEN_COOKIE, secret)


def primary_answer(_claim: ClaimToResearch) -> Panel:
    return Panel(
        research_mode=TWO_STEP,
        verdict=Verdict.TRUE,
        confidence=0.9,
        explanation="The statistics office reports 5 percent.",
        sources=[
            Citation(
                url="https://stats.example/taxes",
                domain="stats.example",
                title="Tax receipts 2024",
                is_primary=True,
                primary_kind="official_data",
                official_entity_label="Statistics Office",
                diagnostics={"wikidata_qid": "Q42"},
            ),
            Citation(url="https://paper.example/a", domain="paper.example", title="A paper's report"),
        ],
    )


def test_a_signed_in_reader_sees_each_claim_with_its_answer_and_every_result(site: Site) -> None:
    site.research.answers[TWO_STEP] = primary_answer
    api = site.token(Role.API)
    debate_id = site.debate(api, title="Leaders' debate", research_modes=["two_step", "decompose"])
    site.claim(api, debate_id, "Taxes rose 5 percent in 2024.")
    site.claim(api, debate_id, "Crime fell 3 percent.")
    sign_in(site, site.token(Role.READER), f"/debates/{debate_id}")

    page = site.client.get(f"/debates/{debate_id}")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    html = page.text
    assert "<h1>Leaders&#39; debate</h1>" in html
    # in the order they were said (both added by hand, so in the order they were added)
    assert html.index("Taxes rose 5 percent in 2024.") < html.index("Crime fell 3 percent.")
    assert html.count('<details class="others">') == 2 and "See other results (2)" in html
    assert 'class="cite primary"' in html and "Primary · official data" in html
    assert 'class="cite alternative"' in html
    assert "Q42" not in html  # admin-only diagnostics never reach the page of a reader
    assert "The research methods agree" not in html
    assert "2 of 2 methods found support." in html and "confidence high" in html
    assert html.count('data-kind="answer"') == 4 and html.count('data-kind="vote"') == 8
    seen = site.client.get(f"/v1/debates/{debate_id}/events?once=true", headers=api).text.count("\nevent: ")
    assert f'data-events="/v1/debates/{debate_id}/events?after={seen}"' in html  # no replay on load
    assert "Verification in progress" not in html


def test_a_claim_still_researched_says_verification_in_progress(slow_site: Site) -> None:
    api = slow_site.token(Role.API)
    debate_id = slow_site.debate(api)
    slow_site.claim(api, debate_id)
    sign_in(slow_site, api, f"/debates/{debate_id}")
    html = slow_site.client.get(f"/debates/{debate_id}").text
    assert "Verification in progress" in html and "1 of 1 methods still researching" in html
    assert 'data-kind="answer"' not in html  # no thumbs on an answer that is not there


def test_a_fallback_answer_carries_the_disagreement_note() -> None:
    card: dict[str, Any] = {
        "claim_id": 7,
        "text": "Wages rose 4 percent.",
        "speaker": "Ana Ruiz",
        "manually_added": False,
        "claim_verdict": {
            "verdict": "partially_true",
            "confidence": 0.6,
            "explanation": "One method found 4 percent for one sector only.",
            "sources": [],
            "basis": "fallback",
            "provisional": False,
        },
        "selected_panel_id": 1,
        "panels": [
            {
                "panel_id": 1,
                "research_mode": "decompose",
                "verdict": "partially_true",
                "confidence": 0.6,
                "sources": [],
                "vote_url": "/v1/panels/1/votes",
            },
            {
                "panel_id": 2,
                "research_mode": "two_step",
                "verdict": "false",
                "confidence": 0.7,
                "sources": [],
                "vote_url": "/v1/panels/2/votes",
            },
        ],
        "waiting": "",
        "answer_feedback_url": "/v1/claims/7/feedback",
        "answer_feedback_kind": "answer",
    }
    html = render_claim_card(card)
    assert "The research methods disagree and no reconciled answer is available yet" in html
    assert "Partly true" in html and "See other results (2)" in html
    agreed = render_claim_card({**card, "claim_verdict": {**card["claim_verdict"], "basis": "agreement"}})
    assert "no reconciled answer" not in agreed


def test_text_from_outside_is_escaped(site: Site) -> None:
    api = site.token(Role.API)
    debate_id = site.debate(api, title="<script>alert(1)</script>")
    site.claim(api, debate_id, "<img src=x onerror=alert(1)> rose 5 percent")
    sign_in(site, api, f"/debates/{debate_id}")
    html = site.client.get(f"/debates/{debate_id}").text
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_without_a_token_the_page_asks_to_sign_in(site: Site) -> None:
    debate_id = site.debate(site.token(Role.API))
    page = site.client.get(f"/debates/{debate_id}")
    assert page.status_code == 401 and "Sign in to read this debate" in page.text
    assert f'value="/debates/{debate_id}"' in page.text
    wrong = site.client.post(
        "/debates/sign-in", data={"token": "icr_wrong", "next": "/"}, follow_redirects=False
    )
    assert wrong.status_code == 401 and "unknown or revoked" in wrong.text
    assert "set-cookie" not in wrong.headers


@pytest.mark.parametrize("next_path", ["https://evil.example/", "//evil.example/x", "/\\evil.example"])
def test_sign_in_never_redirects_off_the_site(site: Site, next_path: str) -> None:
    secret = site.token(Role.READER)["Authorization"].removeprefix("Bearer ")
    answer = site.client.post(
        "/debates/sign-in", data={"token": secret, "next": next_path}, follow_redirects=False
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/"


def test_a_debate_of_another_organisation_is_not_found(site: Site) -> None:
    ours, theirs = site.organisation("North"), site.organisation("South")
    debate_id = site.debate(site.token(Role.API, ours))
    sign_in(site, site.token(Role.READER, theirs), f"/debates/{debate_id}")
    assert site.client.get(f"/debates/{debate_id}").status_code == 404
    assert site.client.get(f"/debates/{debate_id}/claims/1/card").status_code == 404
    assert site.client.get("/debates/not..an.id").status_code == 404


def test_the_card_fragment_is_the_claims_card(site: Site) -> None:
    api = site.token(Role.API)
    debate_id = site.debate(api)
    claim_id = site.claim(api, debate_id)
    assert site.client.get(f"/debates/{debate_id}/claims/{claim_id}/card").status_code == 401
    sign_in(site, api, f"/debates/{debate_id}")
    card = site.client.get(f"/debates/{debate_id}/claims/{claim_id}/card")
    assert card.status_code == 200
    assert re.search(rf'<article class="debate-claim" id="claim-{claim_id}"', card.text)
    assert site.client.get(f"/debates/{debate_id}/claims/999/card").status_code == 404
    assert site.client.get(f"/debates/{debate_id}/claims/0x1/card").status_code == 404


def test_the_card_fragment_reads_one_claim_and_names_its_speaker(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = site.token(Role.API)
    debate_id = site.debate(api)
    site.client.post(
        f"/v1/debates/{debate_id}/segments",
        json={
            "segments": [{"segment_id": "s1", "speaker_label": "Ana Ruiz", "text": "Taxes rose 5 percent."}]
        },
        headers=api,
    )
    [claim] = site.client.get(f"/v1/debates/{debate_id}/claims", headers=api).json()["claims"]
    sign_in(site, api, f"/debates/{debate_id}")

    def every_claim(*_args: object) -> None:
        raise AssertionError("a card reads its own claim, not the whole list")

    monkeypatch.setattr(site.service, "list_claims", every_claim)
    card = site.client.get(f"/debates/{debate_id}/claims/{claim['claim_id']}/card")
    assert card.status_code == 200 and "Ana Ruiz" in card.text


def test_the_site_navigation_links_to_the_debates(site: Site) -> None:
    api = site.token(Role.API)
    sign_in(site, api, "/debates")
    for path in ("/", "/debates"):
        page = site.client.get(path)
        assert page.status_code == 200, path
        nav = page.text.split('<nav aria-label="Site">', 1)[1].split("</nav>", 1)[0]
        assert '<a href="/debates">Live debates</a>' in nav, path


def test_the_pages_stay_out_of_the_openapi_schema(site: Site) -> None:
    paths = site.client.get("/openapi.json").json()["paths"]
    assert not any(path.startswith("/debates") for path in paths)


def test_the_debate_list_shows_only_the_organisations_debates(site: Site) -> None:
    ours, theirs = site.organisation("North"), site.organisation("South")
    site.debate(site.token(Role.API, ours), title="North debate")
    site.debate(site.token(Role.API, theirs), title="South debate")
    assert site.client.get("/debates").status_code == 401
    sign_in(site, site.token(Role.READER, ours), "/debates")
    page = site.client.get("/debates")
    assert page.status_code == 200 and "North debate" in page.text and "South debate" not in page.text
