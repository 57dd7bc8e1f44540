"""Turn a fetched body into text and metadata: HTML (trafilatura + htmldate), PDF (pypdf), text and JSON.

HTML is parsed once, by lxml's forgiving HTML parser, which never expands entities (so billion-laughs
declarations stay inert) and stops nesting at libxml2's depth limit (so 100k nested tags cost nothing).
Before extraction the tree is made safe and small: scripts, styles and embedded objects are removed
(JSON-LD is kept for metadata), and attribute values longer than a limit are dropped.

Hidden text is never silently lost (H30 needs to see it). Text inside elements hidden from readers by
CSS (display:none, visibility:hidden, zero size or opacity, off-screen), by the ``hidden`` attribute, by
screen-reader-only classes, inside ``<template>``, in image ``alt`` text and in HTML comments is returned
in ``hidden_text_fragments``. trafilatura leaves most of it out of ``text``; the fragments are the record.

PDFs are read with pypdf under tighter resource limits than its defaults, a page cap, a text cap and a
time budget checked between pages. A page that fails (a decompression bomb in its content stream, say) is
skipped and marks the result truncated; a file that cannot be opened, or has no readable page, raises
``ExtractionError``. A single pathological
page can still overrun the time budget (pypdf cannot be interrupted mid-page); running extraction in a
separate process with a hard timeout would close that gap.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.etree
import lxml.html

from icarus.fetching.errors import DocumentTooLarge, ExtractionError, UnsupportedForExtraction
from icarus.fetching.fetch import media_type
from icarus.fetching.scholarly import ScholarlyMetadata, read_scholarly_metadata

__all__ = [
    "HTML_TYPES",
    "ExtractLimits",
    "ExtractedPage",
    "extract_page",
]

HTML_TYPES: frozenset[str] = frozenset({"text/html", "application/xhtml+xml"})
_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp"})
_TEXT_TYPES = frozenset({"text/plain", "application/json"})


@dataclass(frozen=True)
class ExtractLimits:
    """Size and time limits for extraction. Documents over a size limit are refused, not truncated."""

    max_html_bytes: int = 16 * 1024 * 1024
    max_attribute_chars: int = 8192
    """Longer attribute values (inline data, padding attacks) are dropped before extraction."""
    max_text_chars: int = 2_000_000
    """Extracted text beyond this is cut off and ``truncated`` is set."""
    max_links: int = 5000
    max_hidden_fragments: int = 200
    max_hidden_fragment_chars: int = 2000
    max_json_ld_chars: int = 1_000_000
    max_extensive_date_search_bytes: int = 1024 * 1024
    """Larger pages get htmldate's markup search only, not its slow search of the text."""
    max_pdf_bytes: int = 50 * 1024 * 1024
    max_pdf_pages: int = 300
    """Pages after this are not read; ``truncated`` is set."""
    max_pdf_objects: int = 500_000
    """Most cross-reference entries pypdf will read (an object-count bomb guard)."""
    pdf_time_budget_s: float = 20.0


@dataclass(frozen=True)
class ExtractedPage:
    """Text and metadata of one document. Dates are UTC-aware; unknown fields are None or empty."""

    text: str
    media_type: str
    title: str | None = None
    publisher: str | None = None
    """The site or publisher name the page declares (og:site_name, JSON-LD publisher, …)."""
    byline: str | None = None
    published_at: datetime | None = None
    updated_at: datetime | None = None
    canonical_url: str | None = None
    """``<link rel=canonical>``, made absolute."""
    og_url: str | None = None
    links: list[str] = field(default_factory=list)
    """Absolute http(s) link targets in document order, without fragments, deduplicated."""
    language: str | None = None
    hidden_text_fragments: list[str] = field(default_factory=list)
    """Text a reader of the rendered page would not see (for H30); see the module docstring."""
    page_count: int | None = None
    """PDFs: pages in the document (not only those read)."""
    truncated: bool = False
    """Text was cut at ``max_text_chars``, or PDF pages were left unread (page cap, time budget, or a page
    that failed to parse)."""
    scholarly: ScholarlyMetadata | None = None
    """HTML: the DOI, ISSN, journal and kind of publication its scholarly markup gives (H16, H17)."""


