"""Pages answer HEAD like GET without a body, and /favicon.ico is an icon, not a 404."""

from __future__ import annotations

import pytest

from icarus.scoring.icarus.config import DEFAULT_POLICY
from tests.web.support import StoredChecks
from tests.web.test_routes import client_for


@pytest.mark.parametrize("path", ["/", "/methodology", f"/methodology/{DEFAULT_POLICY}", "/favicon.ico"])
def test_head_answers_like_get_without_a_body(stored: StoredChecks, path: str) -> None:
    client = client_for(stored)
    got, head = client.get(path), client.head(path)
    assert got.status_code == head.status_code == 200
    assert head.headers["content-type"] == got.headers["content-type"] and head.content == b""


def test_head_on_report_pages(stored: StoredChecks) -> None:
    client = client_for(stored)
    for path in (f"/checks/{stored.cycle_check}", f"/checks/{stored.cycle_check}/versions/1"):
        assert client.head(path).status_code == 200
    assert client.head("/checks/nothing-here").status_code == 404


def test_the_favicon_is_an_icon(stored: StoredChecks) -> None:
    answer = client_for(stored).get("/favicon.ico")
    assert answer.headers["content-type"] == "image/x-icon"
    assert answer.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert "max-age" in answer.headers["cache-control"]
