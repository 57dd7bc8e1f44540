"""Local fake servers for the pipeline tests: pages to fetch and search APIs to query, on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from icarus.research import web
from tests.fetching.conftest import FakeServer as PageServer
from tests.research.conftest import FakeServer as SearchServer


@pytest.fixture
def pages() -> Iterator[PageServer]:
    fake = PageServer()
    fake.thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


@pytest.fixture
def server(pages: PageServer) -> PageServer:
    """The page server, for tests that need only one."""
    return pages


@pytest.fixture
def search() -> Iterator[SearchServer]:
    fake = SearchServer()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def fresh_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    # The providers' request slots are shared per class; start each test (and leave the others) clean.
    monkeypatch.setattr(web._WebProvider, "_next_start", {})
