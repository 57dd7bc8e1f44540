"""The pages in a real browser: Debian chromium driven by playwright, served by uvicorn on 127.0.0.1.

Needs /usr/bin/chromium (``apt-get install chromium``); the tests skip without it. The browser is never
downloaded (no ``playwright install``).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.web.conftest import LiveSite
from tests.web.screens import WIDTHS, WatchedBrowser, check_page, fits, is_drawn, policy_refusals, screenshot

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
# The badge colours of icarus.css, as RGB: the screenshot of a badge must be drawn in its own colours.
BADGE_BACKGROUND = {"supported": (0xE3, 0xF4, 0xE8), "unverifiable": (0xEC, 0xEF, 0xF4)}

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="browser tests need Debian chromium at /usr/bin/chromium (apt-get install chromium)",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        watched = WatchedBrowser(launched)
        yield watched
        launched.close()
        assert not watched.refusals(), f"the Content-Security-Policy refused: {watched.refusals()}"


def open_page(browser: Any, url: str, width: int) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 900})
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    return page


def dominant(png: bytes) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    counts = image.getcolors(maxcolors=1 << 20) or []
    return max(counts)[1]


ACCESSIBILITY_PROBE = """() => {
  const headings = [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')].map(h => +h.tagName[1]);
  const unnamedSvg = [...document.querySelectorAll('svg')].filter(s =>
      !(s.getAttribute('aria-label') || (s.getAttribute('aria-labelledby') || '').split(' ')
        .every(id => id && document.getElementById(id) && document.getElementById(id).textContent.trim())));
  const unnamedLinks = [...document.querySelectorAll('a')].filter(a => !a.textContent.trim());
  const images = [...document.querySelectorAll('img')].filter(i => !i.hasAttribute('alt'));
  return {lang: document.documentElement.lang, headings, unnamedSvg: unnamedSvg.length,
          unnamedLinks: unnamedLinks.length, images: images.length,
          main: document.querySelectorAll('main').length, nav: document.querySelectorAll('nav').length};
}"""


def check_accessibility_basics(page: Any) -> None:
    found = page.evaluate(ACCESSIBILITY_PROBE)
    assert found["lang"] == "en" and found["main"] == 1 and found["nav"] >= 1
    assert found["headings"][0] == 1 and found["headings"].count(1) == 1
    assert all(b - a <= 1 for a, b in zip(found["headings"], found["headings"][1:], strict=False))
    assert found["unnamedSvg"] == 0 and found["unnamedLinks"] == 0 and found["images"] == 0


@pytest.mark.parametrize("width", WIDTHS)
def test_report_page_reads_well_at_phone_and_desktop_widths(
    browser: Any, live_site: LiveSite, width: int, tmp_path: Path
) -> None:
    page = open_page(browser, f"{live_site.base_url}/checks/{live_site.checks.wires_check}", width)
    heading = page.locator("h1")
    assert "Supported" in heading.inner_text() and "confidence" in heading.inner_text()
    check_accessibility_basics(page)
    assert fits(page), "the report scrolls sideways"
    badge = page.locator("h1 .badge")
    box = badge.bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 20 and box["x"] >= 0
    assert box["x"] + box["width"] <= width
    assert dominant(badge.screenshot()) == BADGE_BACKGROUND["supported"]
    graph = page.locator("svg.provenance").first
    assert graph.is_visible() and (graph.bounding_box() or {"height": 0})["height"] > 80
    assert is_drawn(graph.screenshot())
    assert is_drawn(screenshot(page, "report-supported"))
    page.close()


def test_an_older_version_shows_its_timeline_and_links_the_latest(browser: Any, live_site: LiveSite) -> None:
    check = live_site.checks.cycle_check
    page = open_page(browser, f"{live_site.base_url}/checks/{check}/versions/1", 1280)
    assert page.locator("[aria-current=page]").inner_text() == "Version 1 (this page)"
    page.get_by_role("link", name="Read the latest version (2)").click()
    page.wait_for_url(f"**/checks/{check}/versions/2")
    assert "policy icarus@1.0 \u2192 icarus@1.1" in page.locator("#changes-h + p").inner_text()
    # the cycle is drawn dashed and said in words
    assert page.locator("svg.provenance path.edge.cycle").count() == 2
    assert "circular reporting" in page.locator("h5").first.inner_text()
    # what kept the conclusion where it is, in words and with its numbers
    blockers = page.locator("ul.blockers li")
    assert blockers.count() >= 1 and blockers.first.is_visible()
    assert any(ch.isdigit() for ch in blockers.first.inner_text())
    page.close()


INJECT = """() => {
  const script = document.createElement('script');
  script.textContent = 'window.injected = true;';
  document.body.appendChild(script);
  const style = document.createElement('style');
  style.textContent = 'body { display: none }';
  document.head.appendChild(style);
  return [window.injected === true, getComputedStyle(document.body).display];
}"""


def test_the_policy_refuses_a_script_or_style_the_page_did_not_ship(
    browser: Any, live_site: LiveSite
) -> None:
    """What an injection would add (an inline script, an inline style) does not run in a real browser,
    while the page's own stylesheet applies (its own script runs: see the live dashboard test)."""
    page = open_page(browser, f"{live_site.base_url}/", 1280)
    assert page.evaluate("getComputedStyle(document.querySelector('header.site nav')).display") == "flex"
    ran, display = page.evaluate(INJECT)
    assert ran is False and display == "block"
    page.wait_for_timeout(200)  # the console reports the refusals asynchronously
    refused = policy_refusals(page)
    assert any("script" in text for text in refused) and any("style" in text for text in refused), refused
    browser.forget(page)  # refused on purpose: not a fault of the page
    page.close()


def test_unknown_check_is_a_404_page(browser: Any, live_site: LiveSite) -> None:
    page = browser.new_page()
    response = page.goto(f"{live_site.base_url}/checks/unknown")
    assert response is not None and response.status == 404
    assert page.locator("h1").inner_text() == "Not found"
    page.close()


def test_dashboard_updates_live_from_the_event_stream(browser: Any, live_site: LiveSite) -> None:
    cycle = live_site.checks.cycle_check
    live_site.feed.events[:] = [
        (
            "check.created",
            {"check_id": "fresh0000001", "subject_kind": "x_post", "subject_id": "17", "status": "pending"},
        ),
        (
            "version.created",
            {
                "check_id": cycle,
                "version": 3,
                "label": "not_supported",
                "band": "high",
                "as_of": "2026-11-21T12:00:00Z",
            },
        ),
        ("check.status", {"check_id": "fresh0000001", "status": "running"}),
        # the API's own names: `status` carries "state", `version` the new conclusion
        ("status", {"check_id": "api000000001", "state": "queued", "at": "2026-11-21T12:00:00+00:00"}),
        ("version", {"check_id": "api000000001", "version": 1, "label": "misleading", "band": "medium"}),
        ("progress", {"check_id": "api000000001", "message": "<b>searching</b>"}),
        ("ignored.event", {"check_id": "<b>x</b>"}),
    ]
    page = open_page(browser, f"{live_site.base_url}/", 1280)
    fresh = page.locator('tr[data-check-id="fresh0000001"]')
    fresh.wait_for(timeout=5000)
    page.wait_for_function(
        "() => document.querySelector('tr[data-check-id=\"fresh0000001\"] .c-status').textContent === 'running'"
    )
    page.locator('tr[data-check-id="api000000001"]').wait_for(timeout=5000)
    order = [row.get_attribute("data-check-id") for row in page.locator("#checks tr").all()[:2]]
    assert order == ["api000000001", "fresh0000001"]  # new checks go on top, newest first
    row = page.locator(f'tr[data-check-id="{cycle}"]')
    page.wait_for_function(
        f"() => document.querySelector('tr[data-check-id=\"{cycle}\"] .c-version').textContent === '3'"
    )
    assert "Not supported by evidence" in row.locator(".c-label").inner_text()
    assert "confidence high" in row.locator(".c-label").inner_text()
    assert "2026-11-21 12:00 UTC" in row.locator(".c-asof").inner_text()
    api_row = page.locator('tr[data-check-id="api000000001"]')
    page.wait_for_function(
        "() => document.querySelector('tr[data-check-id=\"api000000001\"] .c-version')?.textContent === '1'"
    )
    assert api_row.locator(".c-status").inner_text() == "queued"
    assert "Misleading or missing context" in api_row.locator(".c-label").inner_text()
    assert page.locator("b").count() == 0
    assert "Live" in page.locator("#live-status").inner_text()
    check_accessibility_basics(page)
    assert fits(page)
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_methodology_page(browser: Any, live_site: LiveSite, width: int) -> None:
    page = open_page(browser, f"{live_site.base_url}/methodology", width)
    assert page.locator("h1").inner_text().startswith("How Icarus scores a claim")
    assert page.get_by_role("heading", name="Reputation sources").is_visible()
    check_accessibility_basics(page)
    check_page(page, "methodology")
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["dashboard", "report-cycle-v1", "report-cycle-latest", "not-found"])
def test_every_page_reads_at_phone_and_desktop_widths(
    browser: Any, live_site: LiveSite, name: str, width: int
) -> None:
    cycle = live_site.checks.cycle_check
    path = {
        "dashboard": "/",
        "report-cycle-v1": f"/checks/{cycle}/versions/1",
        "report-cycle-latest": f"/checks/{cycle}",
        "not-found": "/checks/unknown",
    }[name]
    page = browser.new_page(viewport={"width": width, "height": 900})
    response = page.goto(f"{live_site.base_url}{path}")
    assert response is not None and response.status == (404 if name == "not-found" else 200)
    page.evaluate(
        "document.querySelectorAll('details').forEach(d => { d.open = true; })"
    )  # opened, it must fit too
    check_accessibility_basics(page)
    check_page(page, name)
    page.close()
