"""SafeFetcher against a local server on 127.0.0.1, on fake time. No test touches the internet."""

from __future__ import annotations

import gzip
import hashlib
import re
import socket
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from icarus.fetching import (
    BadStatus,
    BlockedURL,
    BodyTooLarge,
    BudgetExceeded,
    ConnectFailed,
    DecodingFailed,
    DecompressionBomb,
    FetchBudget,
    FetchError,
    FetchLimits,
    FetchTimeout,
    GuardPolicy,
    SafeFetcher,
    TooManyRedirects,
    UnsupportedContentType,
    UnsupportedEncoding,
)
from tests.fetching.conftest import TEST_LIMITS, FakeServer, FakeTime, Reply, static_resolver

MakeFetcher = Callable[..., SafeFetcher]
PAGE = "<html><head><title>ok</title></head><body><p>Hello from the fake server.</p></body></html>"


def only_first_hop(host: str, **kwargs: object) -> dict[str, object]:
    """A fetcher set-up where ``host`` (resolving to 127.0.0.1) is the only thing allowed to be local."""
    return {
        "policy": GuardPolicy(allowed_hosts=frozenset({host})),
        "resolver": static_resolver({host: ["127.0.0.1"], "evil.test": ["10.0.0.7"]}),
        "allow_loopback_for_tests": False,
        **kwargs,
    }


