"""A local HTTP server on 127.0.0.1 for fetcher tests: no test here touches the internet.

Tests register routes on the ``server`` fixture: a fixed response, a sequence of responses (one per
request, the last repeating) or a handler function. Every request is recorded.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from icarus.fetching import FetchLimits, GuardPolicy, SafeFetcher


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})
    chunks: Iterator[bytes] | None = None
    """When set, the body is streamed from this iterator (with no Content-Length)."""


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


Route = Callable[[], Reply]


class FakeServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Seen] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:
                server.requests.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}))
                route = server.routes.get(self.path) or server.routes.get(self.path.split("?", 1)[0])
                reply = route() if route else Reply(404, b"not found", {"Content-Type": "text/plain"})
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.chunks is None:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    if reply.chunks is None:
                        self.wfile.write(reply.body)
                    else:
                        for chunk in reply.chunks:
                            self.wfile.write(chunk)

            def log_message(self, format: str, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that hangs up mid-body (the point of several tests) is not an error here

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def reply(self, path: str, *replies: Reply) -> None:
        """Answer ``path`` with these replies in turn; the last one repeats."""
        queue: list[Reply] = list(replies)

        def route() -> Reply:
            return queue.pop(0) if len(queue) > 1 else queue[0]

        self.routes[path] = route

    def html(self, path: str, body: str | bytes, **headers: str) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.reply(path, Reply(200, data, {"Content-Type": "text/html; charset=utf-8", **headers}))

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        self.reply(path, Reply(status, b"", {"Location": location, "Content-Type": "text/plain"}))

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


class FakeTime:
    """A clock that only moves when something sleeps on it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


def static_resolver(table: Mapping[str, Sequence[str]]) -> Callable[[str], Sequence[str]]:
    """A resolver from a fixed table; unknown names fail like NXDOMAIN."""

    def resolve(host: str) -> Sequence[str]:
        if host not in table:
            raise OSError(f"no such host {host}")
        return table[host]

    return resolve


TEST_LIMITS = FetchLimits(
    max_bytes=256 * 1024,
    max_decompressed_bytes=1024 * 1024,
    timeout_s=5.0,
    max_redirects=3,
    retries=2,
    user_agent="IcarusTest/1",
    min_host_interval_s=0.0,
    backoff_base_s=0.5,
    backoff_max_s=4.0,
    max_retry_after_s=30.0,
)


@pytest.fixture
def make_fetcher(fake_time: FakeTime) -> Iterator[Callable[..., SafeFetcher]]:
    """Build fetchers on fake time; pass ``limits``, ``policy``, ``resolver`` or loopback as needed."""
    made: list[SafeFetcher] = []

    def make(
        *,
        limits: FetchLimits = TEST_LIMITS,
        policy: GuardPolicy | None = None,
        resolver: Callable[[str], Sequence[str]] | None = None,
        allow_loopback_for_tests: bool = True,
        **kwargs: object,
    ) -> SafeFetcher:
        fetcher = SafeFetcher(
            limits,
            policy=policy,
            resolver=resolver or static_resolver({}),
            allow_loopback_for_tests=allow_loopback_for_tests,
            clock=fake_time.clock,
            sleep=fake_time.sleep,
            **kwargs,  # type: ignore[arg-type]
        )
        made.append(fetcher)
        return fetcher

    yield make
    for fetcher in made:
        fetcher.close()
