"""The two X API v2 calls the bot makes: read its mentions, post a reply.

``GET /2/users/:id/mentions`` with ``since_id`` (and ``pagination_token`` across pages), asking for the same
expansions capture needs, so each page carries the mentions' parents in ``includes.tweets``.
``POST /2/tweets`` with ``reply.in_reply_to_tweet_id`` answers under a mention. Both use an OAuth 2.0
user-context access token; it is sent only in the ``Authorization`` header and never logged or repeated
in an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import httpx
from pydantic import SecretStr

from icarus.capture.x_api import LOOKUP_PARAMS, X_API_BASE
from icarus.remote import AnswerError, json_object_answer

__all__ = ["MAX_PAGES", "MentionPage", "XBotApi", "XBotApiError", "XRateLimited"]

MAX_RESULTS: Final = 100  # the largest page the mentions endpoint serves
MAX_PAGES: Final = 10  # per poll; the rest waits for the next poll (since_id only moves over what was read)
# An X post id: ASCII digits only (str.isdigit also takes "²", which int() refuses), short enough for int().
_POST_ID: Final = re.compile(r"[0-9]{1,25}")


class XBotApiError(RuntimeError):
    """The X API refused or failed a call; the message never holds the token."""


class XRateLimited(XBotApiError):
    def __init__(self, reset: str) -> None:
        super().__init__(f"X API rate limit reached; resets at epoch {reset}")
        self.reset = reset


@dataclass(frozen=True)
class MentionPage:
    """One page of mentions as X sent it (``data``, ``includes``, ``errors``, ``meta``)."""

    payload: dict[str, Any]

    @property
    def mentions(self) -> list[dict[str, Any]]:
        """The page's posts that have a usable id: the bot orders and compares them by it as integers."""
        data = self.payload.get("data")
        return [
            post
            for post in (data if isinstance(data, list) else [])
            if isinstance(post, dict) and _POST_ID.fullmatch(str(post.get("id", "")))
        ]

    @property
    def included_tweets(self) -> list[dict[str, Any]]:
        """``includes.tweets``, the posts the mentions reference; anything not an object is left out."""
        includes = self.payload.get("includes")
        tweets = includes.get("tweets") if isinstance(includes, dict) else None
        return [t for t in tweets if isinstance(t, dict)] if isinstance(tweets, list) else []

    @property
    def next_token(self) -> str | None:
        meta = self.payload.get("meta")
        token = meta.get("next_token") if isinstance(meta, dict) else None
        return str(token) if token else None


class XBotApi:
    def __init__(
        self,
        access_token: SecretStr,
        base_url: str = X_API_BASE,
        *,
        timeout_s: float = 15.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._token = access_token
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(timeout=timeout_s, transport=transport, follow_redirects=False)

    def __repr__(self) -> str:
        return f"XBotApi(base_url={self.base_url!r}, access_token=SecretStr('**********'))"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> XBotApi:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def mentions(self, user_id: str, since_id: str | None) -> Iterator[MentionPage]:
        """Pages of mentions of ``user_id`` newer than ``since_id``, newest first, at most ``MAX_PAGES``."""
        params: dict[str, str | int] = {**LOOKUP_PARAMS, "max_results": MAX_RESULTS}
        if since_id is not None:
            params["since_id"] = since_id
        for _ in range(MAX_PAGES):
            page = MentionPage(self._call("GET", f"/2/users/{user_id}/mentions", params=params))
            yield page
            token = page.next_token
            if token is None:
                return
            params["pagination_token"] = token

    def reply(self, text: str, in_reply_to: str) -> str:
        """Post ``text`` as a reply to post ``in_reply_to``; returns the new post's id."""
        body = {"text": text, "reply": {"in_reply_to_tweet_id": in_reply_to}}
        answer = self._call("POST", "/2/tweets", json=body)
        data = answer.get("data")
        post_id = data.get("id") if isinstance(data, dict) else None
        if not isinstance(post_id, str) or not _POST_ID.fullmatch(post_id):
            raise XBotApiError("X API accepted the reply but returned no post id")
        return post_id

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._token.get_secret_value()}"}
        try:
            return json_object_answer(
                self._client,
                method,
                f"{self.base_url}{path}",
                lambda response: self._check_status(response, method, path),
                headers=headers,
                **kwargs,
            )
        except httpx.HTTPError as exc:
            raise XBotApiError(f"X API unreachable: {type(exc).__name__}") from None
        except AnswerError as exc:
            raise XBotApiError(f"X API answer unreadable: {exc}") from None

    @staticmethod
    def _check_status(response: httpx.Response, method: str, path: str) -> None:
        if response.status_code == 429:
            raise XRateLimited(response.headers.get("x-rate-limit-reset", "unknown"))
        if response.status_code in (401, 403):
            raise XBotApiError(
                f"X API refused {method} {path.split('?')[0]} ({response.status_code}): check the bot's "
                "access token and its scopes (tweet.read, tweet.write, users.read)"
            )
        if response.status_code not in (200, 201):
            raise XBotApiError(f"X API answered {response.status_code} to {method} {path}")
