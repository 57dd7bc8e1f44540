"""Turn files into corpus documents: HTML, PDF, plain text and Markdown, JSON Lines, and WARC archives.

Each reader yields ``RawDocument`` records, or ``SkippedRecord`` for one bad record inside a file (a JSON
line, a WARC record); a file that cannot be read at all raises ``ReadError`` with a reason. The key of a
document is the SHA-256 of the bytes it came from (the file, the JSON line, the HTTP payload), so the same
content read twice is recognised whatever the extractor later makes of it.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Final
from urllib.parse import urlsplit

from icarus.fetching.scholarly import ScholarlyMetadata, read_html_metadata
from icarus.provenance.canonical import registered_domain
from icarus.research._text import parse_datetime

__all__ = [
    "SUFFIXES",
    "RawDocument",
    "ReadError",
    "ReadLimits",
    "SkippedRecord",
    "read_path",
]

log = logging.getLogger(__name__)

SUFFIXES: dict[str, str] = {
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".txt": "text",
    ".md": "text",
    ".jsonl": "jsonl",
    ".warc": "warc",
    ".warc.gz": "warc",
}
"""File name endings the corpus reads, and which reader handles each."""

_TEXT_FIELDS = ("text", "body", "abstract", "content")
_TITLE_FIELDS = ("title", "headline")
_URL_FIELDS = ("url", "link")
_DATE_FIELDS = ("published", "date", "published_at", "publication_date")
_PUBLISHER_FIELDS = ("publisher", "source", "site_name")
_ID_FIELDS = ("doc_id", "id")
_MAX_SKIPS_PER_FILE = 20  # a broken file reports its first problems, then a count


@dataclass(frozen=True)
class ReadLimits:
    """Caps that keep one hostile or huge input from stalling an import."""

    max_document_bytes: int = 20 * 1024 * 1024
    max_pdf_pages: int = 300
    max_text_chars: int = 2_000_000


@dataclass(frozen=True)
class RawDocument:
    sha256: str
    kind: str
    url: str
    title: str
    text: str
    publisher: str
    published_at: datetime | None
    source_path: str
    source_id: str
    scholarly: ScholarlyMetadata | None = None  # HTML: DOI, ISSN, journal, kind (H16, H17)


@dataclass(frozen=True)
class SkippedRecord:
    reason: str


class ReadError(Exception):
    """The whole file could not be read; the message is the reason shown to the user."""


def suffix_kind(path: Path) -> str | None:
    name = path.name.lower()
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return SUFFIXES[suffix]
    return None


def read_path(path: Path, kind: str, limits: ReadLimits) -> Iterator[RawDocument | SkippedRecord]:
    """Documents in ``path`` read as ``kind``; raises ``ReadError`` when the file is unreadable."""
    if kind == "jsonl":
        yield from _read_jsonl(path, limits)
    elif kind == "warc":
        yield from _read_warc(path, limits)
    else:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ReadError(f"cannot read file: {exc.strerror or exc}") from None
        if len(raw) > limits.max_document_bytes:
            raise ReadError(f"document larger than {limits.max_document_bytes} bytes")
        source = str(path)
        if kind == "html":
            document = html_document(raw, None, source, path.resolve().as_uri(), limits)
            if document is None:
                raise ReadError("no main text found in HTML")
            yield document
        elif kind == "pdf":
            yield _pdf_document(raw, path, limits)
        else:
            yield _text_document(raw, path, limits)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# trafilatura asks htmldate for a day only by default; a page published at 12:30Z would read as 00:00Z,
# which can change which copy of a story came first.
_DATE_WITH_TIME: Final = {
    "outputformat": "%Y-%m-%dT%H:%M:%S%z",
    "original_date": True,
    "extensive_search": True,
}


def html_document(
    raw: bytes, url: str | None, source_path: str, fallback_url: str, limits: ReadLimits, kind: str = "html"
) -> RawDocument | None:
    """Main text and metadata of one HTML page, or ``None`` when trafilatura finds no main text."""
    # imported here: searching the corpus (every check) reads no HTML, and trafilatura is slow to load
    import trafilatura

    try:
        extracted = trafilatura.bare_extraction(
            raw,
            url=url,
            with_metadata=True,
            include_comments=False,
            include_tables=True,
            date_extraction_params=_DATE_WITH_TIME,
        )
    except Exception as exc:  # trafilatura raises assorted parser errors on hostile markup
        log.debug("trafilatura failed on %s: %s", source_path, type(exc).__name__)
        return None
    if extracted is None or isinstance(extracted, dict):
        return None
    text = (extracted.text or "").strip()
    if not text:
        return None
    page_url = _page_url(extracted.url, url) or fallback_url
    scholarly = read_html_metadata(raw, page_url)
    published_at = parse_datetime(extracted.date)
    if published_at is None and scholarly is not None:
        published_at = scholarly.published_at
    return RawDocument(
        sha256=_sha256(raw),
        kind=kind,
        url=page_url,
        title=(extracted.title or "").strip(),
        text=text[: limits.max_text_chars],
        publisher=(extracted.sitename or "").strip(),
        published_at=published_at,
        source_path=source_path,
        source_id="",
        scholarly=scholarly,
    )


def _host_domain(url: str) -> str:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return ""
    return registered_domain(host) if host else ""


def _page_url(declared: str | None, captured: str | None) -> str | None:
    """The page's declared canonical URL, unless it names another site than the one it was captured from.

    A page may not claim to be another site's document (the same rule as H1).
    """
    if declared and captured and _host_domain(declared) != _host_domain(captured):
        return captured
    return declared or captured


def _pdf_document(raw: bytes, path: Path, limits: ReadLimits) -> RawDocument:
    from pypdf import PdfReader  # here, not at the top: with what it loads, a third of a second of start-up

    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            raise ReadError("encrypted PDF")
        pages: list[str] = []
        for index, page in enumerate(reader.pages):
            if index >= limits.max_pdf_pages:
                break
            pages.append(page.extract_text() or "")
        metadata = reader.metadata
        title = str(metadata.title or "") if metadata else ""
        created = _pdf_date(metadata)
    except ReadError:
        raise
    except Exception as exc:  # pypdf raises many kinds on damaged files; all mean "unreadable"
        raise ReadError(f"unreadable PDF ({type(exc).__name__})") from None
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise ReadError("no extractable text in PDF (scanned? OCR is not run here)")
    return RawDocument(
        sha256=_sha256(raw),
        kind="pdf",
        url=path.resolve().as_uri(),
        title=title.strip() or _first_line(text),
        text=text[: limits.max_text_chars],
        publisher="",
        published_at=parse_datetime(created),
        source_path=str(path),
        source_id="",
    )


def _pdf_date(metadata: Any) -> datetime | None:
    if not metadata:
        return None
    try:
        value = metadata.creation_date
    except Exception:  # a malformed date string in the PDF info dictionary
        return None
    return value if isinstance(value, datetime) else None


def _first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped:
            return stripped[:300]
    return ""


def _text_document(raw: bytes, path: Path, limits: ReadLimits) -> RawDocument:
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        raise ReadError("empty text file")
    return RawDocument(
        sha256=_sha256(raw),
        kind="text",
        url=path.resolve().as_uri(),
        title=_first_line(text),
        text=text[: limits.max_text_chars],
        publisher="",
        published_at=None,
        source_path=str(path),
        source_id="",
    )


def _first_field(record: dict[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        value = record.get(name)
        if value not in (None, "", []):
            return value
    return None


def _as_text(value: Any) -> str:
    # SciFact and similar corpora store the abstract as a list of sentences.
    if isinstance(value, list):
        return " ".join(str(part).strip() for part in value if isinstance(part, str) and part.strip())
    return value.strip() if isinstance(value, str) else ""


def _lines(stream: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """Numbered lines; ``None`` for a line longer than ``limit`` (its rest is skipped unread)."""
    number = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            while (rest := stream.readline(1 << 20)) and not rest.endswith(b"\n"):
                pass
            yield number, None
        else:
            yield number, line


def _read_jsonl(path: Path, limits: ReadLimits) -> Iterator[RawDocument | SkippedRecord]:
    file_uri = path.resolve().as_uri()
    skips = 0

    def skip(reason: str) -> SkippedRecord | None:
        nonlocal skips
        skips += 1
        return SkippedRecord(reason) if skips <= _MAX_SKIPS_PER_FILE else None

    try:
        stream = path.open("rb")
    except OSError as exc:
        raise ReadError(f"cannot read file: {exc.strerror or exc}") from None
    with stream:
        for number, line in _lines(stream, limits.max_document_bytes):
            if line is None:
                skipped = skip(f"line {number}: longer than {limits.max_document_bytes} bytes")
            elif not line.strip():
                continue
            else:
                record = _parse_line(line)
                if record is None:
                    skipped = skip(f"line {number}: not a JSON object")
                else:
                    text = _as_text(_first_field(record, _TEXT_FIELDS))
                    if not text:
                        skipped = skip(f"line {number}: no text (fields text, body or abstract)")
                    else:
                        url = _first_field(record, _URL_FIELDS)
                        source_id = _first_field(record, _ID_FIELDS)
                        yield RawDocument(
                            sha256=_sha256(line.strip()),
                            kind="jsonl",
                            url=url.strip() if isinstance(url, str) else f"{file_uri}#line={number}",
                            title=_as_text(_first_field(record, _TITLE_FIELDS)),
                            text=text[: limits.max_text_chars],
                            publisher=_as_text(_first_field(record, _PUBLISHER_FIELDS)),
                            published_at=parse_datetime(_first_field(record, _DATE_FIELDS)),
                            source_path=str(path),
                            source_id="" if source_id is None else str(source_id),
                        )
                        continue
            if skipped is not None:
                yield skipped
    if skips > _MAX_SKIPS_PER_FILE:
        yield SkippedRecord(f"{skips - _MAX_SKIPS_PER_FILE} more bad lines not listed")


def _parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _read_warc(path: Path, limits: ReadLimits) -> Iterator[RawDocument | SkippedRecord]:
    from warcio.archiveiterator import ArchiveIterator  # imported here, as trafilatura is

    try:
        stream = path.open("rb")
    except OSError as exc:
        raise ReadError(f"cannot read file: {exc.strerror or exc}") from None
    with stream:
        records = produced = 0
        try:
            for record in ArchiveIterator(stream):
                records += 1
                if record.rec_type != "response" or record.http_headers is None:
                    continue
                status = record.http_headers.get_statuscode() or ""
                content_type = (record.http_headers.get_header("Content-Type") or "").lower()
                if not status.startswith("2") or "html" not in content_type:
                    continue  # redirects, errors, images, scripts: not documents
                uri = record.rec_headers.get_header("WARC-Target-URI") or ""
                payload = record.content_stream().read(limits.max_document_bytes + 1)
                produced += 1
                if len(payload) > limits.max_document_bytes:
                    yield SkippedRecord(f"record {uri}: larger than {limits.max_document_bytes} bytes")
                    continue
                document = html_document(payload, uri or None, str(path), uri, limits, kind="warc")
                if document is None:
                    yield SkippedRecord(f"record {uri}: no main text found in HTML")
                else:
                    yield document
        except ReadError:
            raise
        except Exception as exc:  # warcio raises on damaged or non-WARC input
            if records == 0:
                raise ReadError(f"not a readable WARC file ({type(exc).__name__})") from None
            yield SkippedRecord(f"stopped after record {records}: damaged archive ({type(exc).__name__})")
            return
        if produced == 0:
            # warcio reads almost any bytes as some record; an archive with no HTML page is not one we use.
            raise ReadError("not a readable WARC file (no HTML response records)")
