"""A real HTTP server on 127.0.0.1 serving the pages from a fixture store, and a fake event stream."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from icarus.store import Store
from icarus.web import create_web_router, store_report_loader
from icarus.web.headers import SecurityHeaders, page_policy
from tests.web.support import StoredChecks, fill_store, recent_from


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[StoredChecks]:
    store = Store(f"sqlite:///{tmp_path / 'icarus.db'}").open()
    yield fill_store(store)
    store.close()


@dataclass
class EventFeed:
    """Events the fake ``/v1/events`` sends to each client, in order, as ``(name, data)``."""

    events: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    closing: threading.Event = field(default_factory=threading.Event)


def site_app(checks: StoredChecks, feed: EventFeed) -> FastAPI:
    app = FastAPI()
    app.include_router(
        create_web_router(
            load_report=store_report_loader(checks.store), recent_checks=lambda: recent_from(checks)
        )
    )
    app.add_middleware(SecurityHeaders, default=page_policy())  # as the service sends them

    @app.get("/v1/events")
    async def events() -> StreamingResponse:
        async def stream() -> AsyncIterator[str]:
            yield "retry: 60000\n\n"
            await asyncio.sleep(0.2)
            for name, data in feed.events:
                yield f"event: {name}\ndata: {json.dumps(data)}\n\n"
            while not feed.closing.is_set():
                await asyncio.sleep(0.05)

        return StreamingResponse(stream(), media_type="text/event-stream")

    return app


@dataclass
class LiveSite:
    base_url: str
    checks: StoredChecks
    feed: EventFeed


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def live_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSite]:
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('site') / 'icarus.db'}").open()
    checks = fill_store(store)
    feed = EventFeed()
    port = _free_port()
    config = uvicorn.Config(
        site_app(checks, feed), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the page server did not start")
        time.sleep(0.02)
    yield LiveSite(f"http://127.0.0.1:{port}", checks, feed)
    feed.closing.set()
    server.should_exit = True
    thread.join(timeout=5)
    store.close()