def extract_page(
    body: bytes,
    content_type: str,
    url: str,
    *,
    limits: ExtractLimits | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ExtractedPage:
    """Extract text and metadata from ``body`` according to its media type.

    Raises ``DocumentTooLarge`` over a size limit, ``UnsupportedForExtraction`` for images and unknown
    types, and ``ExtractionError`` for documents that cannot be read (a malformed PDF, say).
    """
    lim = limits if limits is not None else ExtractLimits()
    kind = media_type(content_type)
    if kind in HTML_TYPES:
        return _extract_html(body, content_type, url, lim)
    if kind == "application/pdf":
        return _extract_pdf(body, lim, clock)
    if kind in _TEXT_TYPES:
        text = _decode(body, _charset(content_type), default="utf-8")
        text, truncated = _cap(text.replace("\x00", ""), lim.max_text_chars)
        return ExtractedPage(text=text, media_type=kind, truncated=truncated)
    if kind in _IMAGE_TYPES:
        raise UnsupportedForExtraction(f"{kind} has no text layer; images are read by OCR, not here")
    raise UnsupportedForExtraction(f"no extractor for content type {kind or '(missing)'!r}")


# --- HTML -------------------------------------------------------------------------------------------

_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]{1,40})""", re.I)
_REMOVED_TAGS = ("script", "style", "object", "embed", "applet", "iframe", "frame", "frameset", "svg", "math")
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none"
    r"|visibility\s*:\s*(?:hidden|collapse)"
    r"|opacity\s*:\s*0*(?:\.0+)?\s*(?:;|!|$)"
    r"|font-size\s*:\s*0+(?:\.0+)?(?:px|pt|em|rem|%)?\s*(?:;|!|$)"
    r"|(?:^|;)\s*(?:max-)?(?:height|width)\s*:\s*0+(?:px)?\s*(?:;|!|$)"
    r"|(?:left|top|right|text-indent)\s*:\s*-\d{3,}"
    r"|clip\s*:\s*rect\(\s*0"
    r"|clip-path\s*:\s*inset\(\s*50%",
    re.IGNORECASE,
)
_HIDDEN_CLASSES = frozenset(
    {"sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text", "hidden", "d-none", "is-hidden"}
)
_WS = re.compile(r"\s+")
_PUBLISHED_KEYS = (
    ("property", "article:published_time"),
    ("name", "article:published_time"),
    ("property", "og:article:published_time"),
    ("itemprop", "datePublished"),
    ("name", "pubdate"),
    ("name", "publishdate"),
    ("name", "parsely-pub-date"),
    ("name", "dc.date.issued"),
    ("name", "dcterms.issued"),
    ("name", "dc.date"),
)
_UPDATED_KEYS = (
    ("property", "article:modified_time"),
    ("name", "article:modified_time"),
    ("property", "og:updated_time"),
    ("itemprop", "dateModified"),
    ("name", "dcterms.modified"),
    ("name", "last-modified"),
)


def _html_parser() -> lxml.html.HTMLParser:
    # A fresh parser per call: lxml parsers are not thread-safe.
    return lxml.html.HTMLParser(
        recover=True,
        no_network=True,
        remove_comments=False,
        remove_pis=True,
        huge_tree=False,
        collect_ids=False,
        default_doctype=False,
    )


def _extract_html(body: bytes, content_type: str, url: str, lim: ExtractLimits) -> ExtractedPage:
    kind = media_type(content_type)
    if len(body) > lim.max_html_bytes:
        raise DocumentTooLarge(f"HTML of {len(body)} bytes is over the {lim.max_html_bytes}-byte limit")
    text = _decode(body, _charset(content_type) or _sniff_charset(body), default="utf-8")
    text = _XML_DECL.sub("", text.replace("\x00", ""), count=1)
    if not text.strip():
        return ExtractedPage(text="", media_type=kind)
    try:
        root = lxml.html.document_fromstring(text, parser=_html_parser())
    except (lxml.etree.ParserError, ValueError) as exc:
        raise ExtractionError(f"unparseable HTML: {exc}") from exc

    _sanitise(root, lim)
    hidden = _hidden_fragments(root, lim)
    base = _base_url(root, url)
    canonical = _link_rel(root, "canonical", base)
    og_url = _absolute(_meta(root, ("property", "og:url")), base)
    links = _links(root, base, lim.max_links, exclude=url)
    language = _language(root)
    published = _first_date(root, _PUBLISHED_KEYS, "datePublished")
    updated = _first_date(root, _UPDATED_KEYS, "dateModified")
    scholarly = read_scholarly_metadata(root, base)  # before trafilatura, which may alter the tree
    if published is None and scholarly is not None:
        published = scholarly.published_at
    # htmldate's text-pattern search costs about a second per 2 MB; keep it for ordinary-sized pages.
    extensive = len(body) <= lim.max_extensive_date_search_bytes
    if published is None:
        published = _htmldate(root, url, original=True, extensive=extensive)
    if updated is None:
        updated = _htmldate(root, url, original=False, extensive=False)
        if updated is not None and published is not None and updated <= published:
            updated = None  # htmldate answered with the publication date again, not a later update
    fallback_title = _clean(root.findtext(".//title")) or _meta(root, ("property", "og:title"))
    fallback_site = _meta(root, ("property", "og:site_name"))

    doc = _trafilatura(root, url)  # last: trafilatura may alter the tree it is given
    body_text = (doc.text if doc is not None else None) or _visible_text(root)
    body_text, truncated = _cap(body_text, lim.max_text_chars)
    return ExtractedPage(
        text=body_text,
        media_type=kind,
        title=(doc.title if doc is not None else None) or fallback_title,
        publisher=(doc.sitename if doc is not None else None) or fallback_site,
        byline=doc.author if doc is not None else None,
        published_at=published,
        updated_at=updated,
        canonical_url=canonical,
        og_url=og_url,
        links=links,
        language=language or (doc.language if doc is not None else None),
        hidden_text_fragments=hidden,
        truncated=truncated,
        scholarly=scholarly,
    )


def _sanitise(root: Any, lim: ExtractLimits) -> None:
    for el in list(root.iter(*_REMOVED_TAGS)):
        json_ld = el.tag == "script" and (el.get("type") or "").strip().lower() == "application/ld+json"
        if json_ld and len(el.text or "") <= lim.max_json_ld_chars:
            continue
        if el.getparent() is not None:
            el.drop_tree()  # keeps the element's tail text
    for el in root.iter(lxml.etree.Element):
        for name, value in list(el.attrib.items()):
            if len(value) > lim.max_attribute_chars:
                del el.attrib[name]


def _is_hidden(el: Any) -> bool:
    if el.tag == "template" or el.get("hidden") is not None:
        return True
    if el.tag == "input" and (el.get("type") or "").lower() == "hidden":
        return False  # form plumbing, not prose
    style = el.get("style")
    if style and _HIDDEN_STYLE.search(style):
        return True
    classes = el.get("class")
    return bool(classes) and any(c.lower() in _HIDDEN_CLASSES for c in classes.split())


def _hidden_fragments(root: Any, lim: ExtractLimits) -> list[str]:
    found: list[str] = []
    seen: set[str] = set()

    def keep(raw: str | None) -> bool:
        fragment = _clean(raw)
        if fragment and fragment not in seen:
            seen.add(fragment)
            found.append(fragment[: lim.max_hidden_fragment_chars])
        return len(found) < lim.max_hidden_fragments

    # Iterative walk in document order: the tree may be as deep as the parser allows.
    stack: list[Any] = [root]
    while stack:
        el = stack.pop()
        if el.tag is lxml.etree.Comment:
            if not keep(el.text):
                break
            continue
        if not isinstance(el.tag, str):
            continue
        if el.tag == "script":
            continue  # JSON-LD kept for metadata is data, not hidden prose
        if _is_hidden(el):
            if not keep(" ".join(_texts(el))):
                break
            continue
        if el.tag in ("img", "area", "input") and not keep(el.get("alt")):
            break
        stack.extend(reversed(el))
    return found


def _texts(el: Any) -> Iterator[str]:
    # Element text only; comments inside a hidden element are reported on their own by the walk.
    for node in el.iter(lxml.etree.Element):
        if node.tag == "script":
            continue
        if node.text:
            yield node.text
        if node is not el and node.tail:
            yield node.tail


def _visible_text(root: Any) -> str:
    body = root.find(".//body")
    target = body if body is not None else root
    return _clean(" ".join(_texts(target))) or ""


def _trafilatura(root: Any, url: str) -> Any:
    # imported here: trafilatura and htmldate take a twentieth of a second to load, and a check of a
    # sentence extracts no page
    import trafilatura

    try:
        return trafilatura.bare_extraction(
            root,
            url=url,
            with_metadata=True,
            include_comments=False,
            include_tables=True,
            include_links=False,
            deduplicate=False,
            # Dates are found separately above; skip trafilatura's own (slow) text-pattern date search.
            date_extraction_params={"extensive_search": False, "original_date": True},
        )
    except (RecursionError, ValueError, TypeError, AttributeError, lxml.etree.LxmlError):
        return None  # the visible-text fallback still yields text; trafilatura is best effort


def _meta(root: Any, key: tuple[str, str]) -> str | None:
    attr, value = key
    wanted = value.lower()
    for el in root.iter("meta"):
        if (el.get(attr) or "").strip().lower() == wanted:
            content = _clean(el.get("content"))
            if content:
                return content
    return None


def _link_rel(root: Any, rel: str, base: str) -> str | None:
    for el in root.iter("link"):
        if rel in (el.get("rel") or "").lower().split():
            found = _absolute(el.get("href"), base)
            if found:
                return found
    return None


def _base_url(root: Any, url: str) -> str:
    for el in root.iter("base"):
        href = _absolute(el.get("href"), url)
        if href:
            return href
        break
    return url


def _absolute(href: str | None, base: str) -> str | None:
    if not href:
        return None
    href = href.strip()
    if not href or len(href) > 4096:
        return None
    try:
        joined, _ = urldefrag(urljoin(base, href))
        parts = urlsplit(joined)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return joined


def _links(root: Any, base: str, cap: int, *, exclude: str) -> list[str]:
    own = urldefrag(exclude)[0]
    out: dict[str, None] = {}
    for el in root.iter("a"):
        href = _absolute(el.get("href"), base)
        if href and href != own:
            out.setdefault(href, None)
            if len(out) >= cap:
                break
    return list(out)


def _language(root: Any) -> str | None:
    lang = root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang")
    if not lang:
        for el in root.iter("meta"):
            if (el.get("http-equiv") or "").strip().lower() == "content-language":
                lang = el.get("content")
                break
    lang = _clean(lang)
    if lang and re.fullmatch(r"[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*", lang):
        return lang.replace("_", "-")
    return None


def _first_date(root: Any, keys: tuple[tuple[str, str], ...], schema_key: str) -> datetime | None:
    """The first parseable date among meta tags, ``<time itemprop>`` and JSON-LD, in that order."""
    for key in keys:
        found = _to_utc(_meta(root, key))
        if found is not None:
            return found
    for el in root.iter("time"):
        if el.get("itemprop") == schema_key:
            found = _to_utc(el.get("datetime"))
            if found is not None:
                return found
    for value in _json_ld_values(root, schema_key):
        found = _to_utc(value)
        if found is not None:
            return found
    return None


def _json_ld_values(root: Any, key: str) -> Iterator[str]:
    for el in root.iter("script"):
        if (el.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            data = json.loads(el.text or "")
        except (ValueError, RecursionError):
            continue
        stack: list[tuple[Any, int]] = [(data, 0)]
        while stack:
            node, depth = stack.pop()
            if depth > 20:
                continue
            if isinstance(node, dict):
                value = node.get(key)
                if isinstance(value, str):
                    yield value
                stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
            elif isinstance(node, list):
                stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))


def _htmldate(root: Any, url: str, *, original: bool, extensive: bool) -> datetime | None:
    from htmldate import find_date  # imported here, as trafilatura is

    try:
        found = find_date(
            root,
            original_date=original,
            extensive_search=extensive,
            outputformat="%Y-%m-%dT%H:%M:%S%z",
            url=url,
        )
    except (RecursionError, ValueError, TypeError, AttributeError, lxml.etree.LxmlError):
        return None
    return _to_utc(found)


def _to_utc(value: str | None) -> datetime | None:
    """Parse an ISO 8601 or RFC 2822 date; a date with no zone is taken as UTC."""
    if not value:
        return None
    text = value.strip()
    parsed: datetime | None = None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        try:
            parsed = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    if not 1900 <= parsed.year <= 2200:
        return None
    return parsed.astimezone(UTC)


# --- PDF --------------------------------------------------------------------------------------------

# Tighter than pypdf's defaults (75 MB per stream): a news-sized PDF never needs more, a bomb stops early.
_PDF_CONFIG: dict[str, Any] = {
    "zlib_maximum_output_length": 20_000_000,
    "lzw_maximum_output_length": 20_000_000,
    "run_length_maximum_output_length": 20_000_000,
    "array_based_stream_maximum_output_length": 20_000_000,
    "stream_decoding_work_maximum_length": 100_000_000,
    # pypdf parses about 400k content-stream tokens a second; its default (2M) allows ~5 s on one page.
    "stream_parsing_work_maximum_count": 500_000,
    "page_tree_maximum_entries": 20_000,
    "page_tree_maximum_page_entries": 100_000,
    "jbig2dec_binary": None,  # never run an external decoder on untrusted input
}


def _extract_pdf(body: bytes, lim: ExtractLimits, clock: Callable[[], float]) -> ExtractedPage:
    if len(body) > lim.max_pdf_bytes:
        raise DocumentTooLarge(f"PDF of {len(body)} bytes is over the {lim.max_pdf_bytes}-byte limit")
    if not body.lstrip()[:5].startswith(b"%PDF-"):
        raise ExtractionError("not a PDF: the body does not start with %PDF-")
    import pypdf  # here, not at the top: with what it loads, about a third of a second of every start-up

    deadline = clock() + lim.pdf_time_budget_s
    texts: list[str] = []
    failures: list[str] = []
    size = 0
    truncated = False
    try:
        with pypdf.apply_configuration(**_PDF_CONFIG):
            reader = pypdf.PdfReader(
                io.BytesIO(body), strict=False, xref_stream_maximum_entries=lim.max_pdf_objects
            )
            if reader.is_encrypted and not reader.decrypt(""):
                raise ExtractionError("the PDF is encrypted")
            count = len(reader.pages)
            for index in range(min(count, lim.max_pdf_pages)):
                if clock() > deadline:
                    truncated = True
                    break
                try:
                    page_text = reader.pages[index].extract_text() or ""
                except Exception as exc:
                    # One hostile or broken page (a decompression bomb, say) costs that page, not the file.
                    failures.append(f"page {index + 1}: {type(exc).__name__}: {exc}")
                    truncated = True
                    continue
                texts.append(page_text)
                size += len(page_text)
                if size > lim.max_text_chars:
                    truncated = True
                    break
            if failures and not texts:
                raise ExtractionError(f"no readable page in the PDF ({failures[0]})")
            truncated = truncated or count > lim.max_pdf_pages
            info = reader.metadata
            title = _clean(info.title) if info is not None else None
            author = _clean(info.author) if info is not None else None
            created = _aware(info.creation_date) if info is not None else None
            modified = _aware(info.modification_date) if info is not None else None
    except ExtractionError:
        raise
    except Exception as exc:
        # pypdf raises many types (PdfReadError, ValueError, KeyError, RecursionError …) on hostile input.
        raise ExtractionError(f"unreadable PDF: {type(exc).__name__}: {exc}") from exc
    text, cut = _cap("\n\n".join(texts), lim.max_text_chars)
    return ExtractedPage(
        text=text,
        media_type="application/pdf",
        title=title,
        byline=author,
        published_at=created,
        updated_at=modified if modified is not None and modified != created else None,
        page_count=count,
        truncated=truncated or cut,
    )


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)


# --- shared helpers ---------------------------------------------------------------------------------


def _charset(content_type: str) -> str | None:
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'") or None
    return None


def _sniff_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:4096])
    return match.group(1).decode("ascii") if match else None


def _decode(body: bytes, charset: str | None, *, default: str) -> str:
    """Decode by BOM, then the declared charset, then ``default``; last resort cp1252 with replacement."""
    boms = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
    for bom, codec in boms:
        if body.startswith(bom):
            return body.decode(codec, errors="replace")
    for candidate in (charset, default):
        if not candidate:
            continue
        try:
            return body.decode(codecs.lookup(candidate).name)
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("cp1252", errors="replace")


def _clean(value: str | None) -> str | None:
    if not value:
        return None
    cleaned = _WS.sub(" ", value).strip()
    return cleaned or None


def _cap(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)
