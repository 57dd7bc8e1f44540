"""The bot against X API answers that are hostile or broken: each is a failed poll or a skipped mention,
never an exception that stops the bot."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from icarus.ledger import Subject
from icarus.xbot import CheckedVersion, PollReport
from icarus.xbot.api import XBotApi, XBotApiError
from tests.xbot.conftest import TOKEN, make_bot
from tests.xbot.fake_x import FakeX

BEFORE_ALL = "1860000000000000101"


def no_check(subject: Subject, now: datetime, payload: Mapping[str, Any]) -> CheckedVersion:
    raise AssertionError("no mention here should reach a check")


@pytest.mark.parametrize(
    "body",
    [
        b'{"data": ' * 50_000 + b"1" + b"}" * 50_000,
        b'{"data": [], "note": "' + b"x" * (6 * 1024 * 1024) + b'"}',
    ],
    ids=["nested-too-deeply", "oversized"],
)
def test_an_unreadable_mentions_page_is_a_failed_poll_and_the_bot_goes_on(
    fake_x: FakeX, tmp_path: Path, body: bytes
) -> None:
    bot = make_bot(fake_x, tmp_path / "xbot.db", no_check)
    bot.state.advance(BEFORE_ALL)
    fake_x.raw_pages = [body, b'{"meta": {"result_count": 0}}']
    reports: list[PollReport] = []
    bot.run(0, max_polls=2, on_poll=reports.append, sleep=lambda _: None)
    assert len(reports) == 2 and "X API answer unreadable" in reports[0].notes[0], reports[0].notes
    assert reports[1].notes == [] and len(fake_x.mention_requests) == 2  # the next poll went ahead


def test_mentions_of_the_wrong_shape_are_skipped(fake_x: FakeX, tmp_path: Path) -> None:
    page = {
        "data": [
            {"id": "9" * 5000, "text": "@IcarusCheck", "author_id": "900000000000000009"},
            {"id": "\u00b2", "text": "@IcarusCheck"},  # a digit to str.isdigit, not to int()
            {"id": ["1860000000000000200"]},
            "not an object",
            {"id": "1860000000000000201", "text": "@IcarusCheck", "referenced_tweets": "replied_to"},
            {"id": "1860000000000000202", "text": "@IcarusCheck", "referenced_tweets": [5, "x"]},
            {"id": "1860000000000000203", "text": "@IcarusCheck", "referenced_tweets": {"id": "1"}},
        ],
        "includes": {"tweets": ["not an object"], "users": 5},
        "meta": 5,
    }
    bot = make_bot(fake_x, tmp_path / "xbot.db", no_check)
    bot.state.advance(BEFORE_ALL)
    fake_x.raw_pages = [json.dumps(page).encode()]
    report = bot.poll_once()
    assert report.read == 3 and report.ignored == 3 and report.replied == 0, report
    for mention in ("1860000000000000201", "1860000000000000202", "1860000000000000203"):
        assert bot.state.mention(mention).status == "ignored"
    assert bot.state.since_id() == "1860000000000000203"
    assert len(fake_x.mention_requests) == 1  # meta is not an object: no next page to ask for


@pytest.mark.parametrize(
    "body",
    [
        b'{"data": "x"}',
        b'{"data": {"id": 5}}',
        '{"data": {"id": "\u00b2"}}'.encode(),
        b'{"data": {"id": ""}}',
    ],
    ids=["data-not-an-object", "id-not-a-string", "superscript-digit", "empty-id"],
)
def test_a_reply_answer_without_a_post_id_is_an_api_error(fake_x: FakeX, body: bytes) -> None:
    fake_x.raw_replies = [body, b'{"data": {"id": "1860000000000000999"}}']
    api = XBotApi(SecretStr(TOKEN), fake_x.url)
    with pytest.raises(XBotApiError, match="returned no post id"):
        api.reply("A note.", "1860000000000000100")
    assert api.reply("A note.", "1860000000000000100") == "1860000000000000999"
