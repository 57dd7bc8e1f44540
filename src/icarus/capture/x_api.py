"""Fetch a tagging reply from the X API v2 by id, with the expansions capture needs.

The bearer token comes from settings and is never placed in a URL, an error message or a log line.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from pydantic import SecretStr

from icarus.capture._common import CaptureError
from icarus.remote import AnswerError, json_object_answer

X_API_BASE = "https://api.x.com"
_TWEET_ID = re.compile(r"^\d{1,25}$")
_STATUS_URL = re.compile(
    r"^https?://(?:www\.|mobile\.)?(?:x|twitter)\.com/[^/]+/status(?:es)?/(\d{1,25})(?:[/?#].*)?$"
)
# What capture_x_mention reads: the parent (replied_to), the quoted post, media, authors, note_tweet.
LOOKUP_PARAMS = {
    "expansions": "referenced_tweets.id,referenced_tweets.id.author_id,attachments.media_keys,author_id",
    "tweet.fields": "created_at,lang,conversation_id,note_tweet,entities,referenced_tweets,attachments,author_id",
    "media.fields": "type,url,preview_image_url",
    "user.fields": "username,name,protected",
}


def tweet_id_from(reference: str) -> str:
    """Accept a numeric post id or an x.com/twitter.com status URL; anything else is a clear error."""
    reference = reference.strip()
    if _TWEET_ID.match(reference):
        return reference
    match = _STATUS_URL.match(reference)
    if match:
        return match.group(1)
    raise CaptureError(f"not an X post id or status URL: {reference[:80]!r}")


class XApiClient:
    def __init__(
        self,
        bearer_token: SecretStr,
        base_url: str = X_API_BASE,
        *,
        timeout_s: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._token = bearer_token
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(timeout=timeout_s, transport=transport, follow_redirects=False)

    def __repr__(self) -> str:
        return f"XApiClient(base_url={self.base_url!r}, bearer_token=SecretStr('**********'))"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> XApiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def mention_payload(self, reference: str) -> dict[str, Any]:
        """The v2 payload for the tagging reply ``reference`` (an id or a status URL)."""
        tweet_id = tweet_id_from(reference)
        headers = {"Authorization": f"Bearer {self._token.get_secret_value()}"}
        url = f"{self.base_url}/2/tweets/{tweet_id}"
        try:
            return json_object_answer(
                self._client,
                "GET",
                url,
                lambda response: self._check_status(response, tweet_id),
                params=LOOKUP_PARAMS,
                headers=headers,
            )
        except httpx.HTTPError as exc:
            raise CaptureError(f"X API unreachable: {type(exc).__name__}") from None
        except AnswerError as exc:
            raise CaptureError(f"X API answer unreadable: {exc}") from None

    @staticmethod
    def _check_status(response: httpx.Response, tweet_id: str) -> None:
        if response.status_code == 429:
            reset = response.headers.get("x-rate-limit-reset", "unknown")
            raise CaptureError(f"X API rate limit reached; resets at epoch {reset}")
        if response.status_code in (401, 403):
            raise CaptureError(f"X API refused the request ({response.status_code}): check the bearer token")
        if response.status_code == 404:
            raise CaptureError(f"X post {tweet_id} not found")
        if response.status_code != 200:
            raise CaptureError(f"X API answered {response.status_code}")
