from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

import pytest

from icarus.capture import MAX_TEXT_CHARS, CaptureError, capture_text
from icarus.ledger import FieldName, SubjectKind


def test_text_is_stored_verbatim_with_a_content_hash_id(captured_at: datetime) -> None:
    text = "  Support rose 5%\u00a0this year,\r\nfrom 40% to 45%.  "
    subject = capture_text(text, captured_at)
    assert subject.kind is SubjectKind.TEXT
    assert subject.field_text(FieldName.PLAIN_TEXT) == text
    assert subject.subject_id == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert subject.fields[0].artifact_id == subject.subject_id
    assert subject.captured_at == captured_at


def test_docs_example_hash_matches() -> None:
    text = "Support for the Dunmore tram extension rose 5% this year, from 40% to 45%."
    subject = capture_text(text, datetime(2026, 10, 23, 9, 55, tzinfo=UTC))
    assert subject.subject_id == "sha256:d526ee08735694fe3d583a6ef25d20d1f9a7fde0586d3e2bc8fdae38a470a4d7"


def test_explicit_subject_id_and_offset_time_is_read_as_utc() -> None:
    local = datetime(2026, 3, 5, 10, 0, tzinfo=timezone(timedelta(hours=1)))
    subject = capture_text("Water rates rose in March.", local, subject_id="paste-1")
    assert subject.subject_id == "paste-1"
    assert subject.captured_at.utcoffset() == timedelta(0)
    assert subject.captured_at.hour == 9


@pytest.mark.parametrize("text", ["", "   ", "\n\t\u2003"])
def test_empty_text_is_refused(text: str, captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="empty"):
        capture_text(text, captured_at)


def test_ten_megabytes_of_text_is_refused(captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="limit"):
        capture_text("a" * (10 * 1024 * 1024), captured_at)


def test_text_at_the_limit_is_kept(captured_at: datetime) -> None:
    assert capture_text("a" * MAX_TEXT_CHARS, captured_at).fields[0].text == "a" * MAX_TEXT_CHARS


def test_naive_capture_time_is_refused() -> None:
    with pytest.raises(CaptureError, match="time zone"):
        capture_text("Rates rose.", datetime(2026, 1, 1, 12, 0))


def test_lone_surrogate_is_refused(captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="Unicode"):
        capture_text("Rates rose \ud800 sharply.", captured_at)


@pytest.mark.parametrize("bad_id", ["", "  "])
def test_blank_subject_id_is_refused(bad_id: str, captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="subject_id"):
        capture_text("Rates rose.", captured_at, subject_id=bad_id)


@pytest.mark.parametrize(
    "text",
    [
        "Rates\x00 rose\x07 by\x1b[31m 4%.\x7f",
        "\u202eRates rose 4%.\u202c \u200f\u05d4\u05de\u05d7\u05d9\u05e8\u05d9\u05dd \u05e2\u05dc\u05d5",
        "😂😂😂 🇺🇸 👨‍👩‍👧 Rates rose 4%.",
        "e\u0301\u0301\u0301" * 1000,
    ],
)
def test_hostile_but_storable_text_is_kept_exactly(text: str, captured_at: datetime) -> None:
    subject = capture_text(text, captured_at)
    assert subject.field_text(FieldName.PLAIN_TEXT) == text
    # The stored subject survives a JSON round trip unchanged.
    assert type(subject).model_validate_json(subject.model_dump_json()) == subject


def test_urls_in_the_text_become_cited_links(captured_at: datetime) -> None:
    text = (
        "Weight gain fell 40% (https://journal.example/hx4), see https://en.wikipedia.org/wiki/HX_(drug). "
        "Also https://journal.example/hx4, www.no-scheme.example and ftp://files.example/x."
    )
    subject = capture_text(text, captured_at)
    assert [link.url for link in subject.cited_links] == [
        "https://journal.example/hx4",
        "https://en.wikipedia.org/wiki/HX_(drug)",
    ]
    assert subject.field_text(FieldName.PLAIN_TEXT) == text
