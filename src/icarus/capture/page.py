"""Capture a fetched web page (its extracted text, title and links) as a subject.

Fetching and HTML extraction happen elsewhere; this step only records what they produced, verbatim.
"""

from __future__ import annotations

from datetime import datetime

from icarus.capture._common import (
    MAX_TEXT_CHARS,
    check_captured_at,
    check_text,
    check_url,
    clean_links,
)
from icarus.ledger.subject import CapturedField, CitedLink, FieldName, Subject, SubjectKind

__all__ = ["TITLE_ARTIFACT_SUFFIX", "capture_page"]

TITLE_ARTIFACT_SUFFIX = "#title"
"""Appended to the page URL to name the title's artifact in ``Subject.context``."""


def capture_page(
    url: str,
    text: str,
    title: str | None,
    captured_at: datetime,
    links: list[str],
    *,
    max_chars: int = MAX_TEXT_CHARS,
) -> Subject:
    """A ``url`` subject: ``text`` becomes the ``page_text`` field, verbatim.

    The title is kept as context, not as a claim-bearing field: it is not part of the extracted text that
    spans index, and headlines are usually restated in the body. ``links`` become cited links, resolved
    against ``url``, http(s) only, without repeats or the page itself. The page is the one artifact under
    review (H7). Raises ``CaptureError`` for a non-http(s) URL, empty or over-long text, or a naive time.
    """
    check_url(url)
    check_text(text, "page text", max_chars=max_chars)
    check_captured_at(captured_at)
    context: list[CapturedField] = []
    if title is not None and title.strip():
        check_text(title, "page title", max_chars=max_chars)
        context.append(
            CapturedField(name=FieldName.PAGE_TEXT, text=title, artifact_id=url + TITLE_ARTIFACT_SUFFIX)
        )
    cited = clean_links(links, base=url, exclude=[url])
    return Subject(
        kind=SubjectKind.URL,
        subject_id=url,
        url=url,
        captured_at=captured_at,
        fields=[CapturedField(name=FieldName.PAGE_TEXT, text=text, artifact_id=url)],
        cited_links=[CitedLink(url=link) for link in cited],
        context=context,
        artifact_urls=[url],
    )
