"""A corpus document without a canonical URL is addressed by its file on the server; pages never show it."""

from __future__ import annotations

from typing import Any

from icarus.web import ReportPage, render_report_page
from icarus.web.report import LOCAL_DOCUMENT
from tests.web.support import scored

SERVER_PATH = "file:///srv/icarus/corpus/private/notes.html"


def test_a_server_path_is_neither_publisher_nor_link_on_the_report_page() -> None:
    led, result = scored("circular-reporting")
    ledger: dict[str, Any] = led.model_dump(mode="json")
    first = result["evidence"][0]
    first["url"], first["publisher"] = SERVER_PATH, SERVER_PATH
    for item in ledger["evidence"]:
        if item["evidence_id"] == first["id"]:
            item["url"], item["publisher"] = SERVER_PATH, ""
    page = render_report_page(ReportPage(result=result, ledger=ledger, check_id="chk1", version=1))
    assert "/srv/icarus" not in page and "file:" not in page
    assert LOCAL_DOCUMENT in page
