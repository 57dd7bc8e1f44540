"""Capture the X post a requester tagged Icarus under.

The payload is the tagging reply (the mention) as X API v2 returns it. The subject is the mention's
direct parent, the post it replies to, found in ``includes.tweets``; the mention itself is never the
subject. When the parent cannot be read (deleted, protected, or absent) capture refuses with a typed
reason instead of falling back to some other post (G0).

What the subject keeps:

* ``post_text``: the parent's ``text`` as sent; ``note_tweet``: its long-form text, when it has one (the
  ``text`` of a long post is a truncated copy).
* ``quoted_post``: the text of the one post the parent quotes, as claim wording (the seed counts it), with
  the quoted post's id as its artifact; claims sliced from it say so by their ``source_field``. The subject
  stays the parent. A quote X declares in another language than the parent stays context, since a
  subject has one language for G0; when X could not tell the parent's language (``und``, say for
  "This 👇"), the quote's is the subject's.
* context only: the conversation root when that is a different post (and a quote in another language).
* cited links: the ``expanded_url`` of each link in the parent, without its media and quoted-post links.
* artifacts under review (H7): the post's URL, the quoted post's URL and the author's profile URL.
* images: attached photos, with empty OCR readings (OCR is a later step); ``has_video_or_audio`` when a
  video or animated GIF is attached; ``language`` from X's ``lang`` (``und`` when X gives none), or the quote's, as above.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from icarus.capture._common import (
    MAX_TEXT_CHARS,
    CaptureError,
    check_captured_at,
    check_text,
    clean_links,
    describe_validation_error,
)
from icarus.capture.x_models import XMedia, XPayload, XProblem, XTweet, XUser
from icarus.ledger.subject import (
    UNDETERMINED,
    UNDETERMINED_LANGUAGES,
    CapturedField,
    CapturedImage,
    CitedLink,
    FieldName,
    Subject,
    SubjectKind,
)

__all__ = [
    "X_BASE_URL",
    "CaptureOutcome",
    "Refusal",
    "RefusalReason",
    "capture_x_mention",
    "x_post_url",
    "x_profile_url",
]

X_BASE_URL = "https://x.com"

_USERNAME = re.compile(r"^[A-Za-z0-9_]{1,15}$")
_X_HOSTS = frozenset({"x.com", "www.x.com", "twitter.com", "www.twitter.com", "mobile.twitter.com"})
_MEDIA_HOSTS = frozenset({"pic.x.com", "pic.twitter.com"})
_STATUS_PATH = re.compile(r"^/(?:[A-Za-z0-9_]{1,15}|i(?:/web)?)/status(?:es)?/([0-9]{1,25})(?:/|$)")
_AUDIO_VISUAL = frozenset({"video", "animated_gif"})


class RefusalReason(StrEnum):
    """Why no subject could be captured from a mention. Every reason means "subject unavailable".

    - ``mention_unavailable``: X returned no mention post, only errors.
    - ``no_parent``: the mention replies to nothing, so there is no direct parent to check.
    - ``parent_deleted``: X reports the parent as not found.
    - ``parent_protected``: the parent is protected, or X says we may not see it.
    - ``parent_unavailable``: X reports some other problem with the parent (a suspended author, say).
    - ``parent_missing``: the parent is referenced but not in the payload and no error explains why
      (usually the request lacked ``expansions=referenced_tweets.id``).
    """

    MENTION_UNAVAILABLE = "mention_unavailable"
    NO_PARENT = "no_parent"
    PARENT_DELETED = "parent_deleted"
    PARENT_PROTECTED = "parent_protected"
    PARENT_UNAVAILABLE = "parent_unavailable"
    PARENT_MISSING = "parent_missing"


class Refusal(BaseModel):
    """A typed refusal to capture: the subject is unavailable, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reason: RefusalReason
    post_id: str | None = Field(default=None, description="The post the refusal is about, when known.")
    detail: str = Field(description="One line for people: what was missing and, where X said, why.")

    @property
    def message(self) -> str:
        return f"subject unavailable: {self.detail}"


