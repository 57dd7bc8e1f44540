"""The local corpus: reading every supported format, BM25 search, hostile queries, idempotence, caps."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icarus.research import corpus as corpus_module
from icarus.research.corpus import (
    SNIPPET_MAX_CHARS,
    CorpusError,
    LocalCorpus,
    LocalCorpusProvider,
    ReadLimits,
    match_expression,
    window_snippet,
)
from icarus.research.providers import ProviderStatus, SearchProvider
from icarus.research.queries import CORRECTION_TERMS, PlannedQuery, QueryKind
from tests.research.corpus_files import html_page, jsonl, pdf_bytes, warc

HOSTILE = [
    '"AND OR NEAR( *',
    "NEAR(council budget, 2)",
    "title:council",
    "council* OR -budget ^start",
    '"unbalanced',
    "'; DROP TABLE documents; --",
    "(((((",
    "\x00\x01 council",
    "council\u200bbudget",
    "ﬁnance ÉTÉ naïve",
    "a" * 10_000,
    " ".join(["council"] * 500),
    "",
    "   ",
    "the of and",
    "*",
    '""',
]


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """A folder with one document of each kind, each on its own topic."""
    root = tmp_path / "library"
    (root / "news" / "2024").mkdir(parents=True)
    (root / "papers").mkdir()
    (root / "news" / "2024" / "transit.html").write_bytes(
        html_page(
            "Council approves transit budget",
            [
                "The city council approved the new transit budget on Monday after a long debate about "
                "bus routes and fares for commuters.",
                "The vote was seven to two, officials said, and the plan takes effect in April.",
            ],
            canonical="https://news.example.org/2024/03/transit-budget",
            published="2024-03-04T10:00:00Z",
            site="City News",
        )
    )
    (root / "papers" / "nitrate.pdf").write_bytes(
        pdf_bytes(
            [
                "Groundwater nitrate contamination in agricultural basins.",
                "Wells near fertilised fields exceeded the nitrate limit in 31 of 120 samples.",
            ],
            title="Groundwater nitrate report",
        )
    )
    (root / "volcano.txt").write_text(
        "Volcanic ash cloud grounds flights\n\nAn eruption sent an ash cloud over the North Atlantic, and "
        "aviation authorities closed airspace for six days.\n"
    )
    (root / "lighthouse.md").write_text(
        "# Lighthouse restoration\n\nVolunteers finished restoring the coastal lighthouse lantern room.\n"
    )
    (root / "records.jsonl").write_bytes(
        jsonl(
            [
                {
                    "doc_id": 4983,
                    "title": "Telomerase activity in human stem cells",
                    "abstract": [
                        "Telomerase maintains telomere length in dividing stem cells.",
                        "Inhibiting telomerase shortened telomeres within forty divisions.",
                    ],
                    "structured": False,
                },
                {
                    "url": "https://www.daily.example.co.uk/wildfire-evacuation",
                    "title": "Wildfire forces evacuation of hillside towns",
                    "body": "Residents of three hillside towns were evacuated as the wildfire spread overnight.",
                    "published": "2023-08-10",
                    "publisher": "Daily Example",
                    "tags": ["fire", "weather"],
                },
                "{not json",
                {"title": "A record with no text at all"},
                "[1, 2, 3]",
            ]
        )
    )
    warc(
        root / "crawl.warc.gz",
        [
            (
                "https://science.example.net/glaciers",
                "200 OK",
                "text/html; charset=utf-8",
                html_page(
                    "Glacier retreat measured",
                    [
                        "Alpine glacier retreat measurements show the ice front moved back 40 metres in a "
                        "single summer, the largest retreat on record.",
                    ],
                    published="2022-09-01",
                ),
            ),
            ("https://science.example.net/missing", "404 Not Found", "text/html", b"<html>gone</html>"),
            ("https://science.example.net/logo.png", "200 OK", "image/png", b"\x89PNG\r\n\x1a\n"),
        ],
    )
    (root / "notes.docx").write_bytes(b"PK\x03\x04 not supported")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD.txt").write_text("ref: refs/heads/main council transit budget")
    return root


@pytest.fixture
def corpus(tmp_path: Path, library: Path) -> LocalCorpus:
    store = LocalCorpus(tmp_path / "corpus.db")
    store.add([library])
    return store


def test_add_reads_every_supported_kind(tmp_path: Path, library: Path) -> None:
    calls: list[tuple[int, int, str]] = []
    with LocalCorpus(tmp_path / "corpus.db") as store:
        report = store.add(
            [library], progress=lambda done, total, path: calls.append((done, total, path.name))
        )
        assert report.files == 6
        assert report.documents == 7  # html, pdf, txt, md, two JSONL lines, one WARC page
        assert len(store) == 7
        kinds = sorted(document.kind for document in store.documents())
        assert kinds == ["html", "jsonl", "jsonl", "pdf", "text", "text", "warc"]
    reasons = {(path.name, reason) for path, reason in report.skipped}
    assert ("notes.docx", "unsupported file type") in reasons
    assert ("records.jsonl", "line 3: not a JSON object") in reasons
    assert ("records.jsonl", "line 4: no text (fields text, body or abstract)") in reasons
    assert ("records.jsonl", "line 5: not a JSON object") in reasons
    assert not any(path.name == "HEAD.txt" for path, _ in report.skipped)  # hidden folders are not read
    assert [done for done, _, _ in calls] == list(range(1, 7)) and {total for _, total, _ in calls} == {6}


def test_metadata_is_kept(corpus: LocalCorpus) -> None:
    by_title = {document.title: document for document in corpus.documents()}
    html = by_title["Council approves transit budget"]
    assert html.url == "https://news.example.org/2024/03/transit-budget"
    assert (html.publisher, html.domain) == ("City News", "example.org")
    assert html.published_at == datetime(2024, 3, 4, 10, 0, tzinfo=UTC)  # the time of day kept
    assert "seven to two" in html.text and "Sport" not in html.text  # boilerplate left out

    pdf = by_title["Groundwater nitrate report"]
    assert "31 of 120 samples" in pdf.text and pdf.url.startswith("file://")
    assert pdf.published_at == datetime(2024, 3, 5, 12, 0, tzinfo=UTC)

    scifact = by_title["Telomerase activity in human stem cells"]
    assert scifact.source_id == "4983"
    assert scifact.text.startswith("Telomerase maintains telomere length in dividing stem cells. Inhibiting")
    assert scifact.url.endswith("records.jsonl#line=1")

    news = by_title["Wildfire forces evacuation of hillside towns"]
    assert (news.publisher, news.domain) == ("Daily Example", "example.co.uk")
    assert news.published_at == datetime(2023, 8, 10, tzinfo=UTC)

    page = by_title["Glacier retreat measured"]
    assert page.url == "https://science.example.net/glaciers" and page.domain == "example.net"
    assert by_title["Lighthouse restoration"].kind == "text"
    assert by_title["Volcanic ash cloud grounds flights"].text.endswith("closed airspace for six days.")
    assert corpus.get(html.doc_id) == html
    assert corpus.get("0" * 64) is None
    assert len(html.doc_id) == 64


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("council vote on the transit budget", "Council approves transit budget"),
        ("nitrate in groundwater wells", "Groundwater nitrate report"),
        ("eruption closed airspace", "Volcanic ash cloud grounds flights"),
        ("lighthouse volunteers", "Lighthouse restoration"),
        ("telomere shortening when telomerase is inhibited", "Telomerase activity in human stem cells"),
        ("towns evacuated because of wildfires", "Wildfire forces evacuation of hillside towns"),
        ("how far did the glaciers retreat", "Glacier retreat measured"),
    ],
)
def test_search_ranks_the_relevant_document_first(corpus: LocalCorpus, query: str, title: str) -> None:
    hits = corpus.search(query, 5)
    assert hits and hits[0].title == title
    assert hits[0].snippet and hits[0].text and hits[0].provider == "local_corpus"
    assert hits[0].score > 0 and [hit.score for hit in hits] == sorted((h.score for h in hits), reverse=True)


def test_phrases_and_alternatives(corpus: LocalCorpus) -> None:
    assert [hit.title for hit in corpus.search('"ash cloud"')] == ["Volcanic ash cloud grounds flights"]
    assert corpus.search('"cloud ash"') == []
    # A correction query needs one of its alternatives; nothing here is a correction.
    correction = PlannedQuery(kind=QueryKind.CORRECTION, text="transit budget", any_of=CORRECTION_TERMS)
    assert corpus.search(correction) == []
    assert (
        match_expression("transit budget", ["no evidence"]) == '("transit" OR "budget") AND ("no evidence")'
    )


def test_date_bounds_drop_dated_documents_outside_and_keep_undated(corpus: LocalCorpus) -> None:
    def titles(since: date | None, until: date | None, text: str) -> list[str]:
        query = PlannedQuery(kind=QueryKind.EVENT_DATED, text=text, since=since, until=until)
        return [hit.title for hit in corpus.search(query, 10)]

    assert titles(date(2024, 3, 1), date(2024, 3, 4), "transit budget") == ["Council approves transit budget"]
    assert titles(date(2024, 3, 5), None, "transit budget") == []
    assert titles(None, date(2024, 3, 3), "transit budget") == []
    assert titles(date(2030, 1, 1), None, "volcanic ash eruption") == ["Volcanic ash cloud grounds flights"]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_break_the_syntax(corpus: LocalCorpus, query: str) -> None:
    hits = corpus.search(query, 5)
    assert isinstance(hits, list)
    result = LocalCorpusProvider(corpus).search(
        PlannedQuery(kind=QueryKind.CLOSE_WORDING, text=query or "x"), 5
    )
    assert result.status is ProviderStatus.OK


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_a_valid_query(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    store = _shared_corpus(tmp_path_factory)
    store.search(text, 3)


_SHARED: dict[str, LocalCorpus] = {}


def _shared_corpus(factory: pytest.TempPathFactory) -> LocalCorpus:
    if "store" not in _SHARED:
        folder = factory.mktemp("shared")
        (folder / "a.txt").write_text("council transit budget vote NEAR the station; AND or OR words")
        _SHARED["store"] = LocalCorpus(folder / "c.db")
        _SHARED["store"].add([folder])
    return _SHARED["store"]


def test_re_adding_is_idempotent(tmp_path: Path, library: Path, corpus: LocalCorpus) -> None:
    before = sorted(document.doc_id for document in corpus.documents())
    again = corpus.add([library])
    assert (again.files, again.documents, again.duplicates) == (6, 0, 7)
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "same-volcano.txt").write_bytes((library / "volcano.txt").read_bytes())
    renamed = corpus.add([copy])
    assert (renamed.documents, renamed.duplicates) == (0, 1)
    assert sorted(document.doc_id for document in corpus.documents()) == before
    assert len(corpus.search("volcanic ash", 10)) == 1


def test_reopening_keeps_the_index(tmp_path: Path, corpus: LocalCorpus) -> None:
    corpus.close()
    with LocalCorpus(tmp_path / "corpus.db") as reopened:
        assert len(reopened) == 7
        assert reopened.search("lighthouse")[0].title == "Lighthouse restoration"


def test_oversized_files_and_documents_are_skipped_with_a_reason(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "big.txt").write_text("harbour " * 500)
    (folder / "small.txt").write_text("a small note about the harbour")
    (folder / "lines.jsonl").write_bytes(jsonl([{"text": "short harbour line"}, {"text": "harbour " * 100}]))
    store = LocalCorpus(tmp_path / "c.db", max_file_bytes=2000, limits=ReadLimits(max_document_bytes=400))
    report = store.add([folder])
    reasons = {(path.name, reason) for path, reason in report.skipped}
    assert ("big.txt", "file larger than 2000 bytes") in reasons
    assert ("lines.jsonl", "line 2: longer than 400 bytes") in reasons
    assert report.documents == 2


def test_bad_files_are_skipped_with_a_reason(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n garbage")
    (folder / "scanned.pdf").write_bytes(pdf_bytes([]))
    (folder / "empty.txt").write_text("   \n")
    (folder / "nothing.html").write_text("<html><body><script>var a = 1;</script></body></html>")
    (folder / "fake.warc").write_bytes(b"this is not an archive")
    report = LocalCorpus(tmp_path / "c.db").add([folder, tmp_path / "does-not-exist"])
    reasons = {path.name: reason for path, reason in report.skipped}
    assert reasons["broken.pdf"].startswith("unreadable PDF")
    assert reasons["scanned.pdf"].startswith("no extractable text in PDF")
    assert reasons["empty.txt"] == "empty text file"
    assert reasons["nothing.html"] == "no main text found in HTML"
    assert reasons["fake.warc"].startswith("not a readable WARC file")
    assert reasons["does-not-exist"] == "no such file or folder"
    assert (report.files, report.documents) == (0, 0)


def test_pdf_page_cap(tmp_path: Path) -> None:
    (tmp_path / "doc.pdf").write_bytes(pdf_bytes(["harbour dredging plan"]))
    store = LocalCorpus(tmp_path / "c.db", limits=ReadLimits(max_pdf_pages=0))
    report = store.add([tmp_path / "doc.pdf"])
    assert report.skipped[0][1].startswith("no extractable text in PDF")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symlinks unavailable")
def test_symlinks_out_of_the_roots_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("private diary about the harbour")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "inside.txt").write_text("public note about the harbour")
    (root / "leak.txt").symlink_to(outside / "secret.txt")
    (root / "leakdir").symlink_to(outside, target_is_directory=True)
    (root / "alias.txt").symlink_to(root / "sub" / "inside.txt")
    (root / "sub" / "loop").symlink_to(root, target_is_directory=True)
    (root / "dangling.txt").symlink_to(root / "gone.txt")
    store = LocalCorpus(tmp_path / "c.db")
    report = store.add([root])
    reasons = {path.name: reason for path, reason in report.skipped}
    assert (
        reasons["leak.txt"] == reasons["leakdir"] == "symlink leads outside the given folders; not followed"
    )
    assert reasons["dangling.txt"] == "broken symlink"
    assert (report.files, report.documents) == (1, 1)  # inside.txt once, whatever the aliases
    assert [hit.snippet for hit in store.search("harbour")] == ["public note about the harbour"]
    # Naming the outside folder as a root is explicit consent.
    assert store.add([root, outside]).documents == 1


def test_provider_protocol_and_failures_are_results(tmp_path: Path, corpus: LocalCorpus) -> None:
    provider = LocalCorpusProvider(corpus)
    assert isinstance(provider, SearchProvider)
    query = PlannedQuery(kind=QueryKind.CLOSE_WORDING, text="lighthouse")
    assert provider.search(query, 3).hits[0].title == "Lighthouse restoration"
    corpus.close()
    failed = provider.search(query, 3)
    assert failed.status is ProviderStatus.ERROR and failed.hits == []


def test_a_foreign_database_is_refused(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE people (name TEXT)")
    with pytest.raises(CorpusError, match="not an Icarus corpus"):
        LocalCorpus(other)
    (tmp_path / "junk.db").write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(CorpusError, match="cannot open corpus"):
        LocalCorpus(tmp_path / "junk.db")


def test_a_long_body_gets_a_window_snippet_around_its_first_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FTS5's snippet() costs the square of a body's matches; past SNIPPET_MAX_CHARS a window is cut instead
    cut: list[int] = []

    def counted(text: str, words: list[str]) -> str:
        cut.append(len(text))
        return window_snippet(text, words)

    monkeypatch.setattr(corpus_module, "window_snippet", counted)
    filler = "Figures for 2019 show 2,500 units and 3,400 parts in 12 regions. " * 600
    body = filler + "The harbour authority reported that the terminal reopened. " + filler
    assert len(body) > SNIPPET_MAX_CHARS
    root = tmp_path / "docs"
    root.mkdir()
    (root / "long.txt").write_text(body)
    (root / "short.txt").write_text("The harbour authority met on Monday to discuss the terminal.")
    store = LocalCorpus(tmp_path / "c.db")
    assert store.add([root]).documents == 2
    snippets = {hit.text[:20]: hit.snippet for hit in store.search("harbour terminal reopened")}
    long_snippet = snippets[body[:20]]
    assert long_snippet.startswith("…") and long_snippet.endswith("…")
    assert "The harbour authority reported that the terminal reopened." in long_snippet
    assert len(long_snippet.split()) <= 32
    # a short body keeps FTS5's own snippet: the whole sentence, nothing cut
    assert snippets["The harbour authorit"] == "The harbour authority met on Monday to discuss the terminal."
    assert len(cut) == 1 and cut[0] > SNIPPET_MAX_CHARS  # only the long body was cut in Python


@pytest.mark.parametrize(
    ("text", "words", "expected"),
    [
        ("one two three", ["two"], "one two three"),
        ("nothing matches here", ["zzz"], "nothing matches here"),
        ("", ["x"], ""),
        ("Harbour news", ["HARBOUR"], "Harbour news"),  # any case, whole words only
        ("harbours harbour", ["harbour"], "harbours harbour"),
        ("x" * 6_000 + " harbour here", ["harbour"], "…harbour here"),  # the scan began inside a word
    ],
)
def test_window_snippet(text: str, words: list[str], expected: str) -> None:
    assert window_snippet(text, words) == expected
