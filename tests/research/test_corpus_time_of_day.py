"""A corpus page's publication time keeps its time of day: 12:30Z is not 00:00Z."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from icarus.research import LocalCorpus

PAGE = """<!doctype html><html lang="en"><head><title>Harbour traffic falls</title>
<meta property="article:published_time" content="2026-11-20T12:30:00Z">
<link rel="canonical" href="https://news.example.org/harbour"></head>
<body><article><h1>Harbour traffic falls</h1><p>{body}</p></article></body></html>"""


def test_a_pages_published_time_of_day_is_kept(tmp_path: Path) -> None:
    page = tmp_path / "harbour.html"
    page.write_text(PAGE.format(body="Container traffic at the harbour fell 12 percent in October. " * 20))
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add([page])
    [document] = list(corpus.documents())
    assert document.published_at == datetime(2026, 11, 20, 12, 30, tzinfo=UTC)
