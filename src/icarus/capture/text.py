"""Capture pasted plain text as a subject."""

from __future__ import annotations

from datetime import datetime

from icarus.capture._common import (
    MAX_TEXT_CHARS,
    CaptureError,
    check_captured_at,
    check_text,
    clean_links,
    content_id,
    find_urls,
)
from icarus.capture.language import identify_language
from icarus.ledger.subject import CapturedField, CitedLink, FieldName, Subject, SubjectKind

__all__ = ["capture_text"]


def capture_text(
    text: str,
    captured_at: datetime,
    subject_id: str | None = None,
    *,
    max_chars: int = MAX_TEXT_CHARS,
) -> Subject:
    """A ``text`` subject whose one ``plain_text`` field is ``text`` exactly as given.

    ``subject_id`` defaults to ``sha256:<hex>`` of the text's UTF-8 bytes, so the same paste is indexed
    the same way. The http(s) URLs written in the text become its cited links (the material H20 compares
    its claims against). The language is identified from the text (``capture.language``), since a paste
    declares none; G0 reads it. Raises ``CaptureError`` for empty, over-long or unstorable text, a naive
    ``captured_at`` or a blank ``subject_id``.
    """
    check_text(text, "text", max_chars=max_chars)
    check_captured_at(captured_at)
    if subject_id is None:
        subject_id = content_id(text)
    elif not isinstance(subject_id, str) or not subject_id.strip():
        raise CaptureError("subject_id, when given, must be a non-empty string")
    else:
        check_text(subject_id, "subject_id", max_chars=1_024)
    urls = find_urls(text)
    prose = text
    for url in urls:  # addresses are letters in no language; they would only blur the reading
        prose = prose.replace(url, " ")
    reading = identify_language(prose)
    return Subject(
        kind=SubjectKind.TEXT,
        subject_id=subject_id,
        captured_at=captured_at,
        language=reading.language,
        language_source=reading.source,
        language_confidence=reading.confidence,
        fields=[CapturedField(name=FieldName.PLAIN_TEXT, text=text, artifact_id=subject_id)],
        cited_links=[CitedLink(url=url) for url in clean_links(urls)],
    )
