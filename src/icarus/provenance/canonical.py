"""H1: canonical URLs, so that one document reached by several addresses is counted once.

A page can be reached over http or https, through ``www.``/``m.``/``amp.`` hosts (``en.m.`` too), with
tracking parameters, as an AMP or print rendition, through an AMP cache (``*.cdn.ampproject.org``,
``google.*/amp/s/``), or with a fragment. ``canonical_url`` folds all of those to one string. A post on X is
its status number, whatever handle, case or trailing view its address shows: ``https://x.com/i/status/N``.
``item_canonical_url`` also honours the page's own ``rel=canonical`` and ``og:url`` declarations, but only
when they stay on the page's registered domain: a page cannot claim to be another site's document.

Registered domains come from tldextract's bundled public-suffix snapshot, read by ``provenance.public_suffix``;
nothing goes to the network or keeps a cache on disk.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from icarus.ledger.evidence import EvidenceItem
from icarus.provenance.public_suffix import HostParts, split_host

__all__ = [
    "canonical_url",
    "find_duplicates",
    "item_canonical_url",
    "registered_domain",
]

# Host labels that only select a rendition of the same site.
_RENDITION_HOST_LABELS = re.compile(r"^(?:www\d*|m|mobile|amp)$")
_MOBILE_HOST_LABEL = re.compile(r"^(?:m|mobile)$")

# Query keys that identify a campaign, click or referrer, never the document. Compared lower-cased.
_TRACKING_KEYS = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "msclkid",
        "yclid",
        "twclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "ref",
        "ref_src",
        "ref_url",
        "referrer",
        "cmpid",
        "cmp",
        "ocid",
        "smid",
        "smtyp",
        "sr_share",
        "share",
        "spm",
        "s_cid",
        "ito",
        "_ga",
        "_gl",
        "mbid",
        "rss",
        "taid",
        "__twitter_impression",
        "amp",
        "outputtype",
        "print",
        "view",
        "output",
    }
)
_TRACKING_PREFIXES = ("utm_", "at_", "pk_", "mtm_", "hsa_", "vero_", "oly_", "amp_")  # amp_: AMP viewer state

# Keys above whose value must show a rendition before they are dropped: ``view=list`` is content.
_RENDITION_VALUES: Mapping[str, frozenset[str]] = {
    "outputtype": frozenset({"amp"}),
    "output": frozenset({"amp", "print"}),
    "view": frozenset({"print", "amp"}),
    "print": frozenset({"", "1", "true", "yes", "y"}),
    "amp": frozenset({"", "1", "true", "yes", "y"}),
}

# One site under two names.
_HOST_ALIASES: Mapping[str, str] = {"twitter.com": "x.com"}
# Share-tracking keys that are only tracking on these hosts (``s`` is a search query elsewhere).
_HOST_TRACKING_KEYS: Mapping[str, frozenset[str]] = {"x.com": frozenset({"s", "t"})}

_DEFAULT_PORTS = {"http": 80, "https": 443}
_RENDITION_SEGMENTS = frozenset({"amp", "print"})

# A post on X is its status number: the handle (any case, or none in /i/web/status/N) and trailing views
# such as /photo/1 name the same post, so all of them fold to one spelling.
_X_POST_PATH = re.compile(r"^/(?:i(?:/web)?|[A-Za-z0-9_]{1,15})/status(?:es)?/(?P<id>\d+)(?:/.*)?$")
# AMP caches that wrap another site's page: <name>.cdn.ampproject.org/c/s/<host>/<path> (c: content,
# v: viewer, i: image; s: https) and www.google.<tld>/amp/s/<host>/<path>.
_AMP_CACHE_PATH = re.compile(r"^/[cvi]/(?P<secure>s/)?(?P<rest>[^/]+\..+)$")
_GOOGLE_AMP_PATH = re.compile(r"^/amp/(?P<secure>s/)?(?P<rest>[^/]+\..+)$")


@lru_cache(maxsize=1 << 16)
def _split_host(host: str) -> HostParts:
    # Shared by the two readers below: an item's domain and its URL's host are usually the same string.
    return split_host(host)


@lru_cache(maxsize=1 << 16)
def registered_domain(host: str) -> str:
    """The registrable domain of ``host`` (``news.bbc.co.uk`` -> ``bbc.co.uk``); the host itself if none."""
    host = host.lower().rstrip(".")
    result = _split_host(host)
    return result.top_domain_under_public_suffix or host


@lru_cache(maxsize=1 << 16)
def _strip_rendition_host(host: str) -> str:
    result = _split_host(host)
    if not result.top_domain_under_public_suffix:
        # Not under a known public suffix (an intranet or test host): keep at least two labels.
        labels = host.split(".")
        while len(labels) > 2 and _RENDITION_HOST_LABELS.match(labels[0]):
            labels.pop(0)
        return ".".join(labels)
    labels = result.subdomain.split(".") if result.subdomain else []
    while labels and _RENDITION_HOST_LABELS.match(labels[0]):
        labels.pop(0)
    # A mobile label just before the site's name also selects a rendition: en.m.wikipedia.org.
    while labels and _MOBILE_HOST_LABEL.match(labels[-1]):
        labels.pop()
    registered = result.top_domain_under_public_suffix
    return ".".join([*labels, _HOST_ALIASES.get(registered, registered)])


def _drop_query_pair(host: str, key: str, value: str) -> bool:
    lowered = key.lower()
    if lowered.startswith(_TRACKING_PREFIXES) or lowered in _HOST_TRACKING_KEYS.get(host, ()):
        return True
    if lowered not in _TRACKING_KEYS:
        return False
    renditions = _RENDITION_VALUES.get(lowered)
    return renditions is None or value.lower() in renditions


def _canonical_path(path: str) -> str:
    # Re-quote so that %7E and ~ (and other equivalent spellings) compare equal.
    path = quote(unquote(path), safe="/:@!$&'()*+,;=-._~")
    path = re.sub(r"/{2,}", "/", path)
    path = re.sub(r"\.amp\.html?$", ".html", path)
    path = re.sub(r"(?<=[^/])\.amp$", "", path)  # /a/story.amp
    segments = [segment for segment in path.split("/") if segment]
    # AMP and print renditions as a trailing segment (/story/amp) or a leading one (/amp/story).
    while segments and segments[-1].lower() in _RENDITION_SEGMENTS:
        segments.pop()
    while len(segments) > 1 and segments[0].lower() in _RENDITION_SEGMENTS:
        segments.pop(0)
    return "/" + "/".join(segments) if segments else ""


def _unwrapped_amp_cache(host: str, path: str) -> str | None:
    """The address an AMP cache URL serves, or None if ``host`` is not such a cache."""
    if host.endswith(".cdn.ampproject.org"):
        found = _AMP_CACHE_PATH.match(path)
    elif registered_domain(host).split(".")[0] == "google":
        found = _GOOGLE_AMP_PATH.match(path)
    else:
        return None
    if found is None:
        return None
    return ("https://" if found.group("secure") else "http://") + found.group("rest")


def canonical_url(url: str) -> str:
    """Fold one address to its canonical spelling (H1).

    http and https are treated as one document, since a scheme change never changes what was published.
    Strings that are not http(s) URLs are returned trimmed and otherwise untouched.
    """
    stripped = url.strip()
    try:
        parts = urlsplit(stripped)
        port = parts.port
    except ValueError:
        return stripped
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return stripped
    wrapped = _unwrapped_amp_cache(parts.hostname.lower().rstrip("."), parts.path)
    if wrapped is not None:
        return canonical_url(wrapped + (f"?{parts.query}" if parts.query else ""))
    host = _strip_rendition_host(parts.hostname.lower().rstrip("."))
    if host == "x.com" and (post := _X_POST_PATH.match(parts.path)) is not None:
        return f"https://x.com/i/status/{post.group('id')}"
    pairs = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if not _drop_query_pair(host, key, value)
    ]
    if port is not None and port not in _DEFAULT_PORTS.values():
        host = f"{host}:{port}"
    query = urlencode(sorted(pairs))
    path = _canonical_path(parts.path)
    return f"https://{host}{path}" + (f"?{query}" if query else "")


def _host_of(url: str) -> str | None:
    try:
        return urlsplit(url.strip()).hostname
    except ValueError:
        return None


def item_canonical_url(item: EvidenceItem) -> str:
    """The item's canonical URL: its ``rel_canonical``, else its ``og_url``, else its own URL.

    A declared canonical is trusted only on the same registered domain as the URL it was fetched from.
    """
    own_host = _host_of(item.url) if item.rel_canonical or item.og_url else None
    for declared in (item.rel_canonical, item.og_url):
        if not declared:
            continue
        declared_host = _host_of(declared)
        if own_host and declared_host and registered_domain(declared_host) == registered_domain(own_host):
            return canonical_url(declared)
    return canonical_url(item.url)


def find_duplicates(evidence: Sequence[EvidenceItem], canonical_urls: Mapping[str, str]) -> dict[str, str]:
    """Later id -> first id (by sorted id) for items with an equal canonical URL or equal content hash."""
    first_by_key: dict[tuple[str, str], str] = {}
    duplicate_of: dict[str, str] = {}
    for item in sorted(evidence, key=lambda entry: entry.evidence_id):
        keys = [("url", canonical_urls[item.evidence_id])]
        if item.content_sha256:
            keys.append(("sha", item.content_sha256.lower()))
        firsts = {first_by_key[key] for key in keys if key in first_by_key}
        if firsts:
            duplicate_of[item.evidence_id] = min(firsts)
        for key in keys:
            first_by_key.setdefault(key, duplicate_of.get(item.evidence_id, item.evidence_id))
    return duplicate_of
