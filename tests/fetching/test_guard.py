"""The SSRF guard on its own: no sockets, a table resolver."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence

import pytest

from icarus.fetching import BlockedURL, GuardPolicy, ResolutionFailed, URLGuard, address_block_reason
from icarus.fetching.guard import system_resolver
from tests.fetching.conftest import static_resolver


def never_resolve(host: str) -> Sequence[str]:
    raise AssertionError(f"the guard should have refused before resolving {host}")


def guard(table: Mapping[str, Sequence[str]] | None = None, **policy: object) -> URLGuard:
    resolver = static_resolver(table) if table is not None else never_resolve
    return URLGuard(GuardPolicy(**policy), resolver)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://127.8.9.10:8080/", "loopback"),
        ("http://10.1.2.3/", "private"),
        ("http://172.20.0.1/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://100.64.1.1/", "carrier-grade NAT"),
        ("http://169.254.10.1/", "link-local"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://255.255.255.255/", "reserved"),
        ("http://192.0.0.8/", "IETF"),
        ("http://198.18.0.1/", "benchmarking"),
        ("http://[::1]/", "loopback"),
        ("http://[::]/", "unspecified"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fd12:3456::1]/", "unique-local"),
        ("http://[fd00:ec2::254]/", "cloud metadata"),
        ("http://[ff02::1]/", "multicast"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped form of loopback"),
        ("http://[::ffff:a9fe:a9fe]/", "IPv4-mapped form of cloud metadata"),
        ("http://[::ffff:10.0.0.1]/", "IPv4-mapped form of private"),
        ("http://[2002:7f00:1::]/", "6to4 form of loopback"),
        ("http://[2002:a00:1::]/", "6to4 form of private"),
        ("http://[64:ff9b::a00:1]/", "NAT64 form of private"),
        ("http://[64:ff9b::a9fe:a9fe]/", "NAT64 form of cloud metadata"),
        ("http://[64:ff9b:1::1]/", "local-use NAT64"),
        ("http://[2001::1]/", "Teredo"),
        ("http://[::7f00:1]/", "IPv4-compatible"),
    ],
)
def test_non_public_address_literals_are_blocked(url: str, reason: str) -> None:
    with pytest.raises(BlockedURL) as caught:
        guard().check(url)
    assert reason in caught.value.reason
    assert caught.value.url == url


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.216.34/",
        "https://8.8.8.8/",
        "http://[2606:4700::1111]/",
        "http://[64:ff9b::808:808]/",  # NAT64 of a public address is judged as that address
        "http://[2002:808:808::1]/",  # 6to4 of a public address
        "http://1.1.1.1:8443/x",
    ],
)
def test_public_address_literals_pass(url: str) -> None:
    checked = guard().check(url)
    assert len(checked.addresses) == 1
    assert address_block_reason(checked.addresses[0]) is None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/file", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("gopher://example.com/", "scheme 'gopher'"),
        ("javascript:alert(1)", "scheme"),
        ("http://user:secret@example.com/", "userinfo"),
        ("http://user@example.com/", "userinfo"),
        ("http://example.com\\@127.0.0.1/", "backslash"),
        ("http://example.com/a b", "whitespace"),
        ("http://example.com:22/", "port 22"),
        ("http://example.com:6379/", "port 6379"),
        ("http://localhost/", "special-use"),
        ("http://LOCALHOST./", "special-use"),
        ("http://admin.localhost/", "special-use"),
        ("http://printer.local/", "special-use"),
        ("http://db.corp.internal/", "special-use"),
        ("http://metadata.google.internal/computeMetadata/v1/", "cloud metadata host"),
        ("http://metadata/", "cloud metadata host"),
        ("http://intranet/", "single-label"),
        ("http:///nohost", "no host"),
    ],
)
def test_unsafe_urls_are_blocked_with_a_named_reason(url: str, reason: str) -> None:
    table = {"example.com": ["93.184.216.34"]}
    with pytest.raises(BlockedURL) as caught:
        guard(table).check(url)
    assert reason in str(caught.value)


def test_allowed_ports() -> None:
    table = {"example.com": ["93.184.216.34"]}
    for port in (80, 443, 8080, 8443):
        assert guard(table).check(f"http://example.com:{port}/").port == port
    assert guard(table, allowed_ports=frozenset({9000})).check("http://example.com:9000/").port == 9000


def test_a_name_resolving_to_private_space_is_blocked() -> None:
    with pytest.raises(BlockedURL, match=r"internal\.example resolves to private address 10\.0\.0\.7"):
        guard({"internal.example": ["10.0.0.7"]}).check("https://internal.example/")


def test_any_private_answer_blocks_even_beside_public_ones() -> None:
    table = {"mixed.example": ["93.184.216.34", "2606:4700::1111", "192.168.0.10"]}
    with pytest.raises(BlockedURL, match=r"192\.168\.0\.10"):
        guard(table).check("http://mixed.example/")


def test_a_name_resolving_to_mapped_loopback_is_blocked() -> None:
    with pytest.raises(BlockedURL, match="IPv4-mapped form of loopback"):
        guard({"sneaky.example": ["::ffff:127.0.0.1"]}).check("http://sneaky.example/")


def test_zone_ids_from_the_resolver_do_not_hide_link_local() -> None:
    with pytest.raises(BlockedURL, match="link-local"):
        guard({"zoned.example": ["fe80::1%eth0"]}).check("http://zoned.example/")


def test_unresolvable_names_raise_resolution_failed() -> None:
    with pytest.raises(ResolutionFailed) as caught:
        guard({}).check("http://nowhere.example/")
    assert caught.value.url == "http://nowhere.example/"


def test_checked_url_keeps_all_addresses_and_the_host_header() -> None:
    table = {"news.example": ["93.184.216.34", "2606:4700::1111", "93.184.216.34"]}
    checked = guard(table).check("https://News.Example./story")
    assert checked.host == "news.example"
    assert checked.addresses == (
        ipaddress.ip_address("93.184.216.34"),
        ipaddress.ip_address("2606:4700::1111"),
    )
    assert checked.host_header == "news.example"
    assert guard(table).check("http://news.example:8080/").host_header == "news.example:8080"


def test_idna_host_is_resolved_in_ascii() -> None:
    checked = guard({"xn--bcher-kva.example": ["93.184.216.34"]}).check("http://bücher.example/")
    assert checked.host == "xn--bcher-kva.example"


def test_loopback_is_allowed_only_when_asked_and_on_any_port() -> None:
    with pytest.raises(BlockedURL):
        guard().check("http://127.0.0.1:54321/")
    policy = GuardPolicy().with_loopback()
    assert URLGuard(policy, never_resolve).check("http://127.0.0.1:54321/").port == 54321
    with pytest.raises(BlockedURL, match="private"):
        URLGuard(policy, never_resolve).check("http://10.0.0.1/")


def test_allowed_host_names_exempt_only_that_name() -> None:
    table = {"origin.test": ["127.0.0.1"]}
    g = guard(table, allowed_hosts=frozenset({"origin.test"}))
    assert g.check("http://origin.test:41000/").addresses == (ipaddress.ip_address("127.0.0.1"),)
    with pytest.raises(BlockedURL, match="loopback"):
        g.check("http://127.0.0.1:41000/")


def test_metadata_is_refused_even_when_allowlisted() -> None:
    g = guard(
        {"meta.test": ["169.254.169.254"]},
        allowed_networks=(ipaddress.ip_network("169.254.0.0/16"),),
        allowed_hosts=frozenset({"meta.test", "metadata.google.internal"}),
    )
    for url in ("http://169.254.169.254/", "http://meta.test/", "http://metadata.google.internal/"):
        with pytest.raises(BlockedURL, match="metadata"):
            g.check(url)


def test_overlong_urls_are_refused() -> None:
    with pytest.raises(BlockedURL, match="longer than"):
        guard().check("http://example.com/" + "a" * 9000)


def test_numeric_host_spellings_of_loopback_are_blocked() -> None:
    # Single-number forms are refused as single-label names; dotted short forms resolve (locally, by the
    # system resolver's number parsing, no network) to 127.0.0.1 and are refused as loopback.
    g = URLGuard(GuardPolicy(), system_resolver)
    for url in ("http://2130706433/", "http://0x7f000001/"):
        with pytest.raises(BlockedURL, match="single-label"):
            g.check(url)
    for url in ("http://127.1/", "http://0x7f.1/"):
        with pytest.raises(BlockedURL, match="loopback"):
            g.check(url)
