"""Every registered model has a methodology page, linked from the methodology index."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from icarus.scoring.registry import default_registry
from icarus.web import RecentCheck, ReportPage, create_web_router


def _no_report(check_id: str, version: int | None) -> ReportPage | RecentCheck:
    raise LookupError(check_id)


def client() -> TestClient:
    app = FastAPI()
    app.include_router(create_web_router(load_report=_no_report, recent_checks=list))
    return TestClient(app)


def test_every_model_has_a_page_rendered_from_its_own_config() -> None:
    pages = client()
    for ref in default_registry().refs():
        answer = pages.get(f"/methodology/{ref}")
        assert answer.status_code == 200, ref
        model = default_registry().get(ref)
        assert f"<code>{ref}</code>" in answer.text and model.config_hash in answer.text
    lvf = pages.get("/methodology/lvf@2.0").text
    assert "lvf@2.0" in lvf and "Corroboration" in lvf


def test_the_index_links_every_model() -> None:
    index = client().get("/methodology").text
    for ref in default_registry().refs():
        assert f'href="/methodology/{ref}"' in index, ref


def test_unknown_models_are_404_pages() -> None:
    pages = client()
    for ref in ("ledger-strict@9.9.9", "lvf@1.0", "evidenceverify@0.1"):
        answer = pages.get(f"/methodology/{ref}")
        assert answer.status_code == 404 and "<h1>Not found</h1>" in answer.text
