"""Hosts split at their public suffix, as ``tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)`` splits
them, from the same bundled Public Suffix List snapshot, without importing tldextract.

Importing tldextract loads ``requests`` and ``filelock`` for its downloads, and its first split builds two
tries of the whole list: together about a tenth of a second of every ``icarus score`` and ``icarus check``,
for a lookup that needs neither. Here the ICANN section of the snapshot is read into a set, and the trie walk
that tldextract does without private domains is done on that set: a walk reaches a node when the labels read
so far (from the right) end some rule, and stops at a node that ends one. The same lenient host parsing,
IPv4 and IPv6 cases, punycode decoding, wildcard and exception rules give the same parts
(``tests/provenance/test_public_suffix.py`` compares both on every rule of the list).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from functools import cache
from ipaddress import AddressValueError, IPv6Address
from pathlib import Path
from urllib.parse import scheme_chars

__all__ = ["HostParts", "snapshot_path", "split_host"]

_SNAPSHOT = ".tld_set_snapshot"
_PRIVATE_SECTION = "// ===BEGIN PRIVATE DOMAINS==="
_RULE = re.compile(r"^(?P<suffix>[.*!]*\w[\S]*)", re.UNICODE | re.MULTILINE)
_IPV4 = re.compile(
    r"^(?:(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\.)"
    r"{3}(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])$",
    re.ASCII,
)
_SCHEME_CHARS = frozenset(scheme_chars)
_FULL_STOPS = ("\u3002", "\uff0e", "\uff61")  # ideographic and fullwidth full stops, read as dots


@dataclass(frozen=True, slots=True)
class HostParts:
    subdomain: str
    domain: str
    suffix: str

    @property
    def top_domain_under_public_suffix(self) -> str:
        """``domain.suffix`` when both are set, else empty (tldextract's property of that name)."""
        return f"{self.domain}.{self.suffix}" if self.suffix and self.domain else ""


def snapshot_path() -> Path:
    """tldextract's bundled list, found without running its package."""
    spec = importlib.util.find_spec("tldextract")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("tldextract, whose Public Suffix List snapshot is read, is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / _SNAPSHOT


@cache
def _rules() -> tuple[frozenset[str], frozenset[str]]:
    """The ICANN rules, and every rule's dot-aligned endings (the trie's nodes, as dotted names)."""
    public = snapshot_path().read_text(encoding="utf-8").partition(_PRIVATE_SECTION)[0]
    rules = frozenset(m.group("suffix") for m in _RULE.finditer(public))
    nodes: set[str] = set()
    for rule in rules:
        ending, dot = rule, "."
        while dot:
            nodes.add(ending)
            _, dot, ending = ending.partition(".")
    return rules, frozenset(nodes)


def _decoded(label: str) -> str:
    lowered = label.lower()
    if lowered.startswith("xn--"):
        import idna  # only punycode labels need it

        try:
            decoded: str = idna.decode(lowered)
            return decoded
        except (UnicodeError, IndexError):
            pass
    return lowered


def _suffix_start(labels: list[str]) -> int | None:
    """The index of the first label of the public suffix, or None if no rule matches."""
    rules, nodes = _rules()
    suffix_at = at = len(labels)
    reached = ""  # the labels read so far, as a dotted name
    for label in reversed(labels):
        decoded = _decoded(label)
        longer = f"{decoded}.{reached}" if reached else decoded
        if longer in nodes:
            at -= 1
            reached = longer
            if reached in rules:
                suffix_at = at
            continue
        if (f"*.{reached}" if reached else "*") in nodes:
            exception = f"!{decoded}.{reached}" if reached else f"!{decoded}"
            return at if exception in nodes else at - 1
        break
    return None if suffix_at == len(labels) else suffix_at


def _schemeless(url: str) -> str:
    double_slashes = url.find("//")
    if double_slashes == 0:
        return url[2:]
    if double_slashes < 2 or url[double_slashes - 1] != ":" or set(url[: double_slashes - 1]) - _SCHEME_CHARS:
        return url
    return url[double_slashes + 2 :]


def _host(url: str) -> str:
    authority = _schemeless(url).partition("/")[0].partition("?")[0].partition("#")[0]
    after_userinfo = authority.rpartition("@")[-1]
    if after_userinfo and after_userinfo[0] == "[":
        bracketed = after_userinfo.partition("]")
        if bracketed[1] == "]":
            return f"{bracketed[0]}]"
    return after_userinfo.partition(":")[0].strip().rstrip("." + "".join(_FULL_STOPS))


def _is_ipv6(text: str) -> bool:
    try:
        IPv6Address(text)
    except AddressValueError:
        return False
    return True


def split_host(url: str) -> HostParts:
    """Subdomain, domain and public suffix of a host (or of a URL's host), private domains not counted."""
    host = _host(url)
    for stop in _FULL_STOPS:
        host = host.replace(stop, ".")
    if len(host) >= 4 and host[0] == "[" and host[-1] == "]" and _is_ipv6(host[1:-1]):
        return HostParts("", host, "")
    labels = host.split(".")
    start = _suffix_start(labels)
    if start is None:
        if len(labels) == 4 and host[0].isdecimal() and _IPV4.fullmatch(host) is not None:
            return HostParts("", host, "")
        return HostParts(".".join(labels[:-1]), labels[-1], "")
    return HostParts(
        ".".join(labels[: start - 1]) if start >= 2 else "",
        labels[start - 1] if start > 0 else "",
        ".".join(labels[start:]),
    )
