"""The X bot's checks are the service's: a mention becomes a check request, the API rechecks it, and a
recheck follows up on X exactly when the four-label conclusion changes, on the local fake X API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from icarus.api import create_app
from icarus.fetching import SnapshotStore
from icarus.jobs.runner import JobRunner
from icarus.judges import create_judge
from icarus.pipeline.check import CheckServices
from icarus.reputation import Registry, load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.tokens import Role, TokenStore
from icarus.xbot import BotState, XBot, XBotApi, service_checker
from tests.service.conftest import FailingSearch, FakeClock
from tests.xbot.conftest import EXAMPLES, PUBLIC
from tests.xbot.fake_x import BOT_ID, TOKEN, FakeX

BEFORE_ALL = "1860000000000000101"
MENTION = "1860000000000000102"
PARENT = "1860000000000000001"


@dataclass
class World:
    """What the services search and score with; a test changes it between runs."""

    corpus: LocalCorpus
    registry: Registry
    searching: bool = True
    search_down: bool = False


def registry_with_news_at(tmp_path: Path, score: str) -> Registry:
    """The sample's records with every news source's score set to ``score``: the same sources agree, with
    more confidence, so only the band moves."""
    records = json.loads((EXAMPLES / "sample-corpus" / "reputation.json").read_text())
    for entry in records:
        if entry["source_class"] == "news":
            entry["record"]["score"] = score
    path = tmp_path / f"reputation-{score}.json"
    path.write_text(json.dumps(records))
    return load_registry(path)


@pytest.fixture
def world(corpus: LocalCorpus) -> World:
    return World(corpus, load_registry(EXAMPLES / "sample-corpus" / "reputation.json"))


@pytest.fixture
def service(tmp_path: Path, fake_x: FakeX, world: World) -> Iterator[JobRunner]:
    settings = Settings(
        data_dir=tmp_path,
        public_url=PUBLIC,
        x_api_url=fake_x.url,
        x_bot_access_token=SecretStr(TOKEN),
        x_bot_user_id=BOT_ID,
        x_bot_state_path=tmp_path / "xbot.db",
    )
    snapshots = SnapshotStore(tmp_path / "snapshots")

    def services(policy: str | None) -> CheckServices:
        return CheckServices(
            judge=create_judge("offline-lexical@1"),
            providers=[FailingSearch()]
            if world.search_down
            else [LocalCorpusProvider(world.corpus)]
            if world.searching
            else [],
            registry=world.registry,
            snapshots=snapshots,
            policy=load_policy(policy or "icarus@1.1"),
        )

    clock = FakeClock()
    store = Store(f"sqlite:///{tmp_path / 'icarus.db'}", clock=clock).open()
    runner = JobRunner(store, services, clock=clock, settings=settings)
    yield runner
    store.close()


def recheck(client: TestClient, runner: JobRunner, check_id: str) -> int:
    """Ask for a recheck over the API, as a person would, and run it; the version it recorded."""
    issued = TokenStore(runner.store).create("recheck", Role.API, runner.clock(), None)
    answer = client.post(
        f"/v1/checks/{check_id}/rechecks",
        json={"note": "asked again"},
        headers={"Authorization": f"Bearer {issued.secret}"},
    )
    assert answer.status_code == 202, answer.text
    runner.clock.advance(minutes=30)  # type: ignore[attr-defined]
    assert runner.run(check_id, answer.json()["run_key"]).startswith("recorded version")
    return runner.store.latest(check_id).version


def make_bot(fake_x: FakeX, tmp_path: Path, service: JobRunner) -> XBot:
    fake_x.recorded["data"] = [m for m in fake_x.recorded["data"] if m["id"] == MENTION]
    bot = XBot(
        XBotApi(SecretStr(TOKEN), fake_x.url),
        BotState(tmp_path / "xbot.db"),
        service_checker(service),
        bot_user_id=BOT_ID,
        public_url=PUBLIC,
        clock=service.clock,
    )
    bot.state.advance(BEFORE_ALL)
    return bot


def _confidence_score(service: JobRunner, check_id: str) -> float:
    """The claim's confidence score in the check's latest version (its band may stay where it was)."""
    return float(service.store.latest(check_id).result()["trace"]["claims"][0]["confidence"]["score"])


def test_a_mention_is_a_service_check_whose_rechecks_follow_up_only_on_a_new_label(
    fake_x: FakeX, tmp_path: Path, service: JobRunner, world: World
) -> None:
    bot = make_bot(fake_x, tmp_path, service)

    # a mention -> a reply, and the check is a service check request about the direct parent
    assert bot.poll_once().replied == 1
    [reply] = fake_x.posts
    assert reply["in_reply_to"] == MENTION and reply["text"].startswith(
        "\u2705 Supported (confidence medium)"
    )
    check_id = bot.state.mention(MENTION).check_id
    assert check_id is not None and reply["text"].endswith(f"{PUBLIC}/checks/{check_id}")
    request = service.service.request(check_id)
    assert (request.input_kind, request.post_id) == ("payload", PARENT)
    bot.state.close()  # the bot is between polls; the runner's follow-up opens the state itself

    app = create_app(service.settings, runner=service, enqueue=lambda c, k: None)
    with TestClient(app) as client:
        assert client.get(f"/v1/checks/{check_id}").json()["label"] == "supported"

        # a recheck that changes only the confidence: a new version, nothing on X
        first_score = _confidence_score(service, check_id)
        world.registry = registry_with_news_at(tmp_path, "1.00")
        assert recheck(client, service, check_id) == 2
        assert service.store.latest(check_id).result()["overall"]["label"] == "supported"
        assert _confidence_score(service, check_id) > first_score
        assert len(fake_x.posts) == 1

        # a recheck that changes the label: exactly one follow-up, threaded under the bot's reply
        world.searching = False
        assert recheck(client, service, check_id) == 3
        assert service.store.latest(check_id).result()["overall"]["label"] == "unverifiable"
        assert len(fake_x.posts) == 2
        follow_up = fake_x.posts[1]
        assert follow_up["in_reply_to"] == reply["id"]
        assert "now \u2754 Unverifiable" in follow_up["text"] and "was \u2705 Supported" in follow_up["text"]

        # the same conclusion again says nothing more
        assert recheck(client, service, check_id) == 4
        assert len(fake_x.posts) == 2

        # the service's timeline holds every version of the bot's check
        versions = client.get(f"/v1/checks/{check_id}/versions").json()
        assert [(v["version"], v["reason"]) for v in versions] == [
            (1, "first"),
            (2, "recheck"),
            (3, "recheck"),
            (4, "recheck"),
        ]


def test_a_first_run_held_for_search_answers_nothing_yet(
    fake_x: FakeX, tmp_path: Path, service: JobRunner, world: World
) -> None:
    world.search_down = True
    bot = make_bot(fake_x, tmp_path, service)
    report = bot.poll_once()
    assert (report.replied, report.failed) == (0, 1) and fake_x.posts == []
    assert bot.state.mention(MENTION).status == "check_failed"
    # the request is held for its search retry, which the worker runs; the bot posts nothing now
    [request] = service.service.requests_for_post(PARENT)
    assert (request.state.value, request.state_reason) == ("pending", "search_unavailable")