class CaptureOutcome(BaseModel):
    """Either the captured subject or a refusal, never both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: Subject | None = None
    refusal: Refusal | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> CaptureOutcome:
        if (self.subject is None) == (self.refusal is None):
            raise ValueError("a capture outcome holds exactly one of subject and refusal")
        return self

    @property
    def ok(self) -> bool:
        return self.subject is not None


def capture_x_mention(
    payload: Mapping[str, Any],
    captured_at: datetime,
    *,
    mention_id: str | None = None,
    max_chars: int = MAX_TEXT_CHARS,
) -> CaptureOutcome:
    """Capture the direct parent of the tagging reply in ``payload`` (an X API v2 response).

    ``payload["data"]`` is the mention (or a list holding it; name it with ``mention_id`` when the list
    has several posts). Returns a refusal when the parent cannot be read; raises ``CaptureError`` when
    the payload itself is malformed or incomplete (a post's media missing from ``includes.media``).
    """
    check_captured_at(captured_at)
    if not isinstance(payload, Mapping):
        raise CaptureError(f"X payload must be a JSON object, not {type(payload).__name__}")
    try:
        parsed = XPayload.model_validate(payload)
    except ValidationError as exc:
        raise CaptureError(describe_validation_error(exc, "X payload")) from None

    posts = parsed.posts()
    if not posts:
        if parsed.errors:
            first = parsed.errors[0]
            return _refuse(RefusalReason.MENTION_UNAVAILABLE, first.resource_id, _problem_text(first))
        raise CaptureError("malformed X payload: data holds no post")
    mention = _pick_mention(posts, mention_id)

    parent_id = mention.reference("replied_to")
    if parent_id is None:
        return _refuse(RefusalReason.NO_PARENT, mention.id, f"post {mention.id} is not a reply to any post")
    if parent_id == mention.id:
        raise CaptureError(f"malformed X payload: post {mention.id} replies to itself")

    problem = _problem_about(parsed.errors, parent_id)
    if problem is not None:
        return _refuse(_reason_for(problem), parent_id, f"parent post {parent_id}: {_problem_text(problem)}")

    tweets = _index_posts(parsed.includes.tweets, posts)
    parent = tweets.get(parent_id)
    if parent is None:
        return _refuse(
            RefusalReason.PARENT_MISSING,
            parent_id,
            f"parent post {parent_id} is not in the payload (request expansions=referenced_tweets.id)",
        )
    users = {user.id: user for user in parsed.includes.users}
    author = users.get(parent.author_id) if parent.author_id else None
    if author is not None and author.protected:
        return _refuse(RefusalReason.PARENT_PROTECTED, parent_id, f"parent post {parent_id} is protected")

    media = {item.media_key: item for item in parsed.includes.media}
    subject = _subject_from_post(parent, tweets, users, media, captured_at, max_chars)
    return CaptureOutcome(subject=subject)


def x_post_url(post_id: str, author: XUser | None = None) -> str:
    """The post's address: ``https://x.com/<username>/status/<id>``, or the ``/i/status/`` form."""
    if author is not None and author.username and _USERNAME.match(author.username):
        return f"{X_BASE_URL}/{author.username}/status/{post_id}"
    return f"{X_BASE_URL}/i/status/{post_id}"


def x_profile_url(user_id: str, author: XUser | None = None) -> str:
    """The author's profile: ``https://x.com/<username>``, or ``/i/user/<id>`` without a username."""
    if author is not None and author.username and _USERNAME.match(author.username):
        return f"{X_BASE_URL}/{author.username}"
    return f"{X_BASE_URL}/i/user/{user_id}"


def _refuse(reason: RefusalReason, post_id: str | None, detail: str) -> CaptureOutcome:
    return CaptureOutcome(refusal=Refusal(reason=reason, post_id=post_id, detail=detail))


def _pick_mention(posts: Sequence[XTweet], mention_id: str | None) -> XTweet:
    if mention_id is not None:
        for post in posts:
            if post.id == mention_id:
                return post
        raise CaptureError(f"malformed X payload: mention {mention_id} is not in data")
    if len(posts) > 1:
        raise CaptureError(f"X payload data holds {len(posts)} posts; name the mention with mention_id")
    return posts[0]


def _index_posts(included: Sequence[XTweet], data: Sequence[XTweet]) -> dict[str, XTweet]:
    # includes.tweets first: it is where X puts referenced posts; data only fills gaps.
    index: dict[str, XTweet] = {}
    for post in [*included, *data]:
        index.setdefault(post.id, post)
    return index


def _problem_about(problems: Sequence[XProblem], post_id: str) -> XProblem | None:
    for problem in problems:
        if post_id in (problem.resource_id, problem.value):
            return problem
    return None


def _reason_for(problem: XProblem) -> RefusalReason:
    kind = f"{problem.type or ''} {problem.title or ''}".lower()
    if "not-found" in kind or "not found" in kind:
        return RefusalReason.PARENT_DELETED
    if "not-authorized" in kind or "authorization" in kind or "protected" in kind:
        return RefusalReason.PARENT_PROTECTED
    return RefusalReason.PARENT_UNAVAILABLE


def _problem_text(problem: XProblem) -> str:
    text = problem.detail or problem.title or problem.type or "X reported an unnamed problem"
    return " ".join(text.split())[:300]


def _full_text(post: XTweet) -> str:
    if post.note_tweet is not None and post.note_tweet.text.strip():
        return post.note_tweet.text
    return post.text


def _subject_from_post(
    parent: XTweet,
    tweets: Mapping[str, XTweet],
    users: Mapping[str, XUser],
    media: Mapping[str, XMedia],
    captured_at: datetime,
    max_chars: int,
) -> Subject:
    author = users.get(parent.author_id) if parent.author_id else None
    post_url = x_post_url(parent.id, author)

    fields: list[CapturedField] = []
    check_text(parent.text, f"text of post {parent.id}", max_chars=max_chars, allow_blank=True)
    if parent.text.strip():
        fields.append(CapturedField(name=FieldName.POST_TEXT, text=parent.text, artifact_id=parent.id))
    if parent.note_tweet is not None and parent.note_tweet.text.strip():
        note = check_text(parent.note_tweet.text, f"note_tweet of post {parent.id}", max_chars=max_chars)
        fields.append(CapturedField(name=FieldName.NOTE_TWEET, text=note, artifact_id=parent.id))

    artifact_urls = [post_url]
    context: list[CapturedField] = []
    language = parent.lang or UNDETERMINED
    quoted_id = parent.reference("quoted")
    if quoted_id is not None:
        quoted = tweets.get(quoted_id)
        quoted_author = users.get(quoted.author_id) if quoted is not None and quoted.author_id else None
        artifact_urls.append(x_post_url(quoted_id, quoted_author))
        if quoted is not None:
            text = check_text(_full_text(quoted), f"text of quoted post {quoted_id}", max_chars=max_chars)
            quote = CapturedField(name=FieldName.QUOTED_POST, text=text, artifact_id=quoted_id)
            quoted_language = _declared(quoted.lang)
            if _declared(language) is None and quoted_language is not None:
                language = quoted_language  # "This 👇" over a quote: the quote's words are the claim
            if quoted_language is None or _same_language(quoted_language, language):
                fields.append(quote)
            else:
                context.append(quote)  # one language per subject (G0): a quote in another stays context
    root_id = parent.conversation_id
    if root_id is not None and root_id not in (parent.id, quoted_id):
        root = tweets.get(root_id)
        if root is not None:
            text = check_text(_full_text(root), f"text of conversation root {root_id}", max_chars=max_chars)
            context.append(CapturedField(name=FieldName.POST_TEXT, text=text, artifact_id=root_id))
    if parent.author_id is not None:
        artifact_urls.append(x_profile_url(parent.author_id, author))

    images, has_video_or_audio = _attached_media(parent, media)
    return Subject(
        kind=SubjectKind.X_POST,
        subject_id=parent.id,
        url=post_url,
        captured_at=captured_at,
        is_direct_parent=True,
        language=language,
        has_video_or_audio=has_video_or_audio,
        fields=fields,
        images=images,
        cited_links=[CitedLink(url=url) for url in _cited_urls(parent, {parent.id, quoted_id})],
        context=context,
        artifact_urls=artifact_urls,
    )


def _declared(lang: str | None) -> str | None:
    """X's ``lang`` for a post, or None when X gives none or says it could not tell (``und``, ``zxx``…)."""
    tag = (lang or "").strip()
    return None if not tag or tag.split("-")[0].lower() in UNDETERMINED_LANGUAGES else tag


def _same_language(one: str, other: str) -> bool:
    return one.split("-")[0].lower() == other.split("-")[0].lower()


def _attached_media(post: XTweet, media: Mapping[str, XMedia]) -> tuple[list[CapturedImage], bool]:
    images: list[CapturedImage] = []
    audio_visual = False
    keys = post.attachments.media_keys if post.attachments is not None else []
    for key in dict.fromkeys(keys):
        item = media.get(key)
        if item is None:
            # Without the media object we cannot tell a photo from a video, and G0 depends on it.
            raise CaptureError(
                f"incomplete X payload: media {key!r} of post {post.id} is not in includes.media "
                "(request expansions=attachments.media_keys)"
            )
        if item.type in _AUDIO_VISUAL:
            audio_visual = True
        elif item.type == "photo":
            images.append(CapturedImage(image_id=item.media_key, url=item.url))
    return images, audio_visual


def _cited_urls(post: XTweet, own_ids: set[str | None]) -> list[str]:
    entities = [post.entities, post.note_tweet.entities if post.note_tweet is not None else None]
    candidates: list[str] = []
    for group in entities:
        if group is None:
            continue
        for entity in group.urls:
            if entity.media_key is not None:
                continue  # the link to an attached photo or video, not a citation
            url = entity.expanded_url or entity.unwound_url or entity.url
            if url is None or _is_own_link(url, own_ids):
                continue
            candidates.append(url)
    return clean_links(candidates)


def _is_own_link(url: str, own_ids: set[str | None]) -> bool:
    """A link to the post itself, its media, or the post it quotes: part of the subject, not a citation."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    if host in _MEDIA_HOSTS:
        return True
    if host not in _X_HOSTS:
        return False
    match = _STATUS_PATH.match(parts.path)
    return match is not None and match.group(1) in own_ids
