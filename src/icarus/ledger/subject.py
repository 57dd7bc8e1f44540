"""The subject: what a requester asked Icarus to check, as captured."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Span, Unit, UtcDatetime


class SubjectKind(StrEnum):
    """What kind of input the check was asked about.

    - ``x_post``: an X post; for a tag, the tagging reply's direct parent (G0 checks this).
    - ``url``: a web page or document given by address.
    - ``text``: plain text pasted by the requester.
    - ``transcript``: a speech or debate transcript.
    """

    X_POST = "x_post"
    URL = "url"
    TEXT = "text"
    TRANSCRIPT = "transcript"


class FieldName(StrEnum):
    """Captured text fields a claim may be sliced from (G0 checks the slice).

    - ``post_text``: the post's own text.
    - ``note_tweet``: the long-form text of an X note tweet.
    - ``quoted_post``: the text of the one quoted post.
    - ``image_text``: legible text OCR read from attached still images ("text read from image"; G2).
    - ``page_text``: text extracted from a web page or document subject.
    - ``transcript``: transcript text; not eligible when the subject is video or audio (G0).
    - ``plain_text``: text pasted by the requester.
    """

    POST_TEXT = "post_text"
    NOTE_TWEET = "note_tweet"
    QUOTED_POST = "quoted_post"
    IMAGE_TEXT = "image_text"
    PAGE_TEXT = "page_text"
    TRANSCRIPT = "transcript"
    PLAIN_TEXT = "plain_text"


UNDETERMINED_LANGUAGES = frozenset({"und", "zxx", "qme", "qam", "qht", "qct", "art", "mul"})
"""Language tags that say nothing about the claim text (X gives ``qme`` for media-only posts, ``zxx`` for no
linguistic content): the claims are kept in play, since image text read later may well be English."""

UNDETERMINED = "und"
"""The tag a subject carries when no language was declared or identified."""


class LanguageSource(StrEnum):
    """How a subject's ``language`` was arrived at.

    - ``declared``: given with the input: X's ``lang`` for a post, or by whoever wrote the ledger.
    - ``detected``: identified from the claim-bearing text, with the identifier's confidence.
    - ``presumed``: English, the service's language, because the text was too short to identify or no
      other language reached the confidence floor (docs/checking.md says which).
    """

    DECLARED = "declared"
    DETECTED = "detected"
    PRESUMED = "presumed"


CLAIM_SOURCE_FIELDS: frozenset[FieldName] = frozenset(FieldName)
"""Every captured field can anchor a claim; context-only material lives in ``context`` instead."""


class CapturedField(LedgerModel):
    """One captured text of the subject, stored exactly as received. Claims are sliced from it."""

    name: FieldName = Field(description="Which captured text this is; a claim names it as its source_field.")
    text: str = Field(
        description="The text as captured, without any normalisation; claim spans index into it (G0)."
    )
    artifact_id: str = Field(description="Identifier of the artifact the text came from (post id, image id).")


class OcrToken(LedgerModel):
    """One OCR token with its confidence; G2 inspects load-bearing tokens."""

    text: str = Field(description="The token as the first OCR pass read it.")
    span: Span = Field(description="Offsets into the image_text field this token produced.")
    confidence: Unit = Field(
        description=(
            "OCR confidence for this token, in [0, 1]. Below the policy minimum on a load-bearing "
            "token (digit, unit, negation, name) inside a claim trips G2."
        )
    )
    second_pass_text: str | None = Field(
        default=None,
        description="What a second OCR engine read here; disagreement on a load-bearing token trips G2.",
    )


class CapturedImage(LedgerModel):
    """A still image attached to the subject, with what OCR read from it. Filled by capture."""

    image_id: str = Field(
        description="Capture-assigned image identifier; ImageMatch.image_id refers to it (H23)."
    )
    url: str | None = Field(default=None, description="Where the image was fetched from, when known.")
    sha256: str | None = Field(default=None, description="SHA-256 (hex) of the image bytes as captured.")
    ocr_text: str = Field(
        default="",
        description="All text OCR read from the image; claim-bearing image text is the image_text field.",
    )
    tokens: list[OcrToken] = Field(
        default_factory=list,
        description="Per-token OCR readings with confidences and any second reading (G2).",
    )


class CitedLink(LedgerModel):
    """A link the subject itself cites: the material H20 compares the subject's claims against."""

    url: str = Field(description="The cited address as captured from the subject.")
    evidence_id: str | None = Field(
        default=None, description="The ledger evidence item holding this link's snapshot, once captured."
    )


class Subject(LedgerModel):
    """What a requester asked Icarus to check, as captured at ``captured_at``.

    Claims are sliced from ``fields``, the quoted post's text among them (``quoted_post``). ``context``
    (the conversation root, a quote in another language) is read for meaning but never checked.
    Eligibility facts here (direct parent, language, video or audio) feed G0.
    """

    kind: SubjectKind = Field(description="What kind of input this is; X posts get G0's direct-parent test.")
    subject_id: str = Field(description="Post id, URL or a content hash: how the check is indexed.")
    url: str | None = Field(
        default=None, description="The subject's own address, when it has one; an artifact under review (H7)."
    )
    captured_at: UtcDatetime = Field(description="When capture took the subject's text (UTC timestamp).")
    is_direct_parent: bool = Field(
        default=True, description="For tagged X posts: the subject is the tagging reply's direct parent (G0)."
    )
    language: str = Field(
        default="en",
        description="BCP-47 tag of the claim-bearing text's language; only 'en…' is eligible (G0).",
    )
    language_source: LanguageSource = Field(
        default=LanguageSource.DECLARED,
        description="Whether the language was declared with the input, detected from the text, or presumed.",
    )
    language_confidence: Unit | None = Field(
        default=None,
        description=(
            "The language identifier's probability for the recorded language; null when the text was not "
            "identified."
        ),
    )
    has_video_or_audio: bool = Field(
        default=False,
        description="The subject is video or audio; claims from its transcript get no verdict (G0).",
    )
    fields: list[CapturedField] = Field(
        default_factory=list, description="Claim-bearing texts, verbatim; each claim is sliced from one (G0)."
    )
    images: list[CapturedImage] = Field(
        default_factory=list, description="Attached still images with their OCR readings (G2)."
    )
    cited_links: list[CitedLink] = Field(
        default_factory=list,
        description="Links the subject cites; their items are what self-evidence findings test (H20).",
    )
    context: list[CapturedField] = Field(
        default_factory=list,
        description="Conversation root (and a quote in another language): context, never checked.",
    )
    artifact_urls: list[str] = Field(
        default_factory=list,
        description="URLs under review (H7): the post, its quoted post, the author's own content.",
    )

    def field_text(self, name: FieldName) -> str | None:
        """The text of the captured field called ``name``, or None if the subject has no such field."""
        for captured in self.fields:
            if captured.name == name:
                return captured.text
        return None
