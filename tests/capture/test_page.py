from __future__ import annotations

from datetime import datetime

import pytest

from icarus.capture import MAX_CITED_LINKS, CaptureError, capture_page
from icarus.ledger import FieldName, SubjectKind

URL = "https://news.example/2026/02/port-volumes"


def test_page_subject_keeps_text_title_links_and_artifact(captured_at: datetime) -> None:
    text = "Port volumes rose 12% in 2025.\n\nThe authority said so on Tuesday."
    subject = capture_page(
        URL,
        text,
        "Port volumes up 12%",
        captured_at,
        [
            "https://port.example/release",
            "/2026/01/earlier-story",
            "https://port.example/release",
            "https://port.example/release#section-2",
            "mailto:desk@news.example",
            "javascript:void(0)",
            "#top",
            URL,
            URL + "#comments",
            "",
        ],
    )
    assert subject.kind is SubjectKind.URL
    assert subject.subject_id == URL
    assert subject.url == URL
    assert subject.field_text(FieldName.PAGE_TEXT) == text
    assert [link.url for link in subject.cited_links] == [
        "https://port.example/release",
        "https://news.example/2026/01/earlier-story",
    ]
    assert subject.artifact_urls == [URL]
    assert [(c.name, c.text) for c in subject.context] == [(FieldName.PAGE_TEXT, "Port volumes up 12%")]


def test_page_without_title_has_no_context(captured_at: datetime) -> None:
    subject = capture_page(URL, "Body text here.", None, captured_at, [])
    assert subject.context == []
    assert subject.cited_links == []


@pytest.mark.parametrize(
    "url", ["", "ftp://files.example/a", "news.example/a", "https:///path", "http://a b/"]
)
def test_page_with_a_bad_url_is_refused(url: str, captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="url"):
        capture_page(url, "Body.", None, captured_at, [])


def test_page_with_empty_or_huge_text_is_refused(captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="empty"):
        capture_page(URL, " \n ", "Title", captured_at, [])
    with pytest.raises(CaptureError, match="limit"):
        capture_page(URL, "x" * (10 * 1024 * 1024), "Title", captured_at, [])


def test_page_links_are_capped(captured_at: datetime) -> None:
    links = [f"https://cite.example/{i}" for i in range(MAX_CITED_LINKS + 50)]
    subject = capture_page(URL, "Body.", None, captured_at, links)
    assert len(subject.cited_links) == MAX_CITED_LINKS
    assert subject.cited_links[0].url == "https://cite.example/0"


def test_hostile_links_never_crash(captured_at: datetime) -> None:
    links = ["http://[::1", "https://\ud800.example/", "https://ok.example/\u202e", "http://" + "a" * 9000]
    subject = capture_page(URL, "Body.", None, captured_at, links)
    assert [link.url for link in subject.cited_links] == ["https://ok.example/\u202e"]
