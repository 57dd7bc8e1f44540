"""Fetching a tagging reply by id from the X API v2, against a local fake server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from icarus.capture import CaptureError, capture_x_mention
from icarus.capture.x_api import XApiClient, tweet_id_from
from tests.fetching.conftest import FakeServer, Reply

TOKEN = "secret-bearer-token-123"
PAYLOAD = (Path(__file__).parents[2] / "examples" / "sample-post.json").read_text()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


def client(server: FakeServer) -> XApiClient:
    return XApiClient(SecretStr(TOKEN), server.url(""))


def test_fetches_the_mention_with_expansions_and_bearer_header(server: FakeServer) -> None:
    server.reply(
        "/2/tweets/1860000000000000002", Reply(200, PAYLOAD.encode(), {"Content-Type": "application/json"})
    )
    with client(server) as x:
        payload = x.mention_payload("https://x.com/curious_reader/status/1860000000000000002")
    seen = server.requests[0]
    assert seen.headers["authorization"] == f"Bearer {TOKEN}"
    assert "expansions=referenced_tweets.id" in seen.path and TOKEN not in seen.path
    subject = capture_x_mention(payload, datetime(2026, 11, 20, tzinfo=UTC)).subject
    assert subject is not None and subject.subject_id == "1860000000000000001"  # the direct parent


@pytest.mark.parametrize(
    ("status", "message"),
    [(401, "check the bearer token"), (404, "not found"), (429, "rate limit"), (500, "answered 500")],
)
def test_api_errors_are_clear_and_never_show_the_token(server: FakeServer, status: int, message: str) -> None:
    server.reply(
        "/2/tweets/1", Reply(status, b"{}", {"Content-Type": "application/json", "x-rate-limit-reset": "9"})
    )
    with client(server) as x, pytest.raises(CaptureError, match=message) as error:
        x.mention_payload("1")
    assert TOKEN not in str(error.value) and TOKEN not in repr(x)


def test_malformed_json_is_a_capture_error(server: FakeServer) -> None:
    server.reply("/2/tweets/1", Reply(200, b"{nope", {"Content-Type": "application/json"}))
    with client(server) as x, pytest.raises(CaptureError, match="malformed JSON"):
        x.mention_payload("1")


@pytest.mark.parametrize("reference", ["../../admin", "1; DROP", "https://evil.example/status/1", ""])
def test_only_ids_and_status_urls_are_accepted(reference: str) -> None:
    with pytest.raises(CaptureError):
        tweet_id_from(reference)
    assert tweet_id_from(" https://twitter.com/a/status/42?s=20 ") == "42"
    assert json.loads(PAYLOAD)["data"]["id"] == "1860000000000000002"


def _endless_json(sent: list[int]) -> Iterator[bytes]:
    """A JSON object whose one string never ends (well, after 64 MiB), counting what the server sent."""
    yield b'{"data": {"id": "1", "text": "'
    for _ in range(1024):
        sent.append(65536)
        yield b"x" * 65536
    yield b'"}}'


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000 + b"]" * 100_000, b'{"data": ' * 50_000 + b"1" + b"}" * 50_000],
    ids=["deep-list", "deep-object"],
)
def test_an_answer_nested_too_deeply_is_a_capture_error(server: FakeServer, body: bytes) -> None:
    server.reply("/2/tweets/1", Reply(200, body, {"Content-Type": "application/json"}))
    with client(server) as x, pytest.raises(CaptureError, match="malformed JSON"):
        x.mention_payload("1")


@pytest.mark.parametrize("body", [b"[]", b"12", b'"text"'], ids=["list", "number", "string"])
def test_an_answer_that_is_not_a_json_object_is_a_capture_error(server: FakeServer, body: bytes) -> None:
    server.reply("/2/tweets/1", Reply(200, body, {"Content-Type": "application/json"}))
    with client(server) as x, pytest.raises(CaptureError, match="X API answer unreadable: not a JSON object"):
        x.mention_payload("1")


def test_an_oversized_answer_is_refused_without_reading_it_all(server: FakeServer) -> None:
    sent: list[int] = []
    server.reply(
        "/2/tweets/1", Reply(200, headers={"Content-Type": "application/json"}, chunks=_endless_json(sent))
    )
    with client(server) as x, pytest.raises(CaptureError, match="larger than"):
        x.mention_payload("1")
    assert sum(sent) < 32 * 1024 * 1024  # it stopped reading; the server was not drained
