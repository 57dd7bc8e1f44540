"""The fake X API, and a checker running the real pipeline on the sample corpus."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import Subject
from icarus.pipeline.check import CheckServices, run_check
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from icarus.store import Store
from icarus.xbot import BotState, CheckedVersion, XBot, XBotApi
from tests.xbot.fake_x import BOT_ID, TOKEN, FakeX

EXAMPLES = Path(__file__).parents[2] / "examples"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PUBLIC = "https://icarus.example"


@pytest.fixture
def fake_x() -> Iterator[FakeX]:
    fake = FakeX().start()
    yield fake
    fake.stop()


@dataclass
class PipelineChecker:
    services: CheckServices
    subjects: list[Subject] = field(default_factory=list)
    payloads: list[Mapping[str, Any]] = field(default_factory=list)

    def __call__(self, subject: Subject, now: datetime, payload: Mapping[str, Any]) -> CheckedVersion:
        self.subjects.append(subject)
        self.payloads.append(payload)
        output = run_check(subject, self.services, now)
        assert output.version is not None
        return CheckedVersion(output.version.check_id, output.version.version, output.result)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> LocalCorpus:
    built = LocalCorpus(tmp_path_factory.mktemp("corpus") / "corpus.db")
    built.add(sorted((EXAMPLES / "sample-corpus").glob("*.html")))
    return built


@pytest.fixture
def checker(tmp_path: Path, corpus: LocalCorpus) -> PipelineChecker:
    store = Store(f"sqlite:///{tmp_path / 'icarus.db'}").open()
    return PipelineChecker(
        CheckServices(
            judge=create_judge("offline-lexical@1"),
            providers=[LocalCorpusProvider(corpus)],
            registry=load_registry(EXAMPLES / "sample-corpus" / "reputation.json"),
            snapshots=SnapshotStore(tmp_path / "snapshots"),
            policy=load_policy("icarus@1.1"),
            store=store,
        )
    )


def make_bot(fake: FakeX, state_path: Path, checker: PipelineChecker) -> XBot:
    return XBot(
        XBotApi(SecretStr(TOKEN), fake.url),
        BotState(state_path),
        checker,
        bot_user_id=BOT_ID,
        public_url=PUBLIC,
        clock=lambda: NOW,
    )
