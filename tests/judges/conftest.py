"""A fake OpenAI-compatible server on 127.0.0.1: canned replies, every request kept for inspection.

It answers requests on several threads at once, as a real endpoint does; a test whose judge asks several
questions at once (``judges.parallel``) answers by what each request asks (``answer``), not from the queue,
whose order would then be the order the requests happened to arrive in."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def completion(content: str, model: str = "fake-model") -> dict[str, Any]:
    """A chat.completions response body whose message is ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def asked_evidence_id(request: dict[str, Any]) -> str:
    """The evidence id a judge's question names (the judge writes "Evidence id: …" into its user message);
    empty when it names none."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    found = re.search(r"Evidence id: (\S+)", user)
    return found.group(1) if found else ""


def stance_answer(evidence_id: str, stance: str = "support", **changes: Any) -> dict[str, Any]:
    """A stance answer that matches the schema, about ``evidence_id``; ``changes`` replace fields."""
    return {
        "evidence_id": evidence_id,
        "stance": stance,
        "confidence": 0.9,
        "inference_hops": 0,
        "scope_matches": True,
        "mismatched_dimensions": [],
        "rationale": "The evidence states the claim.",
        **changes,
    }


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: str

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class FakeServer:
    base_url: str
    replies: list[tuple[int, str]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    answer: Callable[[dict[str, Any]], dict[str, Any] | str] | None = None
    """When no reply is queued: the message content for each request body (a dict is sent as JSON, a string
    as it is); unset means 500."""

    def reply_json(self, answer: dict[str, Any] | str, status: int = 200) -> None:
        """Queue a completion whose message content is ``answer`` (a dict is dumped to JSON)."""
        content = answer if isinstance(answer, str) else json.dumps(answer)
        self.replies.append((status, json.dumps(completion(content))))

    def reply_raw(self, status: int, body: str) -> None:
        self.replies.append((status, body))


@pytest.fixture
def fake_llm() -> Iterator[FakeServer]:
    state = FakeServer(base_url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode()
            state.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if self.path != "/v1/chat/completions":
                status, payload = 404, json.dumps({"error": {"message": "not found"}})
            elif state.replies:
                status, payload = state.replies.pop(0)
            elif state.answer is not None:
                request = json.loads(body)
                content = state.answer(request)
                if not isinstance(content, str):
                    content = json.dumps(content)
                status, payload = 200, json.dumps(completion(content, request["model"]))
            else:
                status, payload = 500, json.dumps({"error": {"message": "no reply queued"}})
            data = payload.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
