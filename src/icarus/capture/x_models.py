"""The parts of X API v2 tweet payloads that capture reads.

Only the fields Icarus uses are declared; everything else the API sends is allowed and ignored
(``extra="allow"``), so new API fields do not break capture. Shapes follow ``GET /2/tweets/:id``,
``GET /2/tweets`` and ``GET /2/tweets/search/recent`` with the ``referenced_tweets.id``,
``attachments.media_keys`` and ``author_id`` expansions.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "XAttachments",
    "XEntities",
    "XId",
    "XIncludes",
    "XMedia",
    "XNoteTweet",
    "XPayload",
    "XProblem",
    "XReferencedTweet",
    "XTweet",
    "XUrlEntity",
    "XUser",
]


class _XModel(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


# X ids are decimal strings; holding them to that keeps hostile ids out of the URLs capture builds.
XId = Annotated[str, Field(pattern=r"^[0-9]{1,25}$")]


class XUrlEntity(_XModel):
    """A link in a post: ``url`` is the t.co wrapper, ``expanded_url`` what the author pasted."""

    start: int | None = None
    end: int | None = None
    url: str | None = None
    expanded_url: str | None = None
    display_url: str | None = None
    unwound_url: str | None = None
    media_key: str | None = None


class XEntities(_XModel):
    urls: list[XUrlEntity] = Field(default_factory=list)


class XNoteTweet(_XModel):
    """Long-form text of a post over 280 characters; ``XTweet.text`` then holds a truncated copy."""

    text: str
    entities: XEntities | None = None


class XReferencedTweet(_XModel):
    type: str  # "replied_to", "quoted" or "retweeted"
    id: XId


class XAttachments(_XModel):
    media_keys: list[str] = Field(default_factory=list)


class XTweet(_XModel):
    id: XId
    text: str
    author_id: XId | None = None
    conversation_id: XId | None = None
    created_at: str | None = None
    lang: str | None = None
    in_reply_to_user_id: str | None = None
    referenced_tweets: list[XReferencedTweet] = Field(default_factory=list)
    note_tweet: XNoteTweet | None = None
    entities: XEntities | None = None
    attachments: XAttachments | None = None

    def reference(self, kind: str) -> str | None:
        """The id of the first post this one references as ``kind`` (``replied_to``, ``quoted``)."""
        for ref in self.referenced_tweets:
            if ref.type == kind:
                return ref.id
        return None


class XMedia(_XModel):
    media_key: str = Field(min_length=1)
    type: str  # "photo", "video" or "animated_gif"
    url: str | None = None
    preview_image_url: str | None = None
    alt_text: str | None = None


class XUser(_XModel):
    id: XId
    username: str | None = None
    name: str | None = None
    protected: bool | None = None


class XIncludes(_XModel):
    tweets: list[XTweet] = Field(default_factory=list)
    media: list[XMedia] = Field(default_factory=list)
    users: list[XUser] = Field(default_factory=list)


class XProblem(_XModel):
    """A partial error: X reports a referenced post it could not return (deleted, protected) here."""

    title: str | None = None
    detail: str | None = None
    type: str | None = None
    resource_type: str | None = None
    resource_id: str | None = None
    parameter: str | None = None
    value: str | None = None


class XPayload(_XModel):
    """A v2 response: one post (lookup by id) or a list (search, multi-lookup), with includes and errors."""

    data: XTweet | list[XTweet] | None = None
    includes: XIncludes = Field(default_factory=XIncludes)
    errors: list[XProblem] = Field(default_factory=list)

    def posts(self) -> list[XTweet]:
        if self.data is None:
            return []
        return self.data if isinstance(self.data, list) else [self.data]
