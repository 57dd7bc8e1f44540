"""The LVF, EvidenceVerify, other-models and methodology pages in a real browser (Debian chromium driven
by playwright), served by the whole app under uvicorn on 127.0.0.1. Skips without /usr/bin/chromium."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient

from icarus.api import create_app
from icarus.settings import Settings
from icarus.store.tokens import Role, TokenStore
from tests.service.conftest import FakeClock, Providers, open_runner, sample_payload
from tests.web.conftest import _free_port
from tests.web.screens import WIDTHS, WatchedBrowser, check_page
from tests.web.test_browser import ARGS, CHROMIUM, check_accessibility_basics, fits, is_drawn, open_page

EXAMPLES = Path(__file__).parents[2] / "examples"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="browser tests need Debian chromium at /usr/bin/chromium (apt-get install chromium)",
)


@dataclass
class Served:
    base_url: str
    lvf_run: int
    verification: str
    check_with_models: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    from icarus.research import LocalCorpus, LocalCorpusProvider

    root = tmp_path_factory.mktemp("pages")
    corpus = LocalCorpus(root / "corpus.db")
    corpus.add(sorted((EXAMPLES / "sample-corpus").glob("*.html")))
    runner = open_runner(
        f"sqlite:///{root / 'icarus.db'}", root, FakeClock(), Providers([LocalCorpusProvider(corpus)])
    )
    app = create_app(Settings(data_dir=root), runner=runner, enqueue=lambda c, k: None)
    admin = {
        "Authorization": "Bearer "
        + TokenStore(runner.store).create("pages", Role.ADMIN, runner.clock(), 10_000).secret
    }
    with TestClient(app) as client:
        ledger = json.loads((EXAMPLES / "ledgers" / "two-independent-wires.json").read_text(encoding="utf-8"))
        run_id = client.post("/v1/lvf/runs", json={"ledger": ledger}, headers=admin).json()["runs"][0][
            "run_id"
        ]
        challenge = {
            "run_id": run_id,
            "submitter": "sub-1",
            "reason": "revised",
            "evidence": [{"url": "https://port.example/r", "excerpt": "Fell 9%.", "stance": "refutes"}],
        }
        client.post("/v1/lvf/challenges", json=challenge, headers=admin)
        ev = EXAMPLES / "evidenceverify"
        verification = client.post(
            "/v1/evidence-verify",
            json={
                "claim": json.loads((ev / "claim.json").read_text(encoding="utf-8")),
                "store": json.loads((ev / "evidence_store.json").read_text(encoding="utf-8")),
                "as_of": "2026-08-01T00:00:00Z",
            },
            headers=admin,
        ).json()["id"]
        body = {"payload": sample_payload(), "models": ["ledger-default@0.1.0", "lvf@3.0"]}
        check_id = client.post("/v1/checks", json=body, headers=admin).json()["id"]
        runner.run(check_id, "first")
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
    yield Served(f"http://127.0.0.1:{port}", run_id, verification, check_id)
    server.should_exit = True
    thread.join(timeout=5)
    runner.store.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        watched = WatchedBrowser(launched)
        yield watched
        launched.close()
        assert not watched.refusals(), f"the Content-Security-Policy refused: {watched.refusals()}"


@pytest.mark.parametrize("width", [375, 1280])
def test_lvf_run_page_shows_both_assessors_side_by_side(browser: Any, served: Served, width: int) -> None:
    page = open_page(browser, f"{served.base_url}/lvf/runs/{served.lvf_run}", width)
    header = page.locator("table.lvf-criteria thead").inner_text()
    assert "ledger-deterministic@1" in header and "stance-claim@1" in header
    assert page.locator("table.lvf-criteria tbody tr").count() == 6
    check_accessibility_basics(page)
    assert fits(page), "the run page scrolls sideways"
    assert is_drawn(page.screenshot(full_page=True))
    page.get_by_role("link", name="The review queue for this run").click()
    page.wait_for_url(f"**/lvf/runs/{served.lvf_run}/challenges")
    assert page.locator("table.lvf-queue tbody tr").count() == 1
    check_accessibility_basics(page)
    page.close()


def test_lvf_public_summary_page(browser: Any, served: Served) -> None:
    page = open_page(browser, f"{served.base_url}/lvf/runs/{served.lvf_run}/summary", 1280)
    assert "Factual" in page.locator(".lvf-reading").inner_text()
    assert "Fell 9%" not in page.content()
    check_accessibility_basics(page)
    assert fits(page)
    page.close()


@pytest.mark.parametrize("width", [375, 1280])
def test_evidence_verify_result_page(browser: Any, served: Served, width: int) -> None:
    page = open_page(browser, f"{served.base_url}/evidence-verify/{served.verification}", width)
    assert "verified" in page.locator(".ev-status").inner_text()
    assert page.locator("table.ev-twitter tbody tr").count() == 1
    check_accessibility_basics(page)
    assert fits(page)
    page.close()


def test_report_page_other_models_are_collapsed_until_opened(browser: Any, served: Served) -> None:
    page = open_page(browser, f"{served.base_url}/checks/{served.check_with_models}", 1280)
    details = page.locator("details.other-models")
    line = details.locator("li").first
    assert not line.is_visible()
    details.locator("summary").click()
    assert line.is_visible() and " under " in line.inner_text()
    assert "under ledger-default@0.1.0" in details.inner_text() and "under lvf@3.0" in details.inner_text()
    check_accessibility_basics(page)
    page.close()


def test_methodology_index_links_a_ledger_model_page(browser: Any, served: Served) -> None:
    page = open_page(browser, f"{served.base_url}/methodology", 1280)
    page.locator("nav.models summary").click()
    page.get_by_role("link", name="ledger-strict@0.1.0").click()
    page.wait_for_url("**/methodology/ledger-strict@0.1.0")
    assert "ledger-strict@0.1.0" in page.locator("h1").inner_text()
    check_accessibility_basics(page)
    assert fits(page)
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_of_the_app_reads_at_phone_and_desktop_widths(
    browser: Any, served: Served, width: int
) -> None:
    pages = {
        "app-dashboard": "/",
        "app-report-with-models": f"/checks/{served.check_with_models}",
        "lvf-run": f"/lvf/runs/{served.lvf_run}",
        "lvf-summary": f"/lvf/runs/{served.lvf_run}/summary",
        "lvf-challenges": f"/lvf/runs/{served.lvf_run}/challenges",
        "evidence-verify": f"/evidence-verify/{served.verification}",
        "methodology-ledger-model": "/methodology/ledger-strict@0.1.0",
    }
    for name, path in pages.items():
        page = open_page(browser, f"{served.base_url}{path}", width)
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        check_accessibility_basics(page)
        check_page(page, name)
        page.close()


def test_swagger_ui_renders_the_operations_under_its_policy(browser: Any, served: Served) -> None:
    """/docs in a real browser: Swagger UI's script and style from this origin, its start script of ours,
    the description fetched and every operation drawn, and nothing refused by the page's policy."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    response = page.goto(f"{served.base_url}/docs")
    assert response is not None and response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(".opblock", timeout=15_000)
    assert page.locator(".opblock").count() >= 10
    assert page.locator(".opblock-summary-path").first.inner_text().startswith("/v1/")
    check_page(page, "api-docs")
    page.close()
