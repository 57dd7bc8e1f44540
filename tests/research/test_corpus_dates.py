"""Corpus dates written day first (D-M-YYYY, as AVeriTeC writes them: "2-10-2020") are read as publication
dates; a date that cannot be read stays null, and nothing (no crawl time, no guessed part) stands in."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from icarus.research import LocalCorpus
from icarus.research._text import parse_datetime
from tests.datasets import DATASETS

AVERITEC = DATASETS / "averitec" / "dev.json"


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("2-10-2020", datetime(2020, 10, 2, tzinfo=UTC)),  # the day first: 2 October, not 10 February
        ("31-10-2020", datetime(2020, 10, 31, tzinfo=UTC)),
        ("02/10/2020", datetime(2020, 10, 2, tzinfo=UTC)),
        ("12/25/2020", datetime(2020, 12, 25, tzinfo=UTC)),  # no 25th month: only the US order reads
        ("2020-10-02", datetime(2020, 10, 2, tzinfo=UTC)),
    ],
)
def test_a_written_date_is_read_with_the_day_first(written: str, read: datetime) -> None:
    assert parse_datetime(written) == read


@pytest.mark.parametrize(
    "written", ["October 2020", "2020", "2-10-20", "Mon 2 Oct", "not a date", "32-13-2020"]
)
def test_a_date_missing_a_part_or_unreadable_stays_null(written: str) -> None:
    assert parse_datetime(written) is None


def test_the_corpus_reads_day_first_dates_and_leaves_unreadable_ones_null(tmp_path: Path) -> None:
    records = [
        {"url": "https://news.example.ng/rice", "title": "Rice in Nigeria", "date": "2-10-2020",
         "text": "Most Nigerian households eat rice at least three times a week."},
        {"url": "https://news.example.ng/undated", "title": "Undated page", "date": "sometime in autumn",
         "text": "A page whose date field cannot be read."},
    ]  # fmt: skip
    library = tmp_path / "library"
    library.mkdir()
    (library / "pages.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add([library])
    by_url = {document.url: document for document in corpus.documents()}
    assert by_url["https://news.example.ng/rice"].published_at == datetime(2020, 10, 2, tzinfo=UTC)
    assert by_url["https://news.example.ng/undated"].published_at is None


@pytest.mark.skipif(not AVERITEC.exists(), reason=f"{AVERITEC} is not on this machine")
def test_every_averitec_date_reads_as_the_day_it_names() -> None:
    written = {row["claim_date"] for row in json.loads(AVERITEC.read_text()) if row.get("claim_date")}
    assert written
    for text in written:
        day, month, year = (int(part) for part in text.split("-"))
        assert parse_datetime(text) == datetime(year, month, day, tzinfo=UTC), text
