"""``provenance.public_suffix`` splits hosts as tldextract does (no private domains, bundled snapshot): on
every rule of the list, in several spellings, and on the edge cases of its lenient host parsing."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tldextract

from icarus.provenance.public_suffix import _PRIVATE_SECTION, _RULE, snapshot_path, split_host

EDGE_CASES = [
    "",
    ".",
    "localhost",
    "com",
    "example.com",
    "www.example.com.",
    "WWW.Example.CO.UK",
    "news.bbc.co.uk",
    "a.b.c.d.e.example.org",
    "192.168.0.1",
    "256.1.1.1",
    "1.2.3",
    "01.2.3.4",
    "[::1]",
    "[2001:db8::1]:8080",
    "[not-ipv6]",
    "user:pass@host.example.net:443",
    "https://forums.news.cnn.com/path?q=1#x",
    "//example.com/x",
    "ht!tp://example.com",
    "example.com:8080",
    "a..b.com",
    "xn--85x722f.xn--55qx5d.cn",
    "www.xn--85x722f.xn--55qx5d.cn",
    "xn--invalid-.com",
    "xn--.com",
    "公司.cn",
    "example。co。uk",
    "example．com",
    "city.kawasaki.jp",
    "a.city.kawasaki.jp",
    "b.kawasaki.jp",
    "x.b.kawasaki.jp",
    "kawasaki.jp",
    "foo.blogspot.com",
    "foo.github.io",
    "*.kawasaki.jp",
    "!city.kawasaki.jp",
    "example.ck",
    "www.ck",
    "a.www.ck",
]


@pytest.fixture(scope="module")
def reference() -> tldextract.TLDExtract:
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def _assert_same(reference: tldextract.TLDExtract, host: str) -> None:
    expected = reference(host)
    found = split_host(host)
    assert (found.subdomain, found.domain, found.suffix) == (
        expected.subdomain,
        expected.domain,
        expected.suffix,
    ), host
    assert found.top_domain_under_public_suffix == expected.top_domain_under_public_suffix, host


@pytest.mark.parametrize("host", EDGE_CASES)
def test_edge_cases_split_as_tldextract_splits_them(reference: tldextract.TLDExtract, host: str) -> None:
    _assert_same(reference, host)


def test_every_rule_splits_as_tldextract_splits_it(reference: tldextract.TLDExtract) -> None:
    text = snapshot_path().read_text(encoding="utf-8")
    rules = [m.group("suffix") for m in _RULE.finditer(text)]  # the private section too: not suffixes here
    assert len(rules) > 9000 and _PRIVATE_SECTION in text
    for rule in rules:
        name = rule.lstrip("!").replace("*", "wild")
        for host in (name, f"site.{name}", f"a.b.site.{name}", f"Site.{name.upper()}"):
            _assert_same(reference, host)


def test_splitting_does_not_import_tldextract() -> None:
    code = (
        "import sys; from icarus.provenance.public_suffix import split_host; "
        "assert split_host('news.bbc.co.uk').top_domain_under_public_suffix == 'bbc.co.uk'; "
        "assert 'tldextract' not in sys.modules and 'requests' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
