"""The EvidenceVerify result page: one stored result, what it read and what it recommends."""

from __future__ import annotations

import re
from typing import Final

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from icarus.evidenceverify.records import UnknownEvidenceRecord, VerificationRecords
from icarus.web._env import environment
from icarus.web.model import Links
from icarus.web.routes import render_error_page

__all__ = ["build_evidence_verify_pages"]

_ID: Final = re.compile(r"^ev-[0-9a-f]{20}$")
RESULT_CACHE: Final = "public, max-age=300"  # a stored result never changes


def build_evidence_verify_pages(records: VerificationRecords, links: Links | None = None) -> APIRouter:
    links = links or Links()
    router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

    @router.api_route("/evidence-verify/{verification_id}", methods=["GET", "HEAD"])
    def result_page(verification_id: str) -> HTMLResponse:
        try:
            if not _ID.match(verification_id):
                raise UnknownEvidenceRecord(verification_id)
            stored = records.get(verification_id)
        except UnknownEvidenceRecord:
            page = render_error_page("Not found", "There is no such EvidenceVerify result here.", links)
            return HTMLResponse(page, status_code=404, headers={"Cache-Control": "no-cache"})
        page = (
            environment()
            .get_template("ev_result.html")
            .render(stored=stored, result=stored.result, claim=stored.claim, links=links)
        )
        return HTMLResponse(page, headers={"Cache-Control": RESULT_CACHE})

    return router
