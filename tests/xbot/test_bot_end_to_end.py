"""The bot against a local fake X API: mentions in, checks run, replies out, never twice; follow-ups only
when the four-label conclusion changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from icarus.cli import app
from icarus.settings import Settings
from icarus.xbot import follow_up_on_new_version
from tests.xbot.conftest import PUBLIC, PipelineChecker, make_bot
from tests.xbot.fake_x import BOT_ID, TOKEN, FakeX

BEFORE_ALL = "1860000000000000101"
PARENT = "1860000000000000001"
runner = CliRunner()


def first_poll(fake_x: FakeX, state: Path, checker: PipelineChecker) -> Any:
    bot = make_bot(fake_x, state, checker)
    bot.state.advance(BEFORE_ALL)
    return bot, bot.poll_once()


def test_each_tagging_reply_gets_one_answer_about_its_direct_parent(
    fake_x: FakeX, tmp_path: Path, checker: PipelineChecker
) -> None:
    bot, report = first_poll(fake_x, tmp_path / "xbot.db", checker)
    # two pages were read, both asking only for mentions after the stored position
    assert [r.get("pagination_token") for r in fake_x.mention_requests] == [None, "3"]
    assert {r["since_id"] for r in fake_x.mention_requests} == {BEFORE_ALL}
    assert "referenced_tweets.id" in fake_x.mention_requests[0]["expansions"]
    # the post both readers tagged under was checked once, and its direct parent is what was checked
    assert [s.subject_id for s in checker.subjects] == [PARENT]
    replies = {p["in_reply_to"]: p["text"] for p in fake_x.posts}
    assert set(replies) == {"1860000000000000102", "1860000000000000103", "1860000000000000104"}
    check_id = bot.state.mention("1860000000000000102").check_id
    for mention in ("1860000000000000102", "1860000000000000103"):
        assert replies[mention].startswith("\u2705 Supported (confidence ")
        assert replies[mention].endswith(f"{PUBLIC}/checks/{check_id}")
    assert replies["1860000000000000104"] == "I can't check this: the post this replies to has been deleted."
    # a mention that replies to nothing, and one under the bot's own post, get no answer
    assert bot.state.mention("1860000000000000105").status == "ignored"
    assert bot.state.mention("1860000000000000106").status == "ignored"
    assert (report.read, report.replied, report.ignored, report.failed) == (5, 3, 2, 0)
    assert bot.state.since_id() == "1860000000000000106"


def test_a_restart_never_answers_twice(fake_x: FakeX, tmp_path: Path, checker: PipelineChecker) -> None:
    state = tmp_path / "xbot.db"
    bot, _ = first_poll(fake_x, state, checker)
    bot.state.close()
    again = make_bot(fake_x, state, checker)
    assert again.poll_once().read == 0
    assert fake_x.mention_requests[-1]["since_id"] == "1860000000000000106"
    # even with the stored position lost, the mentions already read are recognised
    again.state._db.execute("DELETE FROM cursor")
    assert again.poll_once().read == 0
    assert len(fake_x.posts) == 3 and len(checker.subjects) == 1


def test_a_refused_reply_is_retried_but_an_interrupted_one_is_not(
    fake_x: FakeX, tmp_path: Path, checker: PipelineChecker
) -> None:
    fake_x.recorded["data"] = [m for m in fake_x.recorded["data"] if m["id"] == "1860000000000000103"]
    fake_x.fail_next = [503]
    bot, report = first_poll(fake_x, tmp_path / "xbot.db", checker)
    assert report.failed == 1 and fake_x.posts == []
    assert bot.state.mention("1860000000000000103").status == "failed"
    retried = bot.poll_once()
    assert retried.replied == 1 and len(fake_x.posts) == 1
    assert len(checker.subjects) == 1  # the retry reposts the conclusion; it does not check again
    # a reply cut off mid-post (status "replying") may be on X already: it is left alone
    mention = dict(fake_x.recorded["data"][0], id="1860000000000000110")
    fake_x.add_mention(mention)
    bot.state.claim("1860000000000000110", PARENT, bot.clock())
    conclusion = bot.state.mention("1860000000000000103").conclusion
    assert conclusion is not None
    bot.state.replying("1860000000000000110", "c", 1, conclusion, bot.clock())
    assert bot.poll_once().replied == 0 and len(fake_x.posts) == 1


def test_follow_ups_only_when_the_four_label_conclusion_changes(
    fake_x: FakeX, tmp_path: Path, checker: PipelineChecker, monkeypatch: Any
) -> None:
    bot, _ = first_poll(fake_x, tmp_path / "xbot.db", checker)
    thread = bot.state.mention("1860000000000000102")
    assert thread.check_id is not None and thread.label == "supported"
    check_id = thread.check_id
    latest = checker.services.store.latest(check_id).result()  # type: ignore[union-attr]
    other_band = {**latest, "overall": {**latest["overall"], "band": "low"}}
    assert bot.follow_up(check_id, 2, other_band) == []  # the band alone changed: silence on X
    changed = {
        **latest,
        "as_of": "2026-11-20T13:00:00Z",
        "overall": {**latest["overall"], "label": "not_supported"},
    }
    posted = bot.follow_up(check_id, 3, changed)
    assert len(posted) == 2  # one per thread that announced the check
    follow_ups = fake_x.posts[-2:]
    tips = {p["id"] for p in fake_x.posts[:3]}
    assert all(p["in_reply_to"] in tips for p in follow_ups)  # threaded under the bot's own reply
    assert follow_ups[0]["text"].startswith("Update as of 2026-11-20 13:00 UTC: now \u274c Not supported")
    assert "was \u2705 Supported" in follow_ups[0]["text"]
    assert bot.follow_up(check_id, 3, changed) == []  # the same version is never announced twice
    assert bot.follow_up(check_id, 2, other_band) == []  # nor an older one
    # the service's hook: from settings, back to supported on version 4
    bot.state.close()
    monkeypatch.setenv("ICARUS_X_BOT_STATE_PATH", str(tmp_path / "xbot.db"))
    monkeypatch.setenv("ICARUS_X_API_URL", fake_x.url)
    monkeypatch.setenv("ICARUS_X_BOT_ACCESS_TOKEN", TOKEN)
    monkeypatch.setenv("ICARUS_X_BOT_USER_ID", BOT_ID)
    assert len(follow_up_on_new_version(check_id, 4, latest)) == 2
    assert follow_up_on_new_version("never-announced", 2, changed) == []


def test_the_hook_does_nothing_without_a_bot(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert follow_up_on_new_version("any", 2, {"overall": {"label": "supported"}}, settings) == []


def test_cli_once_first_run_starts_after_the_newest_mention(
    fake_x: FakeX, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ICARUS_X_API_URL", fake_x.url)
    monkeypatch.setenv("ICARUS_X_BOT_ACCESS_TOKEN", TOKEN)
    monkeypatch.setenv("ICARUS_X_BOT_USER_ID", BOT_ID)
    monkeypatch.setenv("ICARUS_FETCH_CITED_LINKS", "false")
    result = runner.invoke(app, ["x-bot", "--once"])
    assert result.exit_code == 0, result.output
    assert "starting after mention 1860000000000000106" in result.output
    assert fake_x.posts == []


def test_cli_needs_its_settings_and_says_which(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ICARUS_X_BOT_USER_ID", raising=False)
    result = runner.invoke(app, ["x-bot", "--once"])
    assert result.exit_code == 2 and "ICARUS_X_BOT_USER_ID" in result.output
    bad = runner.invoke(app, ["x-bot", "--once", "--since-id", "abc"])
    assert bad.exit_code == 2 and "--since-id must be a numeric X post id" in bad.output
