"""What a check can be asked about, as the API accepts it, and how each input becomes a subject.

Exactly one of ``text``, ``url``, ``post`` (the id or status URL of a tagging reply, fetched from the X
API) and ``payload`` (that reply as an X API v2 payload) is given. Everything that can be validated
without the network is validated on submission, so bad input is refused at once (HTTP 422) instead of
failing later in a worker.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from icarus.capture import CaptureError, capture_text, capture_x_mention
from icarus.capture.x_api import XApiClient, tweet_id_from
from icarus.fetching import FetchError, SafeFetcher, SnapshotStore
from icarus.fetching.guard import has_unsafe_characters
from icarus.ledger import Subject
from icarus.pipeline.addresses import web_address
from icarus.scoring.icarus.config import POLICY_FILES
from icarus.settings import Settings

__all__ = ["CaptureFailed", "CheckInput", "InputKind", "capture_subject", "validate_input"]

MAX_INPUT_TEXT: Final = 100_000
MAX_URL: Final = 2048


class InputKind(StrEnum):
    TEXT = "text"
    URL = "url"
    POST = "post"
    PAYLOAD = "payload"


class CaptureFailed(Exception):
    """The input could not become a subject: ``reason`` is a short code, ``detail`` a sentence."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class CheckInput(BaseModel):
    """A check request. Give exactly one of ``text``, ``url``, ``post`` and ``payload``."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(
        default=None, min_length=1, max_length=MAX_INPUT_TEXT, description="Plain text to check."
    )
    url: str | None = Field(
        default=None, max_length=MAX_URL, description="An http(s) address whose page is fetched and checked."
    )
    post: str | None = Field(
        default=None,
        max_length=MAX_URL,
        description="Id or x.com status URL of the reply that tagged Icarus; its direct parent is checked.",
    )
    payload: dict[str, Any] | None = Field(
        default=None, description="The tagging reply as an X API v2 payload (data + includes)."
    )
    policy: str | None = Field(
        default=None, description="Policy name@version to score under; default from settings."
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if has_unsafe_characters(value):
            # the guard would refuse it anyway; refused now, the worker never stores an error quoting it
            raise ValueError("url contains whitespace, control characters or backslashes")
        address = web_address(value)  # HTTP:// as well: a scheme's letter case means nothing
        if address is None:
            raise ValueError("url must start with http:// or https://")
        return address

    @field_validator("post")
    @classmethod
    def _post_reference(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return tweet_id_from(value)
        except CaptureError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, value: str | None) -> str | None:
        if value is not None and value not in POLICY_FILES:
            raise ValueError(f"unknown policy {value!r}; known: {', '.join(sorted(POLICY_FILES))}")
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> CheckInput:
        given = [kind.value for kind in InputKind if getattr(self, kind.value) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of text, url, post, payload"
                + (f" (got {', '.join(given)})" if given else "")
            )
        return self

    @property
    def kind(self) -> InputKind:
        return next(kind for kind in InputKind if getattr(self, kind.value) is not None)

    def stored(self) -> dict[str, Any]:
        """The input as stored with the request (without the policy, which has its own column)."""
        return self.model_dump(exclude_none=True, exclude={"policy"})


def validate_input(request: CheckInput, now: datetime) -> str | None:
    """Capture what can be captured offline; raise ``CaptureFailed`` for input no worker could use.

    Returns the X post id the check is about, when it is known already (a payload's direct parent).
    """
    if request.text is not None:
        try:
            capture_text(request.text, now)
        except CaptureError as exc:
            raise CaptureFailed("invalid_text", str(exc)) from None
        return None
    if request.payload is not None:
        return _capture_payload(request.payload, now).subject_id
    return None


def capture_subject(
    request: CheckInput, now: datetime, settings: Settings, snapshots: SnapshotStore
) -> Subject:
    """The subject of ``request`` as of ``now``; URL and post inputs read the network."""
    if request.text is not None:
        try:
            return capture_text(request.text, now)
        except CaptureError as exc:
            raise CaptureFailed("invalid_text", str(exc)) from None
    if request.payload is not None:
        return _capture_payload(request.payload, now)
    if request.url is not None:
        from icarus.pipeline.services import capture_web_page  # the pipeline loads only where it runs

        try:
            with SafeFetcher() as fetcher:
                subject, _ref = capture_web_page(request.url, fetcher, snapshots)
        except (FetchError, CaptureError) as exc:
            raise CaptureFailed("url_unavailable", str(exc)) from None
        return subject
    assert request.post is not None
    if settings.x_bearer_token is None:
        raise CaptureFailed("x_api_not_configured", "a post id needs ICARUS_X_BEARER_TOKEN")
    try:
        with XApiClient(settings.x_bearer_token, **_x_base(settings)) as client:
            payload = client.mention_payload(request.post)
    except CaptureError as exc:
        raise CaptureFailed("post_unavailable", str(exc)) from None
    return _capture_payload(payload, now)


def _x_base(settings: Settings) -> dict[str, Any]:
    base = getattr(settings, "x_api_url", None)
    return {"base_url": base} if base else {}


def _capture_payload(payload: dict[str, Any], now: datetime) -> Subject:
    try:
        outcome = capture_x_mention(payload, now)
    except CaptureError as exc:
        raise CaptureFailed("invalid_payload", str(exc)) from None
    if outcome.subject is None:
        refusal = outcome.refusal
        assert refusal is not None
        raise CaptureFailed(refusal.reason.value, refusal.message)
    return outcome.subject
