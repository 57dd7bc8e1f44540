"""The LVF pages: a stored run (with each assessor's criteria side by side), its challenge queue and its
public summary. Public like every report page: they show what the public summary allows, plus each
assessor's criterion scores, never excerpts, prompts, model replies, assessor or reviewer notes."""

from __future__ import annotations

import re
from typing import Any, Final

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from icarus.lvf.api import LvfDatabase
from icarus.lvf.repository import StoredRun, UnknownRecord
from icarus.scoring.lvf.record import public_summary
from icarus.web._env import environment
from icarus.web.model import Links
from icarus.web.routes import render_error_page

__all__ = ["build_lvf_pages", "render_run_page"]

_RUN_ID: Final = re.compile(r"^[1-9][0-9]{0,8}$")
PAGE_METHODS: Final = ["GET", "HEAD"]
NO_CACHE: Final = "no-cache"
RUN_CACHE: Final = "public, max-age=300"  # a stored run never changes


def _criteria_table(stored: StoredRun) -> dict[str, Any]:
    """Rows of (criterion, weight, one score per assessor, median, spread) and the assessor names."""
    run = stored.run
    names = [a.assessor for a in run.assessors]
    rows = [
        {
            "criterion": c.criterion.value.replace("_", " "),
            "weight": c.weight,
            "scores": [c.scores.get(name) for name in names],
            "median": c.median,
            "spread": c.spread,
        }
        for c in run.criteria
    ]
    return {"assessors": run.assessors, "rows": rows}


def render_run_page(stored: StoredRun, queue: list[Any], links: Links | None = None) -> str:
    run = stored.run
    return (
        environment()
        .get_template("lvf_run.html")
        .render(
            stored=stored,
            run=run,
            summary=public_summary(run),
            table=_criteria_table(stored),
            queue=queue,
            links=links or Links(),
        )
    )


def build_lvf_pages(database: LvfDatabase, links: Links | None = None) -> APIRouter:
    links = links or Links()
    router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

    def not_found() -> HTMLResponse:
        page = render_error_page("Not found", "There is no such LVF run here.", links)
        return HTMLResponse(page, status_code=404, headers={"Cache-Control": NO_CACHE})

    def stored_or_none(run_id: str) -> StoredRun | None:
        if not _RUN_ID.match(run_id):
            return None
        try:
            return database.get().get_run(int(run_id))
        except UnknownRecord:
            return None

    def queue_for(run_id: int) -> list[Any]:
        return [e for e in database.get().review_queue() if e.run_id == run_id]

    @router.api_route("/lvf/runs/{run_id}", methods=PAGE_METHODS)
    def run_page(run_id: str) -> HTMLResponse:
        stored = stored_or_none(run_id)
        if stored is None:
            return not_found()
        page = render_run_page(stored, queue_for(stored.run_id), links)
        return HTMLResponse(page, headers={"Cache-Control": NO_CACHE})

    @router.api_route("/lvf/runs/{run_id}/challenges", methods=PAGE_METHODS)
    def queue_page(run_id: str) -> HTMLResponse:
        stored = stored_or_none(run_id)
        if stored is None:
            return not_found()
        page = (
            environment()
            .get_template("lvf_challenges.html")
            .render(stored=stored, run=stored.run, queue=queue_for(stored.run_id), links=links)
        )
        return HTMLResponse(page, headers={"Cache-Control": NO_CACHE})

    @router.api_route("/lvf/runs/{run_id}/summary", methods=PAGE_METHODS)
    def summary_page(run_id: str) -> HTMLResponse:
        stored = stored_or_none(run_id)
        if stored is None:
            return not_found()
        page = (
            environment()
            .get_template("lvf_summary.html")
            .render(stored=stored, summary=public_summary(stored.run), links=links)
        )
        return HTMLResponse(page, headers={"Cache-Control": RUN_CACHE})

    return router