def test_fetch_returns_body_hash_and_metadata(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.html("/page", PAGE)
    fixed = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    result = make_fetcher(now=lambda: fixed).fetch(server.url("/page"))
    assert result.status == 200
    assert result.body == PAGE.encode()
    assert result.sha256 == hashlib.sha256(PAGE.encode()).hexdigest()
    assert result.ref == f"sha256:{result.sha256}"
    assert result.media_type == "text/html"
    assert result.content_type == "text/html; charset=utf-8"
    assert result.final_url == result.url == server.url("/page")
    assert result.redirects == ()
    assert result.fetched_at == fixed
    assert result.address == "127.0.0.1"
    seen = server.requests[-1].headers
    assert seen["user-agent"] == "IcarusTest/1"
    assert seen["host"] == f"127.0.0.1:{server.port}"
    assert "br" not in seen["accept-encoding"]


def test_loopback_is_refused_by_default(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.html("/page", PAGE)
    with pytest.raises(BlockedURL, match="loopback"):
        make_fetcher(allow_loopback_for_tests=False).fetch(server.url("/page"))
    assert server.requests == []


def test_connection_goes_to_the_checked_address_with_the_name_in_host(
    server: FakeServer, make_fetcher: MakeFetcher
) -> None:
    server.html("/story", PAGE)
    fetcher = make_fetcher(**only_first_hop("news.test"))
    result = fetcher.fetch(server.url("/story", host="news.test"))
    assert result.address == "127.0.0.1"
    assert server.requests[-1].headers["host"] == f"news.test:{server.port}"


def test_redirect_to_loopback_is_refused_when_only_the_first_hop_is_allowed(
    server: FakeServer, make_fetcher: MakeFetcher
) -> None:
    server.redirect("/start", server.url("/secret"))
    server.html("/secret", "internal admin page")
    fetcher = make_fetcher(**only_first_hop("origin.test"))
    with pytest.raises(BlockedURL, match="loopback") as caught:
        fetcher.fetch(server.url("/start", host="origin.test"))
    assert caught.value.url == server.url("/secret")
    assert server.hits("/start") == 1
    assert server.hits("/secret") == 0


def test_redirect_to_cloud_metadata_is_refused(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.redirect("/start", "http://169.254.169.254/latest/meta-data/iam/security-credentials/")
    with pytest.raises(BlockedURL, match="cloud metadata"):
        make_fetcher().fetch(server.url("/start"))


def test_redirect_to_a_name_in_private_space_is_refused(
    server: FakeServer, make_fetcher: MakeFetcher
) -> None:
    server.redirect("/start", "http://evil.test/")
    with pytest.raises(BlockedURL, match=r"evil\.test resolves to private address 10\.0\.0\.7"):
        make_fetcher(**only_first_hop("origin.test")).fetch(server.url("/start", host="origin.test"))


def test_redirect_to_another_scheme_is_refused(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.redirect("/start", "file:///etc/passwd")
    with pytest.raises(BlockedURL, match="scheme 'file'"):
        make_fetcher().fetch(server.url("/start"))


def test_every_hop_is_resolved_again(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    # DNS rebinding across a redirect: the same name answers 127.0.0.1, then a private address.
    answers = iter([["127.0.0.1"], ["10.0.0.1"]])
    server.redirect("/a", "/b")
    server.html("/b", PAGE)
    fetcher = make_fetcher(resolver=lambda host: next(answers))
    with pytest.raises(BlockedURL, match=r"10\.0\.0\.1"):
        fetcher.fetch(server.url("/a", host="flip.example"))
    assert server.hits("/b") == 0


def test_redirects_are_followed_and_recorded(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.redirect("/r1", server.url("/r2"), status=301)
    server.redirect("/r2", "/final?x=1", status=308)
    server.html("/final", PAGE)
    result = make_fetcher().fetch(server.url("/r1"))
    assert result.final_url == server.url("/final?x=1")
    assert result.redirects == (server.url("/r1"), server.url("/r2"))
    assert result.body == PAGE.encode()


def test_too_many_redirects(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.redirect("/loop", "/loop")
    with pytest.raises(TooManyRedirects, match="more than 3 redirects"):
        make_fetcher().fetch(server.url("/loop"))
    assert server.hits("/loop") == 4


def test_redirect_without_location_is_an_error(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.reply("/r", Reply(302, b"", {"Content-Type": "text/html"}))
    with pytest.raises(BadStatus, match="without a Location"):
        make_fetcher().fetch(server.url("/r"))


def test_declared_oversized_body_is_refused(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.html("/big", b"x" * (TEST_LIMITS.max_bytes + 1))
    with pytest.raises(BodyTooLarge, match="declared body"):
        make_fetcher().fetch(server.url("/big"))


def test_streamed_oversized_body_is_aborted(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    sent: list[int] = []

    def endless() -> Iterator[bytes]:
        for _ in range(100_000):  # 6.4 GB if nobody stopped it
            sent.append(1)
            yield b"y" * 65536

    server.reply("/stream", Reply(200, b"", {"Content-Type": "text/plain"}, chunks=endless()))
    with pytest.raises(BodyTooLarge, match="transfer aborted"):
        make_fetcher().fetch(server.url("/stream"))
    time.sleep(0.05)
    assert len(sent) < 1000  # the client hung up long before the end


def test_gzip_bomb_is_aborted(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    bomb = gzip.compress(b"\0" * 16 * 1024 * 1024)  # 16 MiB of zeros in about 16 KB
    assert len(bomb) < TEST_LIMITS.max_bytes
    server.reply("/bomb", Reply(200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip"}))
    with pytest.raises(DecompressionBomb, match="decoded gzip body exceeds 1048576 bytes"):
        make_fetcher().fetch(server.url("/bomb"))


def test_deflate_bomb_is_aborted(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    raw = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    bomb = raw.compress(b"\0" * 16 * 1024 * 1024) + raw.flush()
    server.reply("/bomb", Reply(200, bomb, {"Content-Type": "text/html", "Content-Encoding": "deflate"}))
    with pytest.raises(DecompressionBomb):
        make_fetcher().fetch(server.url("/bomb"))


def test_stacked_gzip_bomb_is_aborted(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    bomb = gzip.compress(gzip.compress(b"\0" * 8 * 1024 * 1024))  # about 200 bytes on the wire
    server.reply("/bomb", Reply(200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip, gzip"}))
    with pytest.raises(DecompressionBomb):
        make_fetcher().fetch(server.url("/bomb"))


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the standard says
        ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw, as many servers send it
        ("gzip", lambda b: gzip.compress(b[:10]) + gzip.compress(b[10:]) + b"\0\0\0"),  # two members
        ("identity", lambda b: b),
    ],
)
def test_compressed_bodies_are_decoded(
    server: FakeServer, make_fetcher: MakeFetcher, encoding: str, encode: Callable[[bytes], bytes]
) -> None:
    body = (PAGE * 200).encode()
    server.reply("/z", Reply(200, encode(body), {"Content-Type": "text/html", "Content-Encoding": encoding}))
    result = make_fetcher().fetch(server.url("/z"))
    assert result.body == body
    assert result.sha256 == hashlib.sha256(body).hexdigest()


def test_truncated_gzip_is_a_decoding_error(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.reply(
        "/z",
        Reply(
            200, gzip.compress(PAGE.encode())[:-12], {"Content-Type": "text/html", "Content-Encoding": "gzip"}
        ),
    )
    with pytest.raises(DecodingFailed, match="truncated gzip"):
        make_fetcher().fetch(server.url("/z"))


def test_corrupt_gzip_is_a_decoding_error(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.reply(
        "/z",
        Reply(200, b"\x1f\x8bnot really gzip", {"Content-Type": "text/html", "Content-Encoding": "gzip"}),
    )
    with pytest.raises(DecodingFailed, match="corrupt gzip"):
        make_fetcher().fetch(server.url("/z"))


@pytest.mark.parametrize("encoding", ["br", "zstd", "compress", "gzip, gzip, gzip"])
def test_unadvertised_encodings_are_refused(
    server: FakeServer, make_fetcher: MakeFetcher, encoding: str
) -> None:
    server.reply("/z", Reply(200, b"\x00\x01", {"Content-Type": "text/html", "Content-Encoding": encoding}))
    with pytest.raises(UnsupportedEncoding):
        make_fetcher().fetch(server.url("/z"))


@pytest.mark.parametrize(
    "content_type",
    ["application/octet-stream", "application/x-msdownload", "text/javascript", "image/svg+xml"],
)
def test_disallowed_content_type_is_refused(
    server: FakeServer, make_fetcher: MakeFetcher, content_type: str
) -> None:
    server.reply("/f", Reply(200, b"MZ...", {"Content-Type": content_type}))
    with pytest.raises(
        UnsupportedContentType, match=re.escape(f"content type '{content_type}' is not allowed")
    ):
        make_fetcher().fetch(server.url("/f"))


def test_missing_content_type_is_refused(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.reply("/f", Reply(200, b"???", {}))
    with pytest.raises(UnsupportedContentType, match="missing"):
        make_fetcher().fetch(server.url("/f"))


def test_allowed_types_pass_with_parameters(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.reply("/p", Reply(200, b"%PDF-1.4", {"Content-Type": "Application/PDF; name=x.pdf"}))
    assert make_fetcher().fetch(server.url("/p")).media_type == "application/pdf"


def test_accept_narrows_the_allowlist(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.html("/page", PAGE)
    with pytest.raises(UnsupportedContentType):
        make_fetcher().fetch(server.url("/page"), accept=["application/json"])


def test_retries_on_503_then_succeeds(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    busy = Reply(503, b"busy", {"Content-Type": "text/plain"})
    server.reply("/flaky", busy, busy, Reply(200, PAGE.encode()))
    result = make_fetcher().fetch(server.url("/flaky"))
    assert result.body == PAGE.encode()
    assert server.hits("/flaky") == 3
    assert fake_time.sleeps == [0.5, 1.0]  # exponential backoff


def test_gives_up_after_the_configured_retries(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    server.reply("/down", Reply(502, b"", {"Content-Type": "text/plain"}))
    with pytest.raises(BadStatus, match="gave up after 3 attempts") as caught:
        make_fetcher().fetch(server.url("/down"))
    assert caught.value.status == 502
    assert server.hits("/down") == 3


def test_client_errors_are_not_retried(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    with pytest.raises(BadStatus, match="HTTP 404") as caught:
        make_fetcher().fetch(server.url("/missing"))
    assert caught.value.status == 404
    assert server.hits("/missing") == 1
    assert fake_time.sleeps == []


def test_retry_after_seconds_is_honoured(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    server.reply(
        "/limited",
        Reply(429, b"slow down", {"Content-Type": "text/plain", "Retry-After": "7"}),
        Reply(200, PAGE.encode()),
    )
    assert make_fetcher().fetch(server.url("/limited")).status == 200
    assert fake_time.sleeps == [7.0]


def test_retry_after_http_date_is_honoured(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    now = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=12), usegmt=True)
    server.reply(
        "/limited",
        Reply(503, b"", {"Content-Type": "text/plain", "Retry-After": later}),
        Reply(200, PAGE.encode()),
    )
    assert make_fetcher(now=lambda: now).fetch(server.url("/limited")).status == 200
    assert fake_time.sleeps == [12.0]


def test_retry_after_beyond_the_cap_fails_instead_of_retrying_early(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    server.reply("/limited", Reply(429, b"", {"Content-Type": "text/plain", "Retry-After": "3600"}))
    with pytest.raises(BadStatus, match="retry after 3600 s") as caught:
        make_fetcher().fetch(server.url("/limited"))
    assert caught.value.status == 429
    assert server.hits("/limited") == 1
    assert fake_time.sleeps == []


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_connect_errors_are_retried_then_reported(make_fetcher: MakeFetcher, fake_time: FakeTime) -> None:
    with pytest.raises(ConnectFailed, match="gave up after 3 attempts"):
        make_fetcher().fetch(f"http://127.0.0.1:{closed_port()}/")
    assert fake_time.sleeps == [0.5, 1.0]


def test_slow_server_times_out(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    def slow() -> Reply:
        time.sleep(1.5)
        return Reply(200, PAGE.encode())

    server.routes["/slow"] = slow
    limits = FetchLimits(**{**TEST_LIMITS.__dict__, "timeout_s": 0.3, "retries": 0})
    with pytest.raises(FetchTimeout):
        make_fetcher(limits=limits).fetch(server.url("/slow"))


def test_rate_limit_spaces_requests_per_host(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    server.html("/page", PAGE)
    limits = FetchLimits(**{**TEST_LIMITS.__dict__, "min_host_interval_s": 2.0})
    fetcher = make_fetcher(
        limits=limits,
        policy=GuardPolicy(allowed_hosts=frozenset({"a.test", "b.test"})),
        resolver=static_resolver({"a.test": ["127.0.0.1"], "b.test": ["127.0.0.1"]}),
    )
    fetcher.fetch(server.url("/page", host="a.test"))  # first contact: no wait
    fetcher.fetch(server.url("/page", host="a.test"))  # 2 s after the first
    fetcher.fetch(server.url("/page", host="b.test"))  # another host: no wait
    fetcher.fetch(server.url("/page", host="a.test"))  # 2 s after the second
    assert fake_time.sleeps == [2.0, 2.0]


def test_budget_limits_the_number_of_fetches(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    server.html("/page", PAGE)
    budget = FetchBudget(max_fetches=2, max_seconds=60, clock=fake_time.clock)
    fetcher = make_fetcher()
    fetcher.fetch(server.url("/page"), budget=budget)
    fetcher.fetch(server.url("/page"), budget=budget)
    with pytest.raises(BudgetExceeded, match="all 2 fetches used"):
        fetcher.fetch(server.url("/page"), budget=budget)
    assert server.hits("/page") == 2
    assert budget.fetches_used == 2


def test_budget_limits_wall_clock_time(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    server.html("/page", PAGE)
    budget = FetchBudget(max_fetches=10, max_seconds=5.0, clock=fake_time.clock)
    fetcher = make_fetcher()
    fetcher.fetch(server.url("/page"), budget=budget)
    fake_time.now += 6
    with pytest.raises(BudgetExceeded, match="time budget spent"):
        fetcher.fetch(server.url("/page"), budget=budget)


def test_budget_refuses_a_retry_wait_it_cannot_afford(
    server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    server.reply("/limited", Reply(503, b"", {"Content-Type": "text/plain", "Retry-After": "20"}))
    budget = FetchBudget(max_fetches=10, max_seconds=10.0, clock=fake_time.clock)
    with pytest.raises(BudgetExceeded, match=r"needed 20\.0 s more"):
        make_fetcher().fetch(server.url("/limited"), budget=budget)
    assert fake_time.sleeps == []


def test_cookies_are_never_sent_back(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.reply(
        "/c", Reply(200, PAGE.encode(), {"Content-Type": "text/html", "Set-Cookie": "session=abc; Path=/"})
    )
    fetcher = make_fetcher()
    fetcher.fetch(server.url("/c"))
    fetcher.fetch(server.url("/c"))
    assert all("cookie" not in r.headers for r in server.requests)


def test_every_failure_is_a_fetch_error(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    server.reply("/f", Reply(200, b"x", {"Content-Type": "application/zip"}))
    failures = [
        "http://user:pw@example.com/",
        "not a url at all",
        "http://[::1/",
        server.url("/f"),
        f"http://127.0.0.1:{closed_port()}/",
    ]
    fetcher = make_fetcher(limits=FetchLimits(**{**TEST_LIMITS.__dict__, "retries": 0}))
    for url in failures:
        with pytest.raises(FetchError) as caught:
            fetcher.fetch(url)
        assert str(caught.value)
