"""The subject: what a requester asked Icarus to check, as captured."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Span, Unit, UtcDatetime


class SubjectKind(StrEnum):
    X_POST = "x_post"
    URL = "url"
    TEXT = "text"
    TRANSCRIPT = "transcript"


class FieldName(StrEnum):
    """Captured text fields a claim may be sliced from (G0 checks the slice)."""

    POST_TEXT = "post_text"
    NOTE_TWEET = "note_tweet"
    QUOTED_POST = "quoted_post"
    IMAGE_TEXT = "image_text"
    PAGE_TEXT = "page_text"
    TRANSCRIPT = "transcript"
    PLAIN_TEXT = "plain_text"


CLAIM_SOURCE_FIELDS: frozenset[FieldName] = frozenset(FieldName)
"""Every captured field can anchor a claim; context-only material lives in ``context`` instead."""


class CapturedField(LedgerModel):
    name: FieldName
    text: str
    artifact_id: str = Field(description="Identifier of the artifact the text came from (post id, image id).")


class OcrToken(LedgerModel):
    """One OCR token with its confidence; G2 inspects load-bearing tokens."""

    text: str
    span: Span = Field(description="Offsets into the image_text field this token produced.")
    confidence: Unit
    second_pass_text: str | None = Field(
        default=None, description="What a second OCR engine read here; disagreement on a load-bearing token trips G2."
    )


class CapturedImage(LedgerModel):
    image_id: str
    url: str | None = None
    sha256: str | None = None
    ocr_text: str = ""
    tokens: list[OcrToken] = Field(default_factory=list)


class CitedLink(LedgerModel):
    url: str
    evidence_id: str | None = Field(
        default=None, description="The ledger evidence item holding this link's snapshot, once captured."
    )


class Subject(LedgerModel):
    kind: SubjectKind
    subject_id: str = Field(description="Post id, URL or a content hash: how the check is indexed.")
    url: str | None = None
    captured_at: UtcDatetime
    is_direct_parent: bool = Field(
        default=True, description="For tagged X posts: the subject is the tagging reply's direct parent (G0)."
    )
    language: str = Field(default="en", description="BCP-47 language of the claim-bearing text.")
    has_video_or_audio: bool = False
    fields: list[CapturedField] = Field(default_factory=list)
    images: list[CapturedImage] = Field(default_factory=list)
    cited_links: list[CitedLink] = Field(default_factory=list)
    context: list[CapturedField] = Field(
        default_factory=list, description="Conversation root and one quoted post: context, never the subject."
    )
    artifact_urls: list[str] = Field(
        default_factory=list,
        description="URLs of everything under review: the post, its quoted post, the author's own content (H7).",
    )

    def field_text(self, name: FieldName) -> str | None:
        for captured in self.fields:
            if captured.name == name:
                return captured.text
        return None
