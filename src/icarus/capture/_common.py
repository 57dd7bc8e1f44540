"""Checks every capture path shares: text limits, aware timestamps, content-hash ids, link cleaning."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from datetime import datetime
from urllib.parse import urljoin, urlsplit

from pydantic import ValidationError

__all__ = [
    "MAX_CITED_LINKS",
    "MAX_TEXT_CHARS",
    "CaptureError",
    "check_captured_at",
    "check_text",
    "check_url",
    "clean_links",
    "content_id",
    "describe_validation_error",
    "find_urls",
]

MAX_TEXT_CHARS = 1_000_000
"""Longest captured text, in code points (about a 500-page book). Longer input is refused, not cut:
a truncated subject would be checked as if it were whole."""

MAX_CITED_LINKS = 1_000
"""Most links kept from one subject; a page's later links (footers, archives) are the ones dropped."""


class CaptureError(ValueError):
    """The input cannot be captured as a subject; the message says what is wrong with it."""


def check_text(text: str, what: str, *, max_chars: int = MAX_TEXT_CHARS, allow_blank: bool = False) -> str:
    """Return ``text`` unchanged after checking it is a usable, storable string.

    Nothing is normalised: claim spans index the exact captured string, so the text is either kept as it
    is or refused.
    """
    if not isinstance(text, str):
        raise CaptureError(f"{what} must be a string, not {type(text).__name__}")
    if len(text) > max_chars:
        raise CaptureError(f"{what} is {len(text):,} characters; the limit is {max_chars:,}")
    if not allow_blank and not text.strip():
        raise CaptureError(f"{what} is empty")
    try:
        # Lone surrogates (from hostile JSON such as "\ud800") cannot be stored or hashed as UTF-8.
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CaptureError(f"{what} is not valid Unicode (lone surrogate at offset {exc.start})") from None
    return text


def check_captured_at(captured_at: datetime) -> datetime:
    """The capture time must carry a time zone: the ledger never guesses one."""
    if not isinstance(captured_at, datetime):
        raise CaptureError(f"captured_at must be a datetime, not {type(captured_at).__name__}")
    if captured_at.tzinfo is None or captured_at.utcoffset() is None:
        raise CaptureError("captured_at must carry a time zone (for example UTC)")
    return captured_at


def content_id(text: str) -> str:
    """The id of pasted text: ``sha256:`` and the hex digest of its UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_url(url: str, what: str = "url") -> str:
    """Return ``url`` unchanged if it is an absolute http(s) address with a host."""
    if not isinstance(url, str) or not url.strip():
        raise CaptureError(f"{what} is empty")
    check_text(url, what, max_chars=8_192)
    if url != url.strip() or any(ch.isspace() for ch in url):
        raise CaptureError(f"{what} contains whitespace: {url[:80]!r}")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise CaptureError(f"{what} is not a valid URL: {exc}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise CaptureError(f"{what} must be an absolute http(s) URL: {url[:80]!r}")
    return url


def clean_links(links: Iterable[str], *, base: str | None = None, exclude: Iterable[str] = ()) -> list[str]:
    """Absolute http(s) links in first-seen order, without repeats, fragments-only or excluded ones.

    Relative links are resolved against ``base``. Mail, script and in-page links are dropped, as are
    links that are not strings. At most ``MAX_CITED_LINKS`` are kept.
    """
    excluded = {_without_fragment(url) for url in exclude}
    seen: set[str] = set()
    kept: list[str] = []
    for raw in links:
        if not isinstance(raw, str):
            continue
        link = raw.strip()
        if not link or link.startswith("#") or len(link) > 8_192:
            continue
        try:
            link.encode("utf-8")
            absolute = urljoin(base, link) if base else link
            parts = urlsplit(absolute)
        except (UnicodeEncodeError, ValueError):
            continue
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            continue
        if any(ch.isspace() for ch in absolute):
            continue
        key = _without_fragment(absolute)
        if key in excluded or key in seen:
            continue
        seen.add(key)
        kept.append(absolute)
        if len(kept) >= MAX_CITED_LINKS:
            break
    return kept


_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"“”‘’\x00-\x1f]+", re.IGNORECASE)
_URL_TAIL = ".,;:!?'\")]}…"


def find_urls(text: str) -> list[str]:
    """The http(s) URLs written out in ``text``, without the sentence punctuation that follows them."""
    urls = []
    for match in _URL_IN_TEXT.finditer(text):
        url = match.group(0)
        while url and url[-1] in _URL_TAIL:
            # A closing bracket that closes one opened inside the URL belongs to it (Wikipedia links).
            if url[-1] == ")" and url.count("(") >= url.count(")"):
                break
            url = url[:-1]
        urls.append(url)
    return urls


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def describe_validation_error(exc: ValidationError, what: str, *, limit: int = 3) -> str:
    """One line naming the first few problems pydantic found, with their locations."""
    problems = []
    for error in exc.errors()[:limit]:
        location = ".".join(str(part) for part in error["loc"]) or "(top level)"
        problems.append(f"{location}: {error['msg']}")
    more = exc.error_count() - limit
    suffix = f" (and {more} more)" if more > 0 else ""
    return f"malformed {what}: " + "; ".join(problems) + suffix
