"""The debate page in a real browser: Debian chromium driven by playwright, the app served by uvicorn on
127.0.0.1. Claims appear live from the event stream, "See other results" expands, thumbs are recorded and
leave the verdict as it was, and the page reads at phone and desktop widths.

Needs /usr/bin/chromium (``apt-get install chromium``); the tests skip without it. The browser is never
downloaded (no ``playwright install``).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from sqlalchemy import select

from icarus.api import create_app
from icarus.debates.access import AccessStore, Caller
from icarus.debates.model import DebateSettings, ResearchMode, Verdict
from icarus.debates.service import DebateService
from icarus.http.auth import TOKEN_COOKIE
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.debate_tables import DebateFeedbackRecord
from icarus.store.tokens import Role, TokenStore
from tests.debates.store_fixtures import FakeClock, ScriptedResearch, make_service, sourced
from tests.web.screens import WIDTHS, WatchedBrowser, check_page

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LIVE_TIMEOUT_MS = 10_000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="browser tests need Debian chromium at /usr/bin/chromium (apt-get install chromium)",
)


@dataclass
class LiveDebate:
    base_url: str
    service: DebateService
    store: Store
    caller: Caller
    secret: str
    debate_id: str


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveDebate]:
    clock = FakeClock()
    store = Store(f"sqlite:///{tmp_path / 'data' / 'icarus.db'}", clock=clock).open()
    research = ScriptedResearch()
    research.answers[ResearchMode.DECOMPOSE] = lambda _c: sourced(
        ResearchMode.DECOMPOSE, Verdict.TRUE, url="https://b.example/2"
    )
    service = make_service(store, clock, research, inline=False)  # research runs when the test says
    settings = Settings(data_dir=tmp_path)
    runner = JobRunner(store, lambda _policy: None, clock=clock, settings=settings)  # type: ignore[arg-type,return-value]
    app = create_app(settings, runner=runner, enqueue=lambda c, k: None, debates=service)
    issued = TokenStore(store).create("desk", Role.API, clock(), 100_000)
    access = AccessStore(store)
    access.assign_token(issued.info.id, access.create_organisation("Desk").id)
    caller = access.caller(issued.info)
    debate = service.create_debate(
        caller,
        DebateSettings(research_modes=[ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE]),
        "Leaders' debate",
    )
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the page server did not start")
        time.sleep(0.02)
    yield LiveDebate(f"http://127.0.0.1:{port}", service, store, caller, issued.secret, debate.id)
    server.should_exit = True
    thread.join(timeout=5)
    store.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        watched = WatchedBrowser(launched)
        yield watched
        launched.close()
        assert not watched.refusals(), f"the Content-Security-Policy refused: {watched.refusals()}"


def fits(page: Any) -> bool:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    viewport: int = page.evaluate("window.innerWidth")
    return width <= viewport


def feedback_rows(store: Store) -> list[tuple[str, int | None]]:
    with store.reading() as session:
        rows = session.scalars(select(DebateFeedbackRecord).order_by(DebateFeedbackRecord.id)).all()
        return [(row.kind, row.panel_id) for row in rows]


def test_claims_arrive_live_other_results_expand_and_thumbs_are_recorded(
    browser: Any, live: LiveDebate
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live.base_url}/debates/{live.debate_id}")
    assert "Sign in to read this debate" in page.locator("h1").inner_text()
    page.fill("#token", live.secret)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**/debates/{live.debate_id}")
    assert page.locator("h1").inner_text() == "Leaders' debate"
    assert page.locator("#empty").is_visible()
    page.wait_for_function("() => document.getElementById('live-status').textContent.includes('on')")

    submitted = live.service.submit_claim(
        live.caller, live.debate_id, "Unemployment fell to 3.9 percent in May."
    )
    card = page.locator(f"#claim-{submitted.claim_id}")
    card.wait_for(timeout=LIVE_TIMEOUT_MS)
    assert "Verification in progress" in card.inner_text()
    assert not page.locator("#empty").is_visible()

    live.service.run_due()  # both methods answer; the card follows the feed
    page.wait_for_function(
        f"() => document.querySelector('#claim-{submitted.claim_id} .main-answer')?.textContent.includes('True')",
        timeout=LIVE_TIMEOUT_MS,
    )
    card = page.locator(f"#claim-{submitted.claim_id}")
    assert "2 of 2 methods found support" in card.inner_text()
    assert "confidence high" in card.inner_text()

    others = card.locator("details.others")
    assert not others.locator("section.panel").first.is_visible()  # collapsed by default
    others.locator("summary").click()
    assert others.locator("section.panel").count() == 2
    assert others.locator("section.panel").first.is_visible()
    assert {m.inner_text() for m in others.locator("h4 .method").all()} == {
        "Quick search",
        "Claim split into questions",
    }

    before = live.service.claim_results(live.caller, submitted.claim_id, live.debate_id).claim_verdict
    card.locator(".answer button[data-value='down']").click()
    page.wait_for_function(
        "() => document.getElementById('feedback-status').textContent.includes('recorded')"
    )
    assert card.locator(".answer button[data-value='down']").get_attribute("aria-pressed") == "true"
    others.locator("section.panel").first.locator("button[data-value='up']").click()
    page.wait_for_function(
        "() => document.querySelectorAll('details.others button[aria-pressed=true]').length === 1",
        timeout=LIVE_TIMEOUT_MS,
    )
    kinds = [kind for kind, _panel in feedback_rows(live.store)]
    assert kinds == ["panel_feedback", "vote"]
    after = live.service.claim_results(live.caller, submitted.claim_id, live.debate_id).claim_verdict
    assert after == before  # feedback never changes the verdict

    live.service.submit_claim(live.caller, live.debate_id, "Inflation reached 7 percent last year.")
    page.locator("article.debate-claim").nth(1).wait_for(timeout=LIVE_TIMEOUT_MS)
    last = page.locator("article.debate-claim").last.inner_text()
    assert "Inflation reached 7 percent" in last  # in the order said: added by hand after the first
    assert fits(page)
    page.close()


@pytest.mark.parametrize("width", [375, 1280])
def test_the_debate_page_reads_at_phone_and_desktop_widths(
    browser: Any, live: LiveDebate, width: int
) -> None:
    for text in ("Unemployment fell to 3.9 percent in May.", "Exports doubled to 8 billion euros in 2025."):
        live.service.submit_claim(live.caller, live.debate_id, text)
    live.service.run_due()
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([{"name": TOKEN_COOKIE, "value": live.secret, "url": live.base_url}])
    page = context.new_page()
    response = page.goto(f"{live.base_url}/debates/{live.debate_id}")
    assert response is not None and response.status == 200
    for summary in page.locator("details.others summary").all():
        summary.click()
    assert fits(page), "the debate page scrolls sideways"
    for button in page.locator("button.thumb").all():
        box = button.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width and box["height"] >= 30
    headings = page.evaluate("[...document.querySelectorAll('h1,h2,h3,h4')].map(h => +h.tagName[1])")
    assert headings[0] == 1 and headings.count(1) == 1
    assert all(b - a <= 1 for a, b in pairwise(headings))
    context.close()


SRT = b"""1
00:00:01,000 --> 00:00:04,000
SPEAKER_1: Unemployment fell to 3.9 percent in 2023.

