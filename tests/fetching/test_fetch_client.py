"""SafeFetcher builds its HTTP client (and TLS context) for its first request, once, and never after close."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from icarus.fetching import SafeFetcher
from tests.fetching.conftest import FakeServer

MakeFetcher = Callable[..., SafeFetcher]
PAGE = "<html><head><title>ok</title></head><body><p>Hello.</p></body></html>"


@pytest.fixture
def transports_built(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    built: list[Any] = []
    real = httpx.HTTPTransport

    def counting(*args: Any, **kwargs: Any) -> httpx.HTTPTransport:
        transport = real(*args, **kwargs)
        built.append(transport)
        return transport

    monkeypatch.setattr(httpx, "HTTPTransport", counting)
    return built


def test_a_fetcher_that_fetches_nothing_builds_no_client(
    make_fetcher: MakeFetcher, transports_built: list[Any]
) -> None:
    make_fetcher()
    assert transports_built == []


def test_the_client_is_built_once_for_every_request(
    server: FakeServer, make_fetcher: MakeFetcher, transports_built: list[Any]
) -> None:
    server.html("/page", PAGE)
    fetcher = make_fetcher()
    assert fetcher.fetch(server.url("/page")).body == PAGE.encode()
    assert fetcher.fetch(server.url("/page")).body == PAGE.encode()
    assert len(transports_built) == 1


def test_a_closed_fetcher_sends_nothing(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.html("/page", PAGE)
    fetcher = make_fetcher()
    fetcher.close()
    with pytest.raises(RuntimeError, match="closed"):
        fetcher.fetch(server.url("/page"))
    assert server.requests == []
