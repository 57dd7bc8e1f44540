"""The router: pages for known ids, 404 pages for anything else, and the pending page."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import FastAPI
from fastapi.testclient import TestClient

from icarus.scoring.icarus.config import DEFAULT_POLICY
from icarus.store import NotFound
from icarus.web import RecentCheck, ReportPage, create_web_router, store_report_loader
from tests.web.support import StoredChecks, recent_from, scored

PENDING = RecentCheck("pending1", "pending", datetime(2026, 11, 20, tzinfo=UTC), "text", "sha256:ab")


def client_for(checks: StoredChecks) -> TestClient:
    app = FastAPI()
    app.include_router(
        create_web_router(
            load_report=store_report_loader(checks.store), recent_checks=lambda: recent_from(checks)
        )
    )
    return TestClient(app)


def test_latest_and_each_version_have_pages(stored: StoredChecks) -> None:
    client = client_for(stored)
    latest = client.get(f"/checks/{stored.cycle_check}")
    assert latest.status_code == 200 and latest.headers["content-type"].startswith("text/html")
    assert "version 2 of 2" in latest.text and "policy icarus@1.0 \u2192 icarus@1.1" in latest.text
    first = client.get(f"/checks/{stored.cycle_check}/versions/1")
    assert first.status_code == 200 and "This is an earlier version." in first.text
    assert first.headers["cache-control"] == "public, max-age=300"


def test_unknown_or_malformed_ids_are_404_pages(stored: StoredChecks) -> None:
    client = client_for(stored)
    for path in (
        "/checks/nope",
        f"/checks/{stored.cycle_check}/versions/3",
        f"/checks/{stored.cycle_check}/versions/0",
        f"/checks/{stored.cycle_check}/versions/x",
        "/checks/" + "a" * 65,
        "/methodology/icarus@9.9",
        "/methodology/not-a-ref",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "<h1>Not found</h1>" in response.text
    # a path that matches no page route at all is the app's own 404
    assert client.get("/checks/..%2f..%2fetc").status_code == 404


def test_a_check_without_a_version_gets_the_in_progress_page() -> None:
    def load(check_id: str, version: int | None) -> ReportPage | RecentCheck:
        if check_id == PENDING.check_id and version is None:
            return PENDING
        raise NotFound(check_id)

    app = FastAPI()
    app.include_router(create_web_router(load_report=load, recent_checks=list))
    response = TestClient(app).get("/checks/pending1")
    assert response.status_code == 200 and "Check in progress" in response.text


def test_dashboard_lists_recent_checks_and_names_its_event_stream(stored: StoredChecks) -> None:
    page = client_for(stored).get("/").text
    assert page.index(stored.wires_check[:12]) < page.index(stored.cycle_check[:12])
    assert 'data-events="/v1/events"' in page and "Supported" in page
    for name in ("status", "version", "check.created", "check.status", "version.created"):
        assert f'"{name}"' in page


def test_methodology_pages_render_the_policy_markdown(stored: StoredChecks) -> None:
    client = client_for(stored)
    page = client.get("/methodology").text
    assert f"<h1>How Icarus scores a claim \u2014 {DEFAULT_POLICY}</h1>" in page
    older = client.get("/methodology/icarus@1.0")
    assert older.status_code == 200 and "icarus@1.0" in older.text


def test_the_methodology_page_lists_the_reputation_sources_in_use(stored: StoredChecks) -> None:
    from icarus.reputation.default import sources_manifest

    page = client_for(stored).get("/methodology/icarus@1.1").text
    assert "<h2>Reputation sources</h2>" in page
    for source in sources_manifest():
        assert source.version in page


def test_pages_stay_out_of_the_openapi_schema(stored: StoredChecks) -> None:
    schema = client_for(stored).get("/openapi.json").json()
    assert not any(path.startswith(("/checks", "/methodology")) or path == "/" for path in schema["paths"])


def test_render_from_plain_data_needs_no_store() -> None:
    _, result = scored("two-independent-wires")
    app = FastAPI()
    app.include_router(
        create_web_router(load_report=lambda c, v: ReportPage(result=result, check_id=c), recent_checks=list)
    )
    assert "Supported" in TestClient(app).get("/checks/any").text
