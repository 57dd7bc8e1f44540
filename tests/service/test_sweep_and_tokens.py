"""The deletion sweep's X API source on a local fake X API, and the `icarus token` commands."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.jobs.sweep import PostStatus, XPostStatusSource, classify_lookup

LOOKUP = {
    "data": [
        {"id": "11", "text": "still here", "author_id": "1"},
        {"id": "12", "text": "locked account", "author_id": "2"},
    ],
    "includes": {"users": [{"id": "1", "protected": False}, {"id": "2", "protected": True}]},
    "errors": [
        {
            "resource_id": "13",
            "title": "Not Found Error",
            "type": "https://api.twitter.com/2/problems/resource-not-found",
        },
        {
            "resource_id": "14",
            "title": "Authorization Error",
            "type": "https://api.twitter.com/2/problems/not-authorized-for-resource",
        },
    ],
}


def test_lookup_answers_are_classified() -> None:
    found = classify_lookup(LOOKUP, ["11", "12", "13", "14", "15"])
    assert found == {
        "11": PostStatus.AVAILABLE,
        "12": PostStatus.PROTECTED,
        "13": PostStatus.DELETED,
        "14": PostStatus.PROTECTED,
        "15": PostStatus.UNKNOWN,  # X said nothing about it: nothing is hidden on a guess
    }


class FakeXApi:
    def __init__(self, status: int = 200) -> None:
        self.requests: list[dict[str, Any]] = []
        self.body = json.dumps(LOOKUP).encode()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                outer.requests.append(
                    {
                        "path": parts.path,
                        "query": parse_qs(parts.query),
                        "auth": self.headers["Authorization"],
                    }
                )
                body = outer.body
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def fake_x() -> Iterator[FakeXApi]:
    fake = FakeXApi()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def test_the_x_source_asks_for_the_ids_with_the_bearer_token(fake_x: FakeXApi) -> None:
    source = XPostStatusSource("test-bearer", fake_x.url)
    found = source.statuses(["11", "13"])
    assert found == {"11": PostStatus.AVAILABLE, "13": PostStatus.DELETED}
    request = fake_x.requests[0]
    assert request["path"] == "/2/tweets" and request["query"]["ids"] == ["11,13"]
    assert request["auth"] == "Bearer test-bearer"


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"data": [], "meta": {"result_count": ' + b"9" * 5000 + b"}}",
        b"<html>busy</html>",
        b"",
        b'["11"]',
        b'{"errors": 5}',
        b'{"includes": ["users"]}',
        b'{"errors": [{"resource_id": "13", "title": "Not Found Error"}], "x": "' + b"x" * 6_000_000 + b'"}',
    ],
    ids=[
        "deep",
        "long-number",
        "not-json",
        "empty",
        "list",
        "errors-not-a-list",
        "includes-list",
        "oversized",
    ],
)
def test_an_unreadable_x_answer_hides_nothing_and_raises_nothing(fake_x: FakeXApi, body: bytes) -> None:
    fake_x.body = body
    assert XPostStatusSource("test-bearer", fake_x.url).statuses(["11", "13"]) == {
        "11": PostStatus.UNKNOWN,
        "13": PostStatus.UNKNOWN,
    }


def test_an_x_outage_hides_nothing() -> None:
    source = XPostStatusSource("test-bearer", "http://127.0.0.1:9", timeout_s=1)
    assert source.statuses(["11"]) == {"11": PostStatus.UNKNOWN}


def test_token_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    runner = CliRunner()
    created = runner.invoke(app, ["token", "create", "--role", "api", "--name", "newsroom", "--rate", "30"])
    assert created.exit_code == 0, created.output
    secret = created.stdout.strip().splitlines()[-1]
    assert secret.startswith("icr_")
    listed = runner.invoke(app, ["token", "list"])
    assert "newsroom" in listed.stdout and secret not in listed.stdout and secret[:12] in listed.stdout
    assert runner.invoke(app, ["token", "revoke", "1"]).exit_code == 0
    missing = runner.invoke(app, ["token", "revoke", "99"])
    assert missing.exit_code == 2 and "no token 99" in missing.output
    beyond = runner.invoke(app, ["token", "revoke", "9" * 30])  # past any integer column
    assert beyond.exit_code == 2 and f"no token {'9' * 30}" in beyond.output
    wrong = runner.invoke(app, ["token", "create", "--role", "owner"])
    assert (
        wrong.exit_code == 2 and "error:" in wrong.output and "reader, api, reviewer, admin" in wrong.output
    )
