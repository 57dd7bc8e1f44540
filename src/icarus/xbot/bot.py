"""The X bot: read mentions, check each tagging reply's direct parent, reply with the conclusion and a
report link; later, follow up in the same thread only when the four-label conclusion changes.

The subject is always the mention's direct parent (``capture_x_mention``); a mention that replies to no
post is ignored, and one whose parent cannot be read gets a short reply saying why. Two mentions under
the same post share one check: the second reply reuses the first check's conclusion and link. The
checker (``service.pipeline_checker``) makes each check a service check request, so rechecks,
corrections and the timeline are the service's; ``follow_up`` is what a later version calls.

Posting is at most once per mention: the mention is recorded before anything else, marked ``replying``
just before the reply is sent, and never retried from that state (see ``icarus.xbot.state``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from icarus.capture import CaptureError, capture_x_mention
from icarus.capture.x_post import RefusalReason
from icarus.ledger import Subject
from icarus.xbot.api import MentionPage, XBotApi, XBotApiError, XRateLimited
from icarus.xbot.state import BotState, MentionRecord
from icarus.xbot.text import Conclusion, conclusion_reply, follow_up_reply, refusal_reply

__all__ = ["CheckedVersion", "Checker", "PollReport", "XBot"]

log = logging.getLogger("icarus.xbot")


@dataclass(frozen=True)
class CheckedVersion:
    """A recorded report version: which check, which version, and its published result."""

    check_id: str
    version: int
    result: Mapping[str, Any]


Checker = Callable[[Subject, datetime, Mapping[str, Any]], CheckedVersion]
"""Checks a mention's subject as of a time; the third argument is the mention as a one-post X payload (the
mention in ``data``, the page's ``includes`` and ``errors``), what the service's check requests take."""
Clock = Callable[[], datetime]


@dataclass
class PollReport:
    read: int = 0
    replied: int = 0
    ignored: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)
    failed_ids: set[str] = field(default_factory=set)


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _mention_payload(mention: Mapping[str, Any], page: MentionPage) -> dict[str, Any]:
    """One mention as the payload ``POST /v1/checks`` takes: the reply itself and what the page includes."""
    payload: dict[str, Any] = {"data": dict(mention)}
    for key in ("includes", "errors"):
        if key in page.payload:
            payload[key] = page.payload[key]
    return payload


class XBot:
    def __init__(
        self,
        api: XBotApi,
        state: BotState,
        checker: Checker,
        *,
        bot_user_id: str,
        public_url: str,
        clock: Clock = _now,
    ) -> None:
        self.api = api
        self.state = state
        self.checker = checker
        self.bot_user_id = bot_user_id
        self.public_url = public_url.rstrip("/")
        self.clock = clock

    def report_link(self, check_id: str) -> str:
        return f"{self.public_url}/checks/{check_id}"

    # --- polling ---------------------------------------------------------------------------------------

    def start_after_newest(self) -> None:
        """Set the position to the newest mention without answering anything (a first run)."""
        for page in self.api.mentions(self.bot_user_id, None):
            ids = [int(m["id"]) for m in page.mentions]  # MentionPage keeps only posts with a digit id
            if ids:
                self.state.advance(str(max(ids)))
            return

    def poll_once(self) -> PollReport:
        """Read new mentions, answer each once, and retry answers that surely did not reach X."""
        report = PollReport()
        since = self.state.since_id()
        pages: list[MentionPage] = []
        try:
            for page in self.api.mentions(self.bot_user_id, since):
                pages.append(page)
        except XRateLimited as exc:
            report.notes.append(str(exc))  # what was read so far is still answered
        newest = max((int(m["id"]) for p in pages for m in p.mentions), default=None)
        for page in pages:
            for mention in sorted(page.mentions, key=lambda m: int(m["id"])):
                self._read(mention, page, report)
        if newest is not None:
            self.state.advance(str(newest))
        for record in self.state.retryable():
            if record.mention_id not in report.failed_ids:  # X just refused it: wait for the next poll
                self._retry_reply(record, report)
        return report

    def _read(self, mention: Mapping[str, Any], page: MentionPage, report: PollReport) -> None:
        mention_id = str(mention["id"])
        references = mention.get("referenced_tweets")
        parent_id = next(
            (
                str(r.get("id"))
                for r in (references if isinstance(references, list) else [])
                if isinstance(r, Mapping) and r.get("type") == "replied_to"
            ),
            None,
        )
        now = self.clock()
        if not self.state.claim(mention_id, parent_id, now):
            return  # read in an earlier poll: answered, or deliberately not retried
        report.read += 1
        if str(mention.get("author_id")) == self.bot_user_id or self._by_bot(parent_id, page):
            self.state.set_status(mention_id, "ignored", now, "the bot's own post")
            report.ignored += 1
            return
        try:
            outcome = capture_x_mention(page.payload, now, mention_id=mention_id)
        except CaptureError as exc:
            self.state.set_status(mention_id, "ignored", now, f"capture failed: {exc}")
            report.ignored += 1
            report.notes.append(f"mention {mention_id}: {exc}")
            return
        if outcome.refusal is not None:
            if outcome.refusal.reason is RefusalReason.NO_PARENT:
                self.state.set_status(mention_id, "ignored", now, outcome.refusal.detail)
                report.ignored += 1
                return
            self._post_refusal(mention_id, refusal_reply(outcome.refusal), report)
            return
        assert outcome.subject is not None
        earlier = self.state.answered_parent(parent_id) if parent_id else None
        if earlier is not None and earlier.check_id and earlier.version and earlier.conclusion:
            self._reply(mention_id, earlier.check_id, earlier.version, earlier.conclusion, report)
            return
        try:
            checked = self.checker(outcome.subject, now, _mention_payload(mention, page))
        except Exception as exc:  # a failed check must not stop the other mentions
            log.exception("check of mention %s failed", mention_id)
            self.state.set_status(mention_id, "check_failed", now, f"check failed: {type(exc).__name__}")
            report.failed += 1
            return
        self._reply(mention_id, checked.check_id, checked.version, Conclusion.of(checked.result), report)

    def _by_bot(self, parent_id: str | None, page: MentionPage) -> bool:
        parent = next((t for t in page.included_tweets if str(t.get("id")) == parent_id), None)
        return parent is not None and str(parent.get("author_id")) == self.bot_user_id

    def _reply(
        self, mention_id: str, check_id: str, version: int, conclusion: Conclusion, report: PollReport
    ) -> None:
        text = conclusion_reply(conclusion, self.report_link(check_id))
        self.state.replying(mention_id, check_id, version, conclusion, self.clock())
        try:
            post_id = self.api.reply(text, mention_id)
        except XBotApiError as exc:
            # X answered with a refusal: the reply is not on X, so it may be retried.
            self.state.set_status(mention_id, "failed", self.clock(), str(exc))
            report.failed += 1
            report.failed_ids.add(mention_id)
            report.notes.append(f"mention {mention_id}: {exc}")
            return
        self.state.replied(mention_id, post_id, self.clock())
        report.replied += 1

    def _post_refusal(self, mention_id: str, text: str, report: PollReport) -> None:
        now = self.clock()
        self.state.set_status(mention_id, "replying", now, "refusal")
        try:
            self.api.reply(text, mention_id)
        except XBotApiError as exc:
            self.state.set_status(mention_id, "ignored", self.clock(), f"refusal not posted: {exc}")
            report.failed += 1
            return
        self.state.set_status(mention_id, "refused", self.clock(), text)
        report.replied += 1

    def _retry_reply(self, record: MentionRecord, report: PollReport) -> None:
        conclusion = record.conclusion
        if record.check_id is None or record.version is None or conclusion is None:
            return
        self._reply(record.mention_id, record.check_id, record.version, conclusion, report)

    # --- follow-ups ------------------------------------------------------------------------------------

    def follow_up(self, check_id: str, version: int, result: Mapping[str, Any]) -> list[str]:
        """After version ``version`` of ``check_id`` is recorded: in every thread where the bot announced
        this check, reply again if the four-label conclusion differs from the one last announced there.
        Returns the ids of the posts made. Band, evidence and confidence changes alone post nothing."""
        conclusion = Conclusion.of(result)
        posted: list[str] = []
        for thread in self.state.threads_for(check_id):
            if thread.thread_tip is None or (thread.version or 0) >= version:
                continue  # nothing posted to follow, or this thread already speaks for a later version
            if thread.label == conclusion.label:
                continue
            now = self.clock()
            if not self.state.reserve_follow_up(thread.mention_id, check_id, version, conclusion.label, now):
                continue
            text = follow_up_reply(str(thread.label), conclusion, self.report_link(check_id))
            try:
                post_id = self.api.reply(text, thread.thread_tip)
            except XBotApiError as exc:
                log.warning(
                    "follow-up for check %s in thread %s failed: %s", check_id, thread.mention_id, exc
                )
                continue
            self.state.followed_up(thread.mention_id, check_id, version, conclusion, post_id, self.clock())
            posted.append(post_id)
        return posted

    # --- the loop --------------------------------------------------------------------------------------

    def run(
        self,
        interval_s: float,
        *,
        max_polls: int | None = None,
        on_poll: Callable[[PollReport], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Poll every ``interval_s`` seconds (longer after a rate limit) until ``max_polls`` or Ctrl-C."""
        polls = 0
        while max_polls is None or polls < max_polls:
            try:
                report = self.poll_once()
            except XBotApiError as exc:
                report = PollReport(notes=[str(exc)])
            polls += 1
            if on_poll is not None:
                on_poll(report)
            if max_polls is not None and polls >= max_polls:
                return
            sleep(interval_s)
