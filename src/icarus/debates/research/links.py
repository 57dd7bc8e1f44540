"""Which links in a fetched page are worth following for a claim: ricochet's offline navigator.

A page's links are read with their anchor text (``page_links``) and scored against the claim's terms
(``score_links``):

- relevance: the share of the claim's content words found in the anchor text (weighted
  ``ANCHOR_WEIGHT``) and in the link's address (``URL_WEIGHT``);
- primary-source cues: an anchor or address that names a report, dataset, statistics, a press release,
  a PDF, or a government or intergovernmental host adds ``PRIMARY_CUE_BONUS``;
- same origin: a link on the page's own registered domain adds ``SAME_ORIGIN_BONUS`` (a site's own
  report pages usually sit next to its article);

and a link below ``MIN_LINK_SCORE`` is not followed. Links to social networks (X/Twitter among them:
a post never corroborates a claim), to share/login/feed pages, to images and style sheets, and links
already seen (compared by canonical URL) are skipped, each with the reason recorded. Pure apart from
parsing the page body it is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.etree
import lxml.html

from icarus.provenance.canonical import canonical_url, registered_domain
from icarus.research._text import X_HOSTS, is_content_word, tokens

__all__ = [
    "ANCHOR_WEIGHT",
    "MIN_LINK_SCORE",
    "PRIMARY_CUE_BONUS",
    "SAME_ORIGIN_BONUS",
    "SOCIAL_HOSTS",
    "URL_WEIGHT",
    "PageLink",
    "ScoredLink",
    "claim_terms",
    "followable",
    "page_links",
    "score_links",
]

ANCHOR_WEIGHT = 0.6
URL_WEIGHT = 0.4
PRIMARY_CUE_BONUS = 0.3
SAME_ORIGIN_BONUS = 0.1
MIN_LINK_SCORE = 0.2
"""A link must match at least some of the claim (or be a primary source that matches a little) to be
followed: a bare same-site link scores only ``SAME_ORIGIN_BONUS``."""

MAX_ANCHOR_CHARS = 300
MAX_PAGE_LINKS = 1000
MAX_HTML_BYTES = 8 * 1024 * 1024

SOCIAL_HOSTS = frozenset(
    {
        *X_HOSTS,
        "facebook.com",
        "fb.com",
        "instagram.com",
        "tiktok.com",
        "threads.net",
        "linkedin.com",
        "reddit.com",
        "pinterest.com",
        "t.me",
        "telegram.me",
        "whatsapp.com",
        "bsky.app",
        "mastodon.social",
        "youtube.com",
        "youtu.be",
    }
)
"""Social networks and video hosts: never followed as research."""

_PRIMARY_WORDS = frozenset(
    {
        "report",
        "dataset",
        "data",
        "statistics",
        "statistical",
        "official",
        "release",
        "bulletin",
        "survey",
        "census",
        "study",
        "paper",
        "publication",
        "source",
        "table",
        "pdf",
        "csv",
        "gazette",
        "law",
        "act",
        "bill",
        "ruling",
        "judgment",
        "transcript",
        "estadisticas",
        "informe",
        "datos",
    }
)
_PRIMARY_HOST = re.compile(
    r"(?:^|\.)(?:gov|gob|gouv|gv|mil|int|europa\.eu|un\.org|who\.int|oecd\.org)(?:\.|$)"
)
_SKIPPED_PATH = re.compile(
    r"(?:^|/)(?:share|sharer|login|signin|sign-in|signup|register|subscribe|newsletter|feed|rss|tag|tags|"
    r"author|authors|cart|account|privacy|cookies|terms)(?:/|$|\.|\?)",
    re.IGNORECASE,
)
_ASSET_SUFFIX = re.compile(r"\.(?:jpe?g|png|gif|webp|svg|ico|css|js|mp3|mp4|webm|zip|woff2?)$", re.IGNORECASE)
_URL_WORD = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?")


@dataclass(frozen=True)
class PageLink:
    """A link found in a page: where it goes and the words a reader clicks on."""

    url: str
    anchor: str = ""


@dataclass(frozen=True)
class ScoredLink:
    """A link with its score and why: ``skipped`` names the reason when it must not be followed."""

    url: str
    canonical: str
    anchor: str
    score: float
    reasons: tuple[str, ...] = ()
    skipped: str | None = None


def claim_terms(text: str) -> frozenset[str]:
    """The claim's content words, lowercased: what a link's anchor and address are matched against."""
    return frozenset(token.lower() for token in tokens(text) if is_content_word(token))


def _parser() -> lxml.html.HTMLParser:
    # A fresh parser per call (lxml parsers are not thread-safe); no network, no huge trees.
    return lxml.html.HTMLParser(recover=True, no_network=True, huge_tree=False, remove_pis=True)


def _absolute(href: str | None, base: str) -> str | None:
    if not href or len(href) > 4096:
        return None
    try:
        joined, _ = urldefrag(urljoin(base, href.strip()))
        parts = urlsplit(joined)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return joined


def page_links(body: bytes, content_type: str, base_url: str, fallback: Iterable[str] = ()) -> list[PageLink]:
    """Every http(s) link of an HTML page with its anchor text, in document order, first occurrence of
    each address kept. A page that is not HTML (or cannot be parsed) gives ``fallback`` (the extractor's
    bare link list) without anchors."""
    bare = [PageLink(url) for url in dict.fromkeys(fallback)]
    if "html" not in content_type.lower() or not body or len(body) > MAX_HTML_BYTES:
        return bare
    try:
        root = lxml.html.document_fromstring(body.decode("utf-8", errors="replace"), parser=_parser())
    except (lxml.etree.ParserError, ValueError):
        return bare
    own = urldefrag(base_url)[0]
    found: dict[str, str] = {}
    for element in root.iter("a"):
        url = _absolute(element.get("href"), base_url)
        if url is None or url == own or url in found:
            continue
        anchor = " ".join(element.text_content().split())[:MAX_ANCHOR_CHARS]
        found[url] = anchor or (element.get("title") or "")[:MAX_ANCHOR_CHARS]
        if len(found) >= MAX_PAGE_LINKS:
            break
    return [PageLink(url, anchor) for url, anchor in found.items()]


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


def _is_social(host: str) -> bool:
    return host in SOCIAL_HOSTS or registered_domain(host) in SOCIAL_HOSTS


def _skip_reason(url: str, canonical: str, seen: set[str]) -> str | None:
    host = _host(url)
    if _is_social(host):
        return "social network"
    if canonical in seen:
        return "already seen"
    path = urlsplit(url).path
    if _ASSET_SUFFIX.search(path):
        return "not a document"
    if _SKIPPED_PATH.search(path):
        return "navigation page"
    return None


def _words(text: str) -> set[str]:
    return {word.lower() for word in tokens(text)}


def _url_words(url: str) -> set[str]:
    parts = urlsplit(url)
    return {word.lower() for word in _URL_WORD.findall(f"{parts.path} {parts.query}")}


def score_links(
    links: Sequence[PageLink], terms: frozenset[str], from_url: str, seen: Iterable[str] = ()
) -> list[ScoredLink]:
    """Every link scored for the claim ``terms``, best first (ties keep page order). ``seen`` holds the
    canonical URLs already fetched or queued: such a link, and a second link to the same canonical
    address, is skipped."""
    seen_canonical = set(seen)
    origin = registered_domain(_host(from_url)) if _host(from_url) else ""
    scored: list[tuple[int, ScoredLink]] = []
    for index, link in enumerate(links):
        canonical = canonical_url(link.url)
        skipped = _skip_reason(link.url, canonical, seen_canonical)
        seen_canonical.add(canonical)
        if skipped is not None:
            scored.append((index, ScoredLink(link.url, canonical, link.anchor, 0.0, (), skipped)))
            continue
        anchor_words = _words(link.anchor)
        url_words = _url_words(link.url)
        reasons: list[str] = []
        score = 0.0
        if terms:
            anchor_share = len(terms & anchor_words) / len(terms)
            url_share = len(terms & url_words) / len(terms)
            score = ANCHOR_WEIGHT * anchor_share + URL_WEIGHT * url_share
            if anchor_share or url_share:
                reasons.append(
                    f"matches {len(terms & (anchor_words | url_words))} of {len(terms)} claim terms"
                )
        host = _host(link.url)
        if (anchor_words | url_words) & _PRIMARY_WORDS or _PRIMARY_HOST.search(host):
            score += PRIMARY_CUE_BONUS
            reasons.append("primary-source cue")
        if origin and registered_domain(host) == origin:
            score += SAME_ORIGIN_BONUS
            reasons.append("same site")
        scored.append((index, ScoredLink(link.url, canonical, link.anchor, round(score, 6), tuple(reasons))))
    scored.sort(key=lambda pair: (pair[1].skipped is not None, -pair[1].score, pair[0]))
    return [link for _, link in scored]


def followable(scored: Sequence[ScoredLink], min_score: float = MIN_LINK_SCORE) -> list[ScoredLink]:
    """The links worth following, best first: not skipped and scoring at least ``min_score``."""
    return [link for link in scored if link.skipped is None and link.score >= min_score]
