"""The embedded search provider: a local corpus in one SQLite file, searched with FTS5 and BM25.

``LocalCorpus.add`` indexes files and folders (recursively): HTML pages (main text, title, date and
canonical URL via trafilatura), PDFs (pypdf, page-capped), plain text and Markdown, JSON Lines (one
document per line, SciFact's ``{doc_id, title, abstract: [sentences]}`` included) and WARC archives
(HTML response records). An HTML page's scholarly metadata (DOI, ISSN, journal, preprint or not:
``icarus.fetching.scholarly``) is read when it is added and comes back on its hits. Each document is
keyed by the SHA-256 of the bytes it came from, so adding the same content again changes nothing (but
fills in the metadata of a document indexed before the corpus kept it).

``LocalCorpus.search`` turns a query into an FTS5 expression in which every user word is a quoted string,
so no input can be read as FTS5 syntax; results are ranked by BM25 (title weighted above body). Date bounds
drop documents dated outside them; undated documents are kept, since their date is unknown, not wrong.

Images on a dated HTML page are indexed by perceptual hash (H23, ``icarus.lookups.image_index``), dated by
the page: only images in files beside the page or below its folder, named by a relative ``src``; nothing
is fetched, and no path leads out of the page's folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from icarus.fetching.scholarly import ScholarlyMetadata
from icarus.lookups.image_index import (
    MAX_IMAGE_BYTES,
    ImageCopy,
    ImageError,
    ImageIndex,
    image_sources,
    perceptual_hash,
)
from icarus.provenance.canonical import registered_domain
from icarus.research._readers import (
    RawDocument,
    ReadError,
    ReadLimits,
    SkippedRecord,
    read_path,
    suffix_kind,
)
from icarus.research._text import is_content_word, tokens
from icarus.research.providers import ProviderResult, SearchHit
from icarus.research.queries import PlannedQuery

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "SNIPPET_MAX_CHARS",
    "AddReport",
    "CorpusDocument",
    "CorpusError",
    "LocalCorpus",
    "LocalCorpusProvider",
    "ProgressCallback",
    "ReadLimits",
    "match_expression",
    "window_snippet",
]

DEFAULT_MAX_FILE_BYTES = 1024 * 1024 * 1024
"""Files larger than this (1 GiB) are skipped. JSONL and WARC are streamed; the cap bounds import time."""

ProgressCallback = Callable[[int, int, Path], None]
"""Called after each file with (files done, files in total, the file just read)."""

_SCHEMA_VERSION = 2
# Version 1 had no scholarly column; opening one adds it (its documents' metadata stays unknown until the
# same file is added again).
_UPGRADES = {1: "ALTER TABLE documents ADD COLUMN scholarly TEXT"}
_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL UNIQUE,          -- SHA-256 (hex) of the source bytes
    kind TEXT NOT NULL,
    url TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    publisher TEXT NOT NULL,
    domain TEXT NOT NULL,
    published_at TEXT,                    -- ISO 8601, UTC; NULL when unknown
    source_path TEXT NOT NULL,
    source_id TEXT NOT NULL,              -- the record's own id (JSONL doc_id/id), else ''
    scholarly TEXT                        -- ScholarlyMetadata as JSON (DOI, ISSN, journal, kind); NULL if none
);
CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(
    title, text, content='documents', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
"""
_TITLE_WEIGHT = 2.0  # a title match says more about the document than one body match
_MAX_MATCH_TERMS = 64  # keeps the FTS5 expression small whatever the user pastes
_SNIPPET_TOKENS = 32
# FTS5's snippet() scores every window around every matching token, so its cost grows with the square of a
# body's matches (0.02 s for 32 KB of figure-dense text, 1.1 s for 256 KB, 10 s for 780 KB). Bodies longer
# than this many characters get a window around their first matching word instead (``window_snippet``).
SNIPPET_MAX_CHARS = 32 * 1024
_SNIPPET_LEAD_WORDS = _SNIPPET_TOKENS // 4  # words shown before the match
_SNIPPET_SCAN_CHARS = 4_000  # how far around the match the window's words are looked for
_MAX_LIMIT = 1000
_PHRASE = re.compile(r'"([^"]*)"')
_NON_SPACE = re.compile(r"\S+")


class CorpusError(Exception):
    """The corpus file cannot be opened or used."""


