"""RDAP look-up (H10) against a local fake server with recorded replies: no test touches the internet."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from icarus.ledger import LookupName, LookupStatus
from icarus.lookups.rdap import RdapLookup
from tests.builders import item
from tests.fetching.conftest import FakeServer, Reply, server

__all__ = ["server"]

RECORDED = Path(__file__).parent / "recorded"
JSON = {"Content-Type": "application/rdap+json"}


def recorded(name: str) -> bytes:
    return (RECORDED / name).read_bytes()


@pytest.fixture
def rdap(server: FakeServer) -> RdapLookup:
    return RdapLookup(server.url(""), timeout_s=2.0)


def test_registration_date_from_recorded_reply(server: FakeServer, rdap: RdapLookup) -> None:
    server.reply("/domain/example.com", Reply(200, recorded("rdap_example_com.json"), JSON))
    result = rdap.lookup(item("a", domain="www.news.example.com"))  # asks for the registered domain
    assert result.name is LookupName.RDAP and result.status is LookupStatus.OK
    assert result.domain_created_at == datetime(1995, 8, 14, 4, 0, tzinfo=UTC)
    assert result.provider == rdap.provider
    assert server.hits("/domain/example.com") == 1


def test_404_is_ok_without_a_date(server: FakeServer, rdap: RdapLookup) -> None:
    server.reply("/domain/unknown.com", Reply(404, recorded("rdap_not_found.json"), JSON))
    result = rdap.lookup(item("a", domain="unknown.com"))
    assert result.status is LookupStatus.OK
    assert result.domain_created_at is None
    assert "no RDAP record" in result.detail


def test_http_500_is_an_error(server: FakeServer, rdap: RdapLookup) -> None:
    server.reply("/domain/example.com", Reply(500, b"oops", {"Content-Type": "text/plain"}))
    result = rdap.lookup(item("a", domain="example.com"))
    assert result.status is LookupStatus.ERROR
    assert "HTTP 500" in result.detail and result.domain_created_at is None


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"[1, 2]",
        b'{"events": "nope"}',
        b'{"events": [{"eventAction": "registration", "eventDate": "x"}]}',
    ],
)
def test_malformed_reply_is_an_error(server: FakeServer, rdap: RdapLookup, body: bytes) -> None:
    server.reply("/domain/example.com", Reply(200, body, JSON))
    result = rdap.lookup(item("a", domain="example.com"))
    assert result.status is LookupStatus.ERROR
    assert "malformed RDAP reply" in result.detail


def test_record_without_registration_event_is_ok_without_date(server: FakeServer, rdap: RdapLookup) -> None:
    server.reply("/domain/example.com", Reply(200, b'{"events": []}', JSON))
    result = rdap.lookup(item("a", domain="example.com"))
    assert result.status is LookupStatus.OK and result.domain_created_at is None


def test_a_service_that_refuses_connections_is_not_run_not_a_raise() -> None:
    dead = FakeServer()  # bound but never served, then closed: the port refuses connections
    url = dead.url("")
    dead.httpd.server_close()
    result = RdapLookup(url, timeout_s=1.0).lookup(item("a", domain="example.com"))
    assert result.status is LookupStatus.NOT_RUN
    assert "could not be reached: ConnectError" in result.detail


def test_an_oversized_reply_is_an_error_not_read_whole(server: FakeServer, rdap: RdapLookup) -> None:
    padding = b" " * (6 * 1024 * 1024)  # valid JSON whitespace: a reply read whole would parse
    body = (
        b'{"events": [{"eventAction": "registration", "eventDate": "1995-08-14T04:00:00Z"}]' + padding + b"}"
    )
    server.reply("/domain/example.com", Reply(200, body, JSON))
    result = rdap.lookup(item("a", domain="example.com"))
    assert result.status is LookupStatus.ERROR and "larger than" in result.detail
    assert result.domain_created_at is None
