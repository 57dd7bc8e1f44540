"""Fixtures for the service tests: a store (SQLite, and PostgreSQL when CI provides one), the sample corpus
as the only search provider, the offline judge, and a clock the test moves by hand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from icarus.fetching import SnapshotStore
from icarus.jobs.runner import JobRunner, RunnerConfig
from icarus.judges import create_judge
from icarus.pipeline.check import CheckServices
from icarus.reputation import Registry, load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider, PlannedQuery, ProviderResult, SearchProvider
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from icarus.store import Store
from tests.store.conftest import _postgres_url

EXAMPLES = Path(__file__).parents[2] / "examples"
START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@dataclass
class FakeClock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


class FailingSearch:
    """A search provider that is configured but down: every query answers ``error``."""

    name = "failing"

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        return ProviderResult.error(self.name, "connection refused")


@dataclass
class Providers:
    """The providers the fake services use; a test swaps them to take search down or bring it back."""

    current: list[SearchProvider] = field(default_factory=list)


def sample_payload() -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((EXAMPLES / "sample-post.json").read_text())
    return payload


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.db"
    corpus = LocalCorpus(path)
    corpus.add(sorted((EXAMPLES / "sample-corpus").glob("*.html")))
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'icarus.db'}"
    else:
        yield from _postgres_url()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'data' / 'icarus.db'}"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def providers(corpus_file: Path) -> Providers:
    return Providers([LocalCorpusProvider(LocalCorpus(corpus_file))])


def make_services(tmp_path: Path, providers: Providers, registry: Registry | None = None) -> Any:
    """Services on the sample corpus; the registry is the sample's records unless one is given."""
    registry = registry or load_registry(EXAMPLES / "sample-corpus" / "reputation.json")
    snapshots = SnapshotStore(tmp_path / "snapshots")

    def factory(policy: str | None) -> CheckServices:
        return CheckServices(
            judge=create_judge("offline-lexical@1"),
            providers=list(providers.current),
            registry=registry,
            snapshots=snapshots,
            policy=load_policy(policy or "icarus@1.1"),
        )

    return factory


def open_runner(url: str, tmp_path: Path, clock: FakeClock, providers: Providers, **kwargs: Any) -> JobRunner:
    store = Store(url, clock=clock).open()
    return JobRunner(
        store,
        make_services(tmp_path, providers),
        clock=clock,
        config=RunnerConfig(),
        settings=Settings(data_dir=tmp_path),
        **kwargs,
    )


@pytest.fixture
def runner(db_url: str, tmp_path: Path, clock: FakeClock, providers: Providers) -> Iterator[JobRunner]:
    opened = open_runner(db_url, tmp_path, clock, providers)
    yield opened
    opened.store.close()
