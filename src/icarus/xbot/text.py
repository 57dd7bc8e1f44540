"""What the bot says on X: the conclusion and a report link, a follow-up when the conclusion changes, or
why a post could not be checked. Every reply fits X's 280-character limit (a link counts as 23)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from icarus.capture.x_post import Refusal, RefusalReason
from icarus.scoring.labels import Label

__all__ = [
    "MAX_POST_CHARS",
    "Conclusion",
    "conclusion_reply",
    "follow_up_reply",
    "post_length",
    "refusal_reply",
]

MAX_POST_CHARS: Final = 280
LINK_CHARS: Final = 23  # X counts every link as this many characters, whatever its length

_REFUSALS: Final = {
    RefusalReason.PARENT_DELETED: "the post this replies to has been deleted",
    RefusalReason.PARENT_PROTECTED: "the post this replies to is protected",
    RefusalReason.PARENT_UNAVAILABLE: "X will not show the post this replies to",
    RefusalReason.PARENT_MISSING: "X did not send the post this replies to",
    RefusalReason.MENTION_UNAVAILABLE: "X did not send the mention itself",
    RefusalReason.NO_PARENT: "this post does not reply to another post",
}


@dataclass(frozen=True)
class Conclusion:
    """What a reply announces: the overall label and band, as of when, over how many claims."""

    label: str
    band: str
    as_of: str
    claims: int

    @classmethod
    def of(cls, result: Mapping[str, Any]) -> Conclusion:
        overall = result["overall"]
        return cls(str(overall["label"]), str(overall["band"]), str(result["as_of"]), len(result["claims"]))

    @property
    def words(self) -> str:
        known = Label(self.label)
        return f"{known.symbol} {known.heading} (confidence {self.band})"

    @property
    def when(self) -> str:
        return self.as_of.replace("T", " ").replace(":00Z", " UTC").replace("Z", " UTC")


def conclusion_reply(conclusion: Conclusion, link: str) -> str:
    if conclusion.claims == 0:
        body = f"{conclusion.words}: no checkable factual claim found"
    else:
        counted = f"{conclusion.claims} claim{'s' * (conclusion.claims != 1)} checked"
        body = f"{conclusion.words}, {counted}, as of {conclusion.when}"
    return _fit(f"{body}. Evidence and reasons: {link}", link)


def follow_up_reply(previous_label: str, conclusion: Conclusion, link: str) -> str:
    was = Label(previous_label)
    body = f"Update as of {conclusion.when}: now {conclusion.words}, was {was.symbol} {was.heading}"
    return _fit(f"{body}. What changed: {link}", link)


def refusal_reply(refusal: Refusal) -> str:
    return f"I can't check this: {_REFUSALS.get(refusal.reason, 'the post is unavailable')}."


def post_length(text: str, link: str | None = None) -> int:
    """Length as X counts it: the link as ``LINK_CHARS``, characters outside the BMP (emoji) as two."""
    counted = text.replace(link, "") if link else text
    extra = LINK_CHARS if link and link in text else 0
    return sum(2 if ord(ch) > 0xFFFF or ch == "\ufe0f" else 1 for ch in counted) + extra


def _fit(text: str, link: str) -> str:
    if post_length(text, link) <= MAX_POST_CHARS:
        return text
    head = text.replace(link, "").rstrip()
    while head and post_length(head + "\u2026 " + link, link) > MAX_POST_CHARS:
        head = head[:-1]
    return head + "\u2026 " + link