2
00:12:05,000 --> 00:12:08,000
SPEAKER_2: Exports doubled to 8 billion euros in 2025.
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_every_debate_page_reads_at_phone_and_desktop_widths(
    browser: Any, live: LiveDebate, width: int
) -> None:
    from icarus.debates.transcripts import TranscriptError

    live.service.ingest_transcript(live.caller, live.debate_id, SRT, "srt")
    live.service.set_speaker_map(
        live.caller, live.debate_id, {"SPEAKER_1": "Ruth Calloway", "SPEAKER_2": "Helena Marsh"}
    )
    live.service.submit_claim(live.caller, live.debate_id, "Inflation reached 7 percent last year.")
    live.service.run_due()
    failed = live.service.create_debate(live.caller, DebateSettings(research_modes=[]), "Broken captions")
    with pytest.raises(TranscriptError):
        live.service.ingest_transcript(
            live.caller, failed.id, b"1\n00:00:01,000 --> 00:00:0X,000\nHi 5\n", "srt"
        )
    claim_id = live.service.list_claims(live.caller, live.debate_id)[0].claim_id

    context = browser.new_context(viewport={"width": width, "height": 900})
    anonymous = context.new_page()
    anonymous.goto(f"{live.base_url}/debates/{live.debate_id}")
    check_page(anonymous, "debate-sign-in")
    context.add_cookies([{"name": TOKEN_COOKIE, "value": live.secret, "url": live.base_url}])
    pages = {
        "dashboard-signed-in": "/",
        "debate-list": "/debates",
        "debate": f"/debates/{live.debate_id}",
        "debate-claim": f"/debates/{live.debate_id}/claims/{claim_id}",
        "debate-failed-upload": f"/debates/{failed.id}",
    }
    for name, path in pages.items():
        page = context.new_page()
        response = page.goto(f"{live.base_url}{path}")
        assert response is not None and response.status == 200, path
        page.evaluate(
            "document.querySelectorAll('details').forEach(d => { d.open = true; })"
        )  # opened, it must fit too
        check_page(page, name)
        headings = page.evaluate("[...document.querySelectorAll('h1,h2,h3,h4')].map(h => +h.tagName[1])")
        assert headings[0] == 1 and headings.count(1) == 1, name
        assert all(b - a <= 1 for a, b in pairwise(headings)), name
        text = page.locator("main").inner_text()
        assert "The research methods agree" not in text, name
        assert page.locator("h4 code, .methods code").count() == 0, name  # methods in words, not ids
        if name == "debate":
            said = [t.inner_text() for t in page.locator("p.when strong").all()]
            assert said == ["0:01", "12:05"]  # in the order said; the claim added by hand follows
        if name in ("debate-list", "debate-failed-upload"):
            assert "Upload failed" in text
        if name == "dashboard-signed-in":
            assert "Leaders' debate" in text and "Broken captions" in text
        page.close()
    context.close()
