"""H4 from the X bot: the checks it runs for mentions queue their review requests, scored with the
registry its settings name (``ICARUS_REPUTATION_FILES``), against the local fake X API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.reputation.review import pending
from tests.pipeline.conftest import SAMPLE_RECORDS, UNREVIEWED, registry_without
from tests.xbot.fake_x import BOT_ID, TOKEN, FakeX

BEFORE_ALL = "1860000000000000101"
runner = CliRunner()


@pytest.fixture
def bot_env(fake_x: FakeX, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bot's settings, with the sample corpus as its only search provider; its data folder."""
    data = tmp_path / "data"
    monkeypatch.setenv("ICARUS_DATA_DIR", str(data))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    monkeypatch.delenv("ICARUS_REVIEW_QUEUE_PATH", raising=False)
    monkeypatch.setenv("ICARUS_X_API_URL", fake_x.url)
    monkeypatch.setenv("ICARUS_X_BOT_ACCESS_TOKEN", TOKEN)
    monkeypatch.setenv("ICARUS_X_BOT_USER_ID", BOT_ID)
    monkeypatch.setenv("ICARUS_FETCH_CITED_LINKS", "false")
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    corpus = sorted(str(p) for p in (SAMPLE_RECORDS.parent).glob("*.html"))
    added = runner.invoke(app, ["corpus", "add", *corpus])
    assert added.exit_code == 0, added.output
    return data


def poll_once() -> str:
    polled = runner.invoke(app, ["x-bot", "--once", "--since-id", BEFORE_ALL])
    assert polled.exit_code == 0, polled.output
    return polled.output


def test_a_mention_checked_with_an_estimate_that_could_change_the_label_queues_it(
    bot_env: Path, fake_x: FakeX, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", str(registry_without(UNREVIEWED, tmp_path / "p.json")))
    assert "replied 3" in poll_once()
    replies = [post["text"] for post in fake_x.posts]
    assert any(text.startswith("\u2754") for text in replies)  # ❔: one origin is only estimated
    [queued] = pending(bot_env / "review-queue.jsonl")
    assert queued.domain == UNREVIEWED


def test_the_bot_queues_where_the_setting_says(
    bot_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = tmp_path / "elsewhere" / "h4.jsonl"
    monkeypatch.setenv("ICARUS_REVIEW_QUEUE_PATH", str(queue))
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", str(registry_without(UNREVIEWED, tmp_path / "p.json")))
    poll_once()
    assert [i.domain for i in pending(queue)] == [UNREVIEWED]
    assert not (bot_env / "review-queue.jsonl").exists()


def test_with_every_origin_on_file_the_bot_queues_nothing(
    bot_env: Path, fake_x: FakeX, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", str(SAMPLE_RECORDS))
    poll_once()
    assert any(post["text"].startswith("\u2705 Supported") for post in fake_x.posts)
    assert not (bot_env / "review-queue.jsonl").exists()


def test_a_reputation_file_the_bot_cannot_read_stops_it_before_it_answers(
    bot_env: Path, fake_x: FakeX, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"not": "a list"}))
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", str(broken))
    refused = runner.invoke(app, ["x-bot", "--once", "--since-id", BEFORE_ALL])
    assert refused.exit_code == 2 and "ICARUS_REPUTATION_FILES" in refused.output, refused.output
    assert fake_x.posts == [] and fake_x.mention_requests == []
