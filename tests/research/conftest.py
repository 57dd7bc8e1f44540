"""A fake HTTP server on 127.0.0.1 that replays recorded provider responses; no test reaches the internet."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

RECORDED = Path(__file__).parent / "recorded"


def recorded(name: str) -> bytes:
    return (RECORDED / name).read_bytes()


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class SeenRequest:
    path: str
    raw_query: str
    params: dict[str, list[str]]
    headers: dict[str, str]


class FakeServer:
    """Routes by path; records every request (path, query, headers) for assertions.

    A path given a sequence of routes answers them in turn, then repeats the last one.
    """

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.sequences: dict[str, list[Route]] = {}
        self.requests: list[SeenRequest] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                server.requests.append(
                    SeenRequest(parts.path, parts.query, parse_qs(parts.query), dict(self.headers.items()))
                )
                queued = server.sequences.get(parts.path)
                if queued and len(queued) > 1:
                    server.routes[parts.path] = queued.pop(0)
                elif queued:
                    server.routes[parts.path] = queued.pop()
                route = server.routes.get(parts.path, Route(status=404, body=b'{"error": "no route"}'))
                if route.delay_s:
                    time.sleep(route.delay_s)
                try:
                    self.send_response(route.status)
                    self.send_header("Content-Type", route.content_type)
                    self.send_header("Content-Length", str(len(route.body)))
                    for name, value in route.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(route.body)
                except OSError:
                    pass  # the client gave up (timeout tests)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(
        self,
        path: str,
        body: bytes | dict[str, Any] | str = b"",
        *,
        status: int = 200,
        content_type: str = "application/json",
        delay_s: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        if isinstance(body, dict):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.routes[path] = Route(status, body, content_type, delay_s, headers or {})
        self.sequences.pop(path, None)

    def add_sequence(self, path: str, *routes: Route) -> None:
        """Answer ``path`` with ``routes`` in order; the last one then answers every later request."""
        self.sequences[path] = list(routes)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    server = FakeServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
