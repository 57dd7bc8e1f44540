"""SSRF guard: decide whether a URL may be fetched, and which addresses it may be fetched from.

The guard parses the URL the way httpx will, refuses anything but plain http(s) to an allowed port with no
userinfo, resolves the host and refuses the URL if *any* resolved address is not public. Checking every
address matters: a name that resolves to one public and one private address would otherwise let the
connection land on the private one. The fetcher then connects only to the addresses returned here (see
``SafeFetcher``), so a DNS answer that changes between check and connect cannot redirect the request.

Tests reach a local server through an explicit allowlist (``GuardPolicy.allowed_hosts`` or
``allowed_networks``); nothing is allowed by default, and cloud metadata endpoints are refused even when
allowlisted.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from icarus.fetching.errors import BlockedURL, ResolutionFailed

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_ALLOWED_PORTS",
    "LOOPBACK_NETWORKS",
    "CheckedURL",
    "GuardPolicy",
    "IPAddress",
    "IPNetwork",
    "Resolver",
    "URLGuard",
    "address_block_reason",
    "has_unsafe_characters",
    "system_resolver",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str], Sequence[str]]
"""Maps a host name to the address strings it resolves to (IPv4 or IPv6)."""

DEFAULT_ALLOWED_PORTS: frozenset[int] = frozenset({80, 443, 8080, 8443})
LOOPBACK_NETWORKS: tuple[IPNetwork, ...] = (
    ipaddress.ip_network("127.0.0.0/8"),
    ipaddress.ip_network("::1/128"),
)

# Instance-metadata services hand out cloud credentials: refused even when an allowlist would admit them.
_METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS IPv6 IMDS
        "100.100.100.200",  # Alibaba Cloud
    )
)
_METADATA_HOSTS: frozenset[str] = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"}
)
# Special-use names that never denote a public web site (RFC 6761, RFC 8375, ICANN .internal).
_PRIVATE_SUFFIXES: tuple[str, ...] = (".localhost", ".local", ".internal", ".home.arpa", ".localdomain")

# Named ranges, checked in order, so that a refusal says which range it fell in. Python's own
# ``is_global`` is the backstop below; it has had gaps across versions (e.g. 192.0.0.0/24 in 3.11).
_BLOCKED_RANGES: tuple[tuple[IPNetwork, str], ...] = tuple(
    (ipaddress.ip_network(net), why)
    for net, why in (
        ("0.0.0.0/8", "unspecified or 'this network' address"),
        ("10.0.0.0/8", "private address"),
        ("100.64.0.0/10", "shared carrier-grade NAT address (100.64/10)"),
        ("127.0.0.0/8", "loopback address"),
        ("169.254.0.0/16", "link-local address"),
        ("172.16.0.0/12", "private address"),
        ("192.0.0.0/24", "IETF protocol-assignment address"),
        ("192.0.2.0/24", "documentation address"),
        ("192.88.99.0/24", "6to4 relay anycast address"),
        ("192.168.0.0/16", "private address"),
        ("198.18.0.0/15", "benchmarking address"),
        ("198.51.100.0/24", "documentation address"),
        ("203.0.113.0/24", "documentation address"),
        ("224.0.0.0/4", "multicast address"),
        ("240.0.0.0/4", "reserved address"),
        ("::/128", "unspecified address"),
        ("::1/128", "loopback address"),
        ("::/96", "IPv4-compatible IPv6 address (deprecated)"),
        ("64:ff9b:1::/48", "local-use NAT64 address"),
        ("100::/64", "discard-only address"),
        ("2001::/23", "IETF protocol-assignment address (Teredo included)"),
        ("2001:db8::/32", "documentation address"),
        ("3fff::/20", "documentation address"),
        ("fc00::/7", "unique-local (private) address"),
        ("fe80::/10", "link-local address"),
        ("fec0::/10", "site-local address"),
        ("ff00::/8", "multicast address"),
    )
)
_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
_UNSAFE_URL_CHARS = re.compile(r"[\s\\\x00-\x1f\x7f]")


def has_unsafe_characters(url: str) -> bool:
    """Whitespace, control characters or backslashes: the guard refuses such a URL before parsing it."""
    return _UNSAFE_URL_CHARS.search(url) is not None


def address_block_reason(address: IPAddress) -> str | None:
    """Why this address may not be fetched from, or None when it is a public unicast address.

    IPv6 forms that carry an IPv4 address (IPv4-mapped, 6to4, NAT64) are judged by the IPv4 address they
    carry, so ``::ffff:127.0.0.1`` is refused as loopback and ``64:ff9b::808:808`` is allowed like 8.8.8.8.
    """
    if address in _METADATA_ADDRESSES:
        return f"cloud metadata endpoint {address}"
    if isinstance(address, ipaddress.IPv6Address):
        address = ipaddress.IPv6Address(int(address))  # drop any %scope
        embedded: ipaddress.IPv4Address | None = None
        form = ""
        if address.ipv4_mapped is not None:
            embedded, form = address.ipv4_mapped, "IPv4-mapped"
        elif address.sixtofour is not None:
            embedded, form = address.sixtofour, "6to4"
        elif address in _NAT64_WELL_KNOWN:
            embedded, form = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "NAT64"
        if embedded is not None:
            inner = address_block_reason(embedded)
            return f"{form} form of {inner}" if inner else None
    for network, why in _BLOCKED_RANGES:
        if address.version == network.version and address in network:
            return f"{why} {address}"
    if address.is_multicast:
        return f"multicast address {address}"
    if address.is_loopback or address.is_link_local or address.is_private:
        return f"non-public address {address}"
    if address.is_reserved or address.is_unspecified or not address.is_global:
        return f"reserved or not globally routable address {address}"
    return None


def system_resolver(host: str) -> list[str]:
    """Every address the system resolver returns for ``host`` (TCP), deduplicated, in answer order."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise ResolutionFailed(f"cannot resolve host {host!r}: {exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class GuardPolicy:
    """What the guard lets through beyond public addresses on the usual web ports.

    ``allowed_hosts`` (exact host names) and ``allowed_networks`` exempt a destination from the address
    checks and the port rule; both are empty by default and exist for tests and deliberate internal
    deployments. Cloud metadata endpoints stay refused whatever these say.
    """

    allowed_ports: frozenset[int] = DEFAULT_ALLOWED_PORTS
    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()
    max_url_length: int = 8192

    def with_loopback(self) -> GuardPolicy:
        """This policy plus 127.0.0.0/8 and ::1: for tests against a local server only."""
        return GuardPolicy(
            allowed_ports=self.allowed_ports,
            allowed_hosts=self.allowed_hosts,
            allowed_networks=(*self.allowed_networks, *LOOPBACK_NETWORKS),
            max_url_length=self.max_url_length,
        )


@dataclass(frozen=True)
class CheckedURL:
    """A URL the guard accepted, with the addresses a connection may use (all of them checked)."""

    url: httpx.URL
    host: str
    """ASCII (IDNA) host name or IP literal, lowercased, without a trailing dot or brackets."""
    port: int
    addresses: tuple[IPAddress, ...]

    @property
    def host_header(self) -> str:
        """The Host header value: the original name, with the port when it is not the scheme's default."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.url.scheme == "https" else 80
        return shown if self.port == default else f"{shown}:{self.port}"

    @property
    def is_ip_literal(self) -> bool:
        return _parse_ip(self.host) is not None


@dataclass(frozen=True)
class URLGuard:
    """Checks URLs against a ``GuardPolicy`` using an injectable resolver (default: the system's)."""

    policy: GuardPolicy = field(default_factory=GuardPolicy)
    resolver: Resolver = system_resolver

    def check(self, url: str | httpx.URL) -> CheckedURL:
        """Accept the URL and return the addresses to connect to, or raise ``BlockedURL`` naming why.

        A host that does not resolve raises ``ResolutionFailed``.
        """
        import httpx  # here, not above: a check that reads no link never needs it (fetching.fetch)

        text = str(url)
        if len(text) > self.policy.max_url_length:
            raise BlockedURL(f"URL longer than {self.policy.max_url_length} characters", url=text[:200])
        if has_unsafe_characters(text):
            raise BlockedURL("URL contains whitespace, control characters or backslashes", url=text)
        try:
            parsed = url if isinstance(url, httpx.URL) else httpx.URL(text)
            raw_host = parsed.raw_host.decode("ascii")
        except (httpx.InvalidURL, UnicodeError, ValueError) as exc:
            raise BlockedURL(f"unparseable URL: {exc}", url=text) from exc
        if parsed.scheme not in ("http", "https"):
            raise BlockedURL(f"scheme {parsed.scheme or '(none)'!r} is not http or https", url=text)
        if parsed.userinfo:
            raise BlockedURL("credentials (userinfo) in the URL", url=text)
        host = raw_host.strip("[]").rstrip(".").lower()
        if not host:
            raise BlockedURL("URL has no host", url=text)
        port = parsed.port or (443 if parsed.scheme == "https" else 80)

        literal = _parse_ip(host)
        if literal is None:
            self._check_host_name(host, text)
        exempt_name = literal is None and host in self.policy.allowed_hosts
        port_ok = port in self.policy.allowed_ports

        if literal is not None:
            addresses: tuple[IPAddress, ...] = (literal,)
        else:
            try:
                resolved = self.resolver(host)
            except ResolutionFailed as exc:
                raise ResolutionFailed(exc.message, url=text) from exc
            except OSError as exc:
                raise ResolutionFailed(f"cannot resolve host {host!r}: {exc}", url=text) from exc
            addresses = tuple(dict.fromkeys(_address_from_answer(a, host, text) for a in resolved))
            if not addresses:
                raise ResolutionFailed(f"host {host!r} resolved to no addresses", url=text)

        for address in addresses:
            if address in _METADATA_ADDRESSES:
                raise BlockedURL(f"cloud metadata endpoint {address}", url=text)
        allowlisted = exempt_name or all(self._in_allowed_network(a) for a in addresses)
        if not allowlisted:
            for address in addresses:
                reason = address_block_reason(address)
                if reason is not None:
                    shown = "" if literal is not None else f"{host} resolves to "
                    raise BlockedURL(shown + reason, url=text)
            if not port_ok:
                raise BlockedURL(
                    f"port {port} is not allowed (allowed: {sorted(self.policy.allowed_ports)})", url=text
                )
        return CheckedURL(url=parsed, host=host, port=port, addresses=addresses)

    def _check_host_name(self, host: str, text: str) -> None:
        if host in _METADATA_HOSTS:
            raise BlockedURL(f"cloud metadata host {host}", url=text)
        if host in self.policy.allowed_hosts:
            return
        if host in ("localhost", "localhost.localdomain") or host.endswith(_PRIVATE_SUFFIXES):
            raise BlockedURL(f"special-use host name {host}", url=text)
        if "." not in host:
            raise BlockedURL(f"single-label host name {host!r} (intranet names are not fetched)", url=text)

    def _in_allowed_network(self, address: IPAddress) -> bool:
        return any(address.version == net.version and address in net for net in self.policy.allowed_networks)


def _parse_ip(host: str) -> IPAddress | None:
    try:
        # A zone (fe80::1%eth0) never makes an address public; judge the address without it.
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None


def _address_from_answer(answer: str, host: str, url: str) -> IPAddress:
    parsed = _parse_ip(answer)
    if parsed is None:
        raise ResolutionFailed(f"resolver returned a non-address {answer!r} for {host!r}", url=url)
    return parsed
