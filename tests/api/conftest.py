"""An app on a SQLite store with jobs run inline on the sample corpus, and tokens of every role."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from icarus.api import create_app
from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store.tokens import Role, TokenStore
from tests.service.conftest import FakeClock, corpus_file, open_runner, providers, sample_payload

__all__ = ["Site", "corpus_file", "providers", "site"]


@dataclass
class Site:
    client: TestClient
    runner: JobRunner
    settings: Settings
    headers: dict[Role, dict[str, str]]

    def recorded_check(self) -> str:
        """A check of the sample post with its first version recorded."""
        check_id = self.runner.submit(CheckInput(payload=sample_payload()))
        self.runner.run(check_id, "first")
        return check_id


@pytest.fixture
def site(tmp_path: Path, providers: object) -> Iterator[Site]:
    runner = open_runner(f"sqlite:///{tmp_path / 'data' / 'icarus.db'}", tmp_path, FakeClock(), providers)  # type: ignore[arg-type]
    settings = Settings(data_dir=tmp_path, public_url="https://icarus.test")
    headers = {
        role: {
            "Authorization": "Bearer "
            + TokenStore(runner.store).create(f"test {role.value}", role, runner.clock(), 100_000).secret
        }
        for role in Role
    }
    app = create_app(settings, runner=runner, enqueue=lambda c, k: None)
    with TestClient(app) as client:
        yield Site(client, runner, settings, headers)
    runner.store.close()