class CorpusDocument(BaseModel):
    """One indexed document."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    doc_id: str = Field(description="SHA-256 (hex) of the bytes the document came from.")
    kind: str = Field(description="Reader that produced it: html, pdf, text, jsonl or warc.")
    url: str = Field(description="Declared or captured URL; a file: URI when the source gives none.")
    title: str
    text: str
    publisher: str
    domain: str = Field(description="Registered domain of the URL; '' for files.")
    published_at: datetime | None
    source_path: str = Field(description="File it was read from.")
    source_id: str = Field(description="The record's own id in its source (JSONL doc_id or id), else ''.")
    scholarly: ScholarlyMetadata | None = Field(
        default=None, description="An HTML page's scholarly metadata, read when it was added (H16, H17)."
    )


class AddReport(BaseModel):
    """What ``LocalCorpus.add`` did."""

    model_config = ConfigDict(frozen=True)

    files: int = Field(description="Files read.")
    documents: int = Field(description="New documents indexed.")
    duplicates: int = Field(default=0, description="Documents already in the corpus (same content hash).")
    images: int = Field(default=0, description="Images on dated HTML pages newly indexed by perceptual hash.")
    skipped: list[tuple[Path, str]] = Field(default_factory=list, description="(path, reason) not indexed.")


def window_snippet(text: str, words: Iterable[str]) -> str:
    """About ``_SNIPPET_TOKENS`` words of ``text`` from a little before the first of ``words`` it contains
    (whole words, any case; the start of the text when none is found), with ``…`` where it was cut. Reads
    only ``_SNIPPET_SCAN_CHARS`` either side of the match, so its cost does not grow with the text."""
    wanted = [re.escape(word) for word in words if word]
    found = re.search(r"\b(?:" + "|".join(wanted) + r")\b", text, re.IGNORECASE) if wanted else None
    at = found.start() if found else 0
    scan_from = max(0, at - _SNIPPET_SCAN_CHARS)
    lead = list(_NON_SPACE.finditer(text, scan_from, at))
    if lead and lead[0].start() == scan_from and scan_from > 0 and not text[scan_from - 1].isspace():
        lead = lead[1:]  # the scan began inside a word
    lead = lead[-_SNIPPET_LEAD_WORDS:]
    shown = lead.copy()
    for word in _NON_SPACE.finditer(text, at, min(len(text), at + _SNIPPET_SCAN_CHARS)):
        if len(shown) >= _SNIPPET_TOKENS:
            break
        shown.append(word)
    if not shown:
        return ""
    first, last = shown[0].start(), shown[-1].end()
    before = "…" if _NON_SPACE.search(text, 0, first) else ""
    after = "…" if _NON_SPACE.search(text, last) else ""
    return before + " ".join(word.group(0) for word in shown) + after


def match_expression(text: str, any_of: Iterable[str] = ()) -> str | None:
    """An FTS5 MATCH expression for free text, or ``None`` when it holds no searchable word.

    Words become quoted strings joined by OR (BM25 rewards documents matching more and rarer words);
    double-quoted phrases in ``text`` stay phrases. With ``any_of``, a match must also contain one of those.
    Stopwords are dropped unless nothing else is left.
    """
    return _expression(*_query_terms(text, any_of))


def _query_terms(text: str, any_of: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """The terms of ``text`` and those of ``any_of`` (each one phrase), as ``match_expression`` searches them."""
    return _terms(text), [term for item in any_of for term in _terms(f'"{item}"')]


def _expression(core_terms: list[str], alternative_terms: list[str]) -> str | None:
    core, alternatives = _or_group(core_terms), _or_group(alternative_terms)
    if core and alternatives:
        return f"({core}) AND ({alternatives})"
    return core or alternatives or None


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _terms(text: str) -> list[str]:
    phrases = [" ".join(tokens(phrase)) for phrase in _PHRASE.findall(text)]
    words = tokens(_PHRASE.sub(" ", text).replace('"', " "))
    content = [word for word in words if is_content_word(word)] or words
    seen: set[str] = set()
    terms: list[str] = []
    for term in [phrase for phrase in phrases if phrase] + content:
        if term.lower() not in seen:
            seen.add(term.lower())
            terms.append(term)
    return terms[:_MAX_MATCH_TERMS]


def _or_group(terms: list[str]) -> str:
    return " OR ".join(_quote(term) for term in terms)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


class LocalCorpus:
    """A local search corpus stored in one SQLite file (created on first use).

    Safe to share between threads: calls are serialised on one connection.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        limits: ReadLimits | None = None,
    ) -> None:
        self.path = Path(path)
        self.max_file_bytes = max_file_bytes
        self.limits = limits or ReadLimits()
        self._lock = threading.Lock()
        try:
            if self.path.parent != Path():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False)
            self._setup()
        except (OSError, sqlite3.Error) as exc:
            raise CorpusError(f"cannot open corpus {self.path}: {exc}") from None

    def _setup(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        tables = self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables and version != _SCHEMA_VERSION and version not in _UPGRADES:
            raise CorpusError(f"{self.path} is not an Icarus corpus (schema version {version})")
        with self._conn:
            if tables and version in _UPGRADES:
                self._conn.execute(_UPGRADES[version])
            self._conn.executescript(_SCHEMA)
            self._conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
        self._images = ImageIndex(self._conn)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> LocalCorpus:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LocalCorpus({str(self.path)!r})"

    def __len__(self) -> int:
        with self._lock:
            count: int = self._conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        return count

    # Indexing

    def add(self, paths: Iterable[Path | str], progress: ProgressCallback | None = None) -> AddReport:
        """Index files and folders; returns counts and every skipped path with its reason."""
        files, skipped = self._collect([Path(path) for path in paths])
        read = documents = duplicates = images = 0
        for done, (path, kind) in enumerate(files, start=1):
            try:
                added, dupes, record_skips = self._add_file(path, kind)
            except ReadError as exc:
                skipped.append((path, str(exc)))
            else:
                read += 1
                documents += added
                duplicates += dupes
                skipped.extend((path, reason) for reason in record_skips)
                if kind == "html":
                    indexed, image_skips = self._add_page_images(path)
                    images += indexed
                    skipped.extend(image_skips)
            if progress is not None:
                progress(done, len(files), path)
        return AddReport(
            files=read, documents=documents, duplicates=duplicates, images=images, skipped=skipped
        )

    def _add_page_images(self, page: Path) -> tuple[int, list[tuple[Path, str]]]:
        """Hash the local images a dated HTML page shows; (images newly indexed, (path, reason) skipped)."""
        try:
            raw = page.read_bytes()
        except OSError:
            return 0, []
        sources = image_sources(raw)
        if not sources:
            return 0, []
        with self._lock:
            row = self._conn.execute(
                "SELECT doc_id, url, published_at FROM documents WHERE doc_id = ?", (_sha256_hex(raw),)
            ).fetchone()
        if row is None or row[2] is None:
            return 0, []  # no document, or an undated page: it cannot date the images it shows
        doc_id, page_url, published = row[0], row[1], datetime.fromisoformat(row[2])
        folder = page.resolve().parent
        indexed = 0
        skipped: list[tuple[Path, str]] = []
        for source in sources:
            image = _local_image(folder, source)
            if isinstance(image, str):
                skipped.append((page, f"image {source[:200]!r}: {image}"))
                continue
            try:
                data = image.read_bytes()
                phash = perceptual_hash(data)
            except (OSError, ImageError) as exc:
                skipped.append((image, f"image not indexed: {exc}"))
                continue
            copy = ImageCopy(phash, published, image.as_uri(), page_url, doc_id)
            with self._lock, self._conn:
                indexed += self._images.add(copy, hashlib.sha256(data).hexdigest())
        return indexed, skipped

    def image_copies(self, phash: int, max_distance: int) -> list[ImageCopy]:
        """Indexed images within ``max_distance`` bits of ``phash``, earliest first."""
        with self._lock:
            return self._images.near(phash, max_distance)

    def _collect(self, roots: list[Path]) -> tuple[list[tuple[Path, str]], list[tuple[Path, str]]]:
        """Files to read, in a stable order, and paths refused before reading."""
        real_roots = [root.resolve() for root in roots if root.exists()]
        files: list[tuple[Path, str]] = []
        skipped: list[tuple[Path, str]] = []
        seen: set[Path] = set()
        visited: set[Path] = set()

        def inside_roots(target: Path) -> bool:
            return any(target == root or target.is_relative_to(root) for root in real_roots)

        def consider(path: Path, real: Path) -> None:
            if real in seen:
                return
            seen.add(real)
            kind = suffix_kind(path)
            if kind is None:
                skipped.append((path, "unsupported file type"))
                return
            try:
                size = real.stat().st_size
            except OSError as exc:
                skipped.append((path, f"cannot read file: {exc.strerror or exc}"))
                return
            if size > self.max_file_bytes:
                skipped.append((path, f"file larger than {self.max_file_bytes} bytes"))
                return
            files.append((path, kind))

        def walk(folder: Path) -> None:
            real_folder = folder.resolve()
            if real_folder in visited:
                return  # a symlink loop, or a folder reached twice
            visited.add(real_folder)
            try:
                entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
            except OSError as exc:
                skipped.append((folder, f"cannot list folder: {exc.strerror or exc}"))
                return
            for entry in entries:
                if entry.name.startswith("."):
                    continue  # hidden files and folders (.git, editor state) are never documents
                path = Path(entry.path)
                if Path(entry.name).stem.upper() == "README" and not entry.is_dir():
                    # it describes the folder, it is not one of its documents; named as a file, it is added
                    skipped.append((path, "a folder's README is not indexed; name the file to index it"))
                    continue
                if entry.is_symlink():
                    target = path.resolve()
                    if not inside_roots(target):
                        skipped.append((path, "symlink leads outside the given folders; not followed"))
                    elif target.is_dir():
                        walk(path)
                    elif target.is_file():
                        consider(path, target)
                    else:
                        skipped.append((path, "broken symlink"))
                elif entry.is_dir(follow_symlinks=False):
                    walk(path)
                elif entry.is_file(follow_symlinks=False):
                    consider(path, path.resolve())

        for root in roots:
            if not root.exists():
                skipped.append((root, "no such file or folder"))
            elif root.is_dir():
                walk(root)
            else:
                consider(root, root.resolve())
        return files, skipped

    def _add_file(self, path: Path, kind: str) -> tuple[int, int, list[str]]:
        added = duplicates = 0
        record_skips: list[str] = []
        with self._lock, self._conn:
            for item in read_path(path, kind, self.limits):
                if isinstance(item, SkippedRecord):
                    record_skips.append(item.reason)
                    continue
                if self._insert(item):
                    added += 1
                else:
                    duplicates += 1
        return added, duplicates, record_skips

    def _insert(self, document: RawDocument) -> bool:
        domain = ""
        if document.url.startswith(("http://", "https://")):
            host = _host(document.url)
            domain = registered_domain(host) if host else ""
        scholarly = document.scholarly.model_dump_json() if document.scholarly is not None else None
        cursor = self._conn.execute(
            "INSERT OR IGNORE INTO documents (doc_id, kind, url, title, text, publisher, domain, "
            "published_at, source_path, source_id, scholarly) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                document.sha256,
                document.kind,
                document.url,
                document.title,
                document.text,
                document.publisher,
                domain,
                _iso(document.published_at),
                document.source_path,
                document.source_id,
                scholarly,
            ),
        )
        if cursor.rowcount != 1:
            if scholarly is not None:  # a document indexed before the corpus kept metadata
                self._conn.execute(
                    "UPDATE documents SET scholarly = ? WHERE doc_id = ? AND scholarly IS NULL",
                    (scholarly, document.sha256),
                )
            return False
        self._conn.execute(
            "INSERT INTO documents_fts (rowid, title, text) VALUES (?, ?, ?)",
            (cursor.lastrowid, document.title, document.text),
        )
        return True

    # Reading

    def search(
        self,
        query: PlannedQuery | str,
        limit: int = 10,
        *,
        since: date | None = None,
        until: date | None = None,
    ) -> list[SearchHit]:
        """Documents matching ``query``, best first; a ``PlannedQuery`` brings its own date bounds."""
        if isinstance(query, PlannedQuery):
            core, alternatives = _query_terms(query.text, query.any_of)
            since, until = query.since, query.until
        else:
            core, alternatives = _query_terms(query)
        expression = _expression(core, alternatives)
        # what window_snippet looks for in a body too long for FTS5's snippet()
        words = [word for term in (*core, *alternatives) for word in term.split()]
        if expression is None or limit <= 0:
            return []
        # Bounds are inclusive days; compare ISO strings (all stored in UTC, one format).
        since_text = since.isoformat() if since else None
        until_text = (until + timedelta(days=1)).isoformat() if until else None
        # The snippet comes from the body (column 1): a title match would only echo the title back.
        sql = f"""
            SELECT d.doc_id, d.url, d.title, d.text, d.publisher, d.domain, d.published_at,
                   CASE WHEN length(d.text) <= :snippet_max
                        THEN snippet(documents_fts, 1, '', '', '…', {_SNIPPET_TOKENS}) END,
                   bm25(documents_fts, {_TITLE_WEIGHT}, 1.0) AS rank, d.scholarly
            FROM documents_fts JOIN documents AS d ON d.id = documents_fts.rowid
            WHERE documents_fts MATCH :expression
              AND (:since IS NULL OR d.published_at IS NULL OR d.published_at >= :since)
              AND (:until IS NULL OR d.published_at IS NULL OR d.published_at < :until)
            ORDER BY rank, d.doc_id
            LIMIT :limit
        """
        params = {
            "expression": expression,
            "since": since_text,
            "until": until_text,
            "limit": limit,
            "snippet_max": SNIPPET_MAX_CHARS,
        }
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [
            SearchHit(
                doc_id=row[0],
                url=row[1],
                title=row[2],
                text=row[3],
                publisher=row[4],
                domain=row[5],
                published_at=datetime.fromisoformat(row[6]) if row[6] else None,
                snippet=row[7] if row[7] is not None else window_snippet(row[3], words),
                score=-float(row[8]),  # bm25() is lower-is-better
                provider=LocalCorpusProvider.name,
                scholarly=_scholarly(row[9]),
            )
            for row in rows
        ]

    def get(self, doc_id: str) -> CorpusDocument | None:
        """The document with this id, or ``None``."""
        with self._lock:
            row = self._conn.execute(f"{_SELECT_DOCUMENT} WHERE doc_id = ?", (doc_id,)).fetchone()
        return _document(row) if row else None

    def documents(self) -> Iterator[CorpusDocument]:
        """Every document, in the order it was added."""
        last = 0
        while True:
            with self._lock:
                rows = self._conn.execute(
                    f"{_SELECT_DOCUMENT} WHERE id > ? ORDER BY id LIMIT 500", (last,)
                ).fetchall()
            if not rows:
                return
            for row in rows:
                last = row[-1]
                yield _document(row)


