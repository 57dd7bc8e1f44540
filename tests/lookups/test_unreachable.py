"""A look-up whose service cannot be reached answers "not run", with why, and quickly: a machine without
network (``make run``, the tests, CI) checks as one with it does, only without those answers.

The services here are local: a port that refuses connections, and one that accepts them and never answers.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from icarus.fetching import SafeFetcher, SnapshotStore
from icarus.ledger import LookupStatus
from icarus.lookups.drift import MISSES_TO_HOLD, DriftLookup
from icarus.lookups.rdap import RdapLookup
from icarus.lookups.reachability import Reachability
from icarus.lookups.scholarly import CrossrefUpdatesLookup
from icarus.scoring.icarus.config import load_policy
from tests.builders import item
from tests.fetching.conftest import FakeServer, Reply

TIMEOUT_S = 0.5
ITEMS = 20


@pytest.fixture
def silent() -> Iterator[str]:
    """The base URL of a service that accepts connections (the listen backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


@pytest.fixture
def refused() -> str:
    dead = FakeServer()
    url = dead.url("").rstrip("/")
    dead.httpd.server_close()
    return url


def test_rdap_that_never_answers_costs_one_timeout_for_a_whole_check(silent: str) -> None:
    lookup = RdapLookup(silent, timeout_s=TIMEOUT_S)
    started = time.monotonic()
    results = [lookup.lookup(item(f"e{n}", domain=f"site{n}.com")) for n in range(ITEMS)]
    elapsed = time.monotonic() - started
    assert {r.status for r in results} == {LookupStatus.NOT_RUN}
    assert "could not be reached: ReadTimeout" in results[0].detail
    assert "not asked again" in results[-1].detail
    assert elapsed < TIMEOUT_S * 4  # one wait, not one per item


def test_crossref_that_refuses_connections_is_not_run_and_not_asked_again(refused: str) -> None:
    lookup = CrossrefUpdatesLookup(refused, timeout_s=TIMEOUT_S)
    first = lookup.lookup(item("a", doi="10.1000/one"))
    second = lookup.lookup(item("b", doi="10.1000/two"))
    assert (first.status, second.status) == (LookupStatus.NOT_RUN, LookupStatus.NOT_RUN)
    assert "Crossref at" in first.detail and "could not be reached: ConnectError" in first.detail
    assert "not asked again" in second.detail


def test_crossref_that_never_answers_is_not_run_within_the_timeout(silent: str) -> None:
    started = time.monotonic()
    result = CrossrefUpdatesLookup(silent, timeout_s=TIMEOUT_S).lookup(item("a", doi="10.1000/one"))
    assert result.status is LookupStatus.NOT_RUN
    assert time.monotonic() - started < TIMEOUT_S * 4


def test_a_drift_page_that_cannot_be_reached_is_not_run(refused: str, tmp_path: Path) -> None:
    fetcher = SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None)
    lookup = DriftLookup(
        fetcher, SnapshotStore(tmp_path), min_chars=load_policy("icarus@1.1").media.soft_404_min_chars
    )
    result = lookup.lookup(item("a", url=f"{refused}/story"))
    assert result.status is LookupStatus.NOT_RUN and result.detail.startswith("page not reached")


def test_the_service_is_asked_again_once_the_hold_is_over() -> None:
    now = [100.0]
    reach = Reachability("RDAP at x", hold_s=60, clock=lambda: now[0])
    assert reach.down() is None
    reach.failed(ConnectionError("refused"))
    now[0] = 159.9
    assert reach.down() is not None and "not asked again for 60 s" in (reach.down() or "")
    now[0] = 160.0
    assert reach.down() is None


def test_names_reserved_for_examples_are_never_looked_up(refused: str) -> None:
    # the sample corpus lives under .example: no request is sent, so nothing waits or fails
    lookup = RdapLookup(refused, timeout_s=TIMEOUT_S)
    for domain in ("northwire.example", "a.b.test", "x.invalid", "localhost"):
        result = lookup.lookup(item("a", domain=domain))
        assert result.status is LookupStatus.NOT_RUN and "reserved name" in result.detail
    assert lookup._reach.down() is None  # never tried


def test_rdap_asks_once_per_registered_domain() -> None:
    server = FakeServer()
    server.thread.start()
    try:
        body = b'{"events": [{"eventAction": "registration", "eventDate": "1995-08-14T04:00:00Z"}]}'
        server.reply("/domain/example.com", Reply(200, body, {"Content-Type": "application/rdap+json"}))
        lookup = RdapLookup(server.url("").rstrip("/"), timeout_s=2.0)
        results = [
            lookup.lookup(item(f"e{n}", domain=host))
            for n, host in enumerate(("example.com", "www.example.com", "news.example.com"))
        ]
        assert {r.status for r in results} == {LookupStatus.OK}
        assert server.hits("/domain/example.com") == 1
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def test_a_drift_page_under_a_reserved_name_is_not_fetched(tmp_path: Path) -> None:
    fetcher = SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None)
    lookup = DriftLookup(fetcher, SnapshotStore(tmp_path), min_chars=100)
    result = lookup.lookup(item("a", url="https://northwire.example/story"))
    assert result.status is LookupStatus.NOT_RUN and "reserved name" in result.detail


def test_drift_stops_asking_after_pages_in_a_row_cannot_be_reached(refused: str, tmp_path: Path) -> None:
    fetcher = SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None)
    lookup = DriftLookup(fetcher, SnapshotStore(tmp_path), min_chars=100, max_seconds=TIMEOUT_S)
    results = [lookup.lookup(item(f"e{n}", url=f"{refused}/story/{n}")) for n in range(MISSES_TO_HOLD + 2)]
    assert {r.status for r in results} == {LookupStatus.NOT_RUN}
    assert all(r.detail.startswith("page not reached") for r in results[:MISSES_TO_HOLD])
    assert all("evidence pages could not be reached" in r.detail for r in results[MISSES_TO_HOLD:])


def test_a_drift_page_that_never_answers_is_not_run_within_its_time(silent: str, tmp_path: Path) -> None:
    fetcher = SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None)
    lookup = DriftLookup(fetcher, SnapshotStore(tmp_path), min_chars=100, max_seconds=TIMEOUT_S)
    started = time.monotonic()
    result = lookup.lookup(item("a", url=f"{silent}/story"))
    assert result.status is LookupStatus.NOT_RUN and result.detail.startswith("page not reached")
    assert time.monotonic() - started < TIMEOUT_S * 4
