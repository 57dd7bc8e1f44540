"""The corpus keeps an HTML page's scholarly metadata from ``corpus add`` (it stores text, not the page), so
a check's evidence from it carries the DOI (H16) and the journal or preprint (H17); a corpus written before
it kept metadata is upgraded in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from icarus.ledger import PublicationType
from icarus.research import LocalCorpus

JOURNAL = """<!doctype html><html><head><title>Harbour traffic</title>
<meta name="citation_doi" content="https://doi.org/10.5555/HARBOUR.1">
<meta name="citation_issn" content="0028-0836"><meta name="citation_journal_title" content="Harbour Letters">
<meta name="citation_publication_date" content="2026/10/30">
</head><body><article><p>Container traffic at Halden harbour fell 12% in October against the same month a
year before, according to the port authority's monthly statistics published on Friday.</p></article></body>
</html>"""
PLAIN = """<!doctype html><html><head><title>Harbour news</title></head><body><article><p>Container traffic
at Halden harbour was steady in September, the harbour master told reporters on the quay.</p></article>
</body></html>"""

# The documents table as schema version 1 wrote it (no scholarly column).
VERSION_1 = """
CREATE TABLE documents (
    id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, url TEXT NOT NULL,
    title TEXT NOT NULL, text TEXT NOT NULL, publisher TEXT NOT NULL, domain TEXT NOT NULL,
    published_at TEXT, source_path TEXT NOT NULL, source_id TEXT NOT NULL
);
CREATE VIRTUAL TABLE documents_fts USING fts5(
    title, text, content='documents', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
PRAGMA user_version = 1;
"""


def pages(tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "journal.html").write_text(JOURNAL, encoding="utf-8")
    (folder / "plain.html").write_text(PLAIN, encoding="utf-8")
    return folder


def test_H17_corpus_hits_carry_the_metadata_read_at_add_time(tmp_path: Path) -> None:
    with LocalCorpus(tmp_path / "corpus.sqlite") as corpus:
        corpus.add([pages(tmp_path)])
        hits = {hit.title: hit for hit in corpus.search("container traffic Halden harbour")}
        stored = corpus.get(hits["Harbour traffic"].doc_id)  # what recycled-image matches read
    journal = hits["Harbour traffic"].scholarly
    assert stored is not None and stored.scholarly == journal
    assert journal is not None
    assert (journal.doi, journal.issn, journal.container_title) == (
        "10.5555/harbour.1",
        "0028-0836",
        "Harbour Letters",
    )
    assert journal.publication_type is PublicationType.JOURNAL_ARTICLE
    assert hits["Harbour news"].scholarly is None


def test_a_version_1_corpus_is_upgraded_and_filled_in_when_added_again(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(VERSION_1)
    folder = pages(tmp_path)
    with LocalCorpus(path) as corpus:
        first = corpus.add([folder])
        again = corpus.add([folder])  # same bytes: duplicates, but the metadata is kept now
        hits = {hit.title: hit for hit in corpus.search("container traffic Halden harbour")}
    assert (first.documents, again.documents, again.duplicates) == (2, 0, 2)
    assert hits["Harbour traffic"].scholarly is not None
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        nulled = conn.execute("UPDATE documents SET scholarly = NULL").rowcount
    assert nulled == 2
    with LocalCorpus(path) as corpus:
        corpus.add([folder])
        refilled = {hit.title: hit.scholarly for hit in corpus.search("container traffic Halden harbour")}
    assert refilled["Harbour traffic"] is not None and refilled["Harbour news"] is None
