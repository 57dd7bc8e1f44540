from __future__ import annotations

from datetime import UTC, datetime

from icarus.ledger import CapturedField, FieldName, Subject, SubjectKind

CAPTURED_AT = datetime(2026, 2, 10, 15, 0, tzinfo=UTC)


def subject_of(*fields: tuple[FieldName, str], language: str = "en", video: bool = False) -> Subject:
    return Subject(
        kind=SubjectKind.X_POST,
        subject_id="1900000000000000001",
        captured_at=CAPTURED_AT,
        language=language,
        has_video_or_audio=video,
        fields=[CapturedField(name=name, text=text, artifact_id="a") for name, text in fields],
    )


def text_subject(text: str) -> Subject:
    return subject_of((FieldName.PLAIN_TEXT, text))