_SELECT_DOCUMENT = (
    "SELECT doc_id, kind, url, title, text, publisher, domain, published_at, source_path, source_id, "
    "scholarly, id "
    "FROM documents"
)


def _sha256_hex(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _local_image(folder: Path, source: str) -> Path | str:
    """The file a page's ``src`` names inside the page's folder, or why it is not read.

    Only a relative reference without scheme, host, query or parent steps is followed, and the file it
    resolves to (links included) must lie inside ``folder`` and be a regular file of at most
    ``MAX_IMAGE_BYTES``.
    """
    parts = urlsplit(source)
    if parts.scheme or parts.netloc or source.startswith(("/", "\\")):
        return "not a local file next to the page (never fetched)"
    relative = unquote(parts.path)
    if not relative or ".." in Path(relative).parts:
        return "path leads out of the page's folder"
    candidate = (folder / relative).resolve()
    if not candidate.is_relative_to(folder):
        return "path leads out of the page's folder"
    try:
        stat = candidate.stat()
    except OSError:
        return "no such file"
    if not candidate.is_file():
        return "not a regular file"
    if stat.st_size > MAX_IMAGE_BYTES:
        return f"larger than {MAX_IMAGE_BYTES} bytes"
    return candidate


def _document(row: tuple[Any, ...]) -> CorpusDocument:
    return CorpusDocument(
        doc_id=row[0],
        kind=row[1],
        url=row[2],
        title=row[3],
        text=row[4],
        publisher=row[5],
        domain=row[6],
        published_at=datetime.fromisoformat(row[7]) if row[7] else None,
        source_path=row[8],
        source_id=row[9],
        scholarly=_scholarly(row[10]),
    )


def _scholarly(stored: str | None) -> ScholarlyMetadata | None:
    if not stored:
        return None
    try:
        return ScholarlyMetadata.model_validate_json(stored)
    except ValueError:  # written by another version of the model: the metadata is unknown, not wrong
        return None


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


class LocalCorpusProvider:
    """``SearchProvider`` over a ``LocalCorpus``; a failure becomes an ``error`` result, never a raise."""

    name = "local_corpus"

    def __init__(self, corpus: LocalCorpus) -> None:
        self.corpus = corpus

    def __repr__(self) -> str:
        return f"LocalCorpusProvider({self.corpus!r})"

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        try:
            hits = self.corpus.search(query, min(limit, _MAX_LIMIT))
        except sqlite3.Error as exc:
            return ProviderResult.error(self.name, f"local corpus search failed: {exc}")
        except Exception as exc:  # the check must go on; the failure is reported, not raised
            return ProviderResult.error(self.name, f"local corpus search failed ({type(exc).__name__})")
        return ProviderResult.ok(self.name, hits)
