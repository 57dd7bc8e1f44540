"""Two real workers, checks in flight, one SIGKILLed: every check is recorded exactly once, and the killed
worker's checks are handed out again within a lease and a heartbeat, far inside 60 s. On SQLite with the
SQLite queue, and on PostgreSQL + Redis when ``ICARUS_DATABASE_URL`` and ``ICARUS_REDIS_URL`` are set."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.worker_kill import STRANDED_LIMIT_S, kill_one_of_two_workers

from tests.store.conftest import _postgres_url

CHECKS = 12  # bench/service.py runs the same with 50; here fewer keep the test near a minute
REDIS_ENV = "ICARUS_REDIS_URL"


@pytest.fixture(params=["sqlite", "postgresql+redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str | None]]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'icarus.db'}", None
        return
    redis_url = os.environ.get(REDIS_ENV, "")
    if not redis_url.startswith("redis"):
        pytest.skip(f"{REDIS_ENV} is not a Redis URL; the PostgreSQL + Redis run is skipped")
    for url in _postgres_url():
        yield url, redis_url


def test_a_killed_worker_strands_nothing_and_duplicates_nothing(
    tmp_path: Path, corpus_file: Path, backend: tuple[str, str | None]
) -> None:
    db_url, redis_url = backend
    outcome = kill_one_of_two_workers(tmp_path, db_url, corpus_file, redis_url=redis_url, checks=CHECKS)
    assert outcome.worker_exit == -9
    assert outcome.running_at_kill >= 3
    assert outcome.recorded == outcome.recorded_once == outcome.versions == CHECKS, outcome
    assert outcome.stranded_s is not None and outcome.stranded_s < STRANDED_LIMIT_S, outcome
    assert outcome.rerun_s is not None and outcome.rerun_s < STRANDED_LIMIT_S, outcome
    assert outcome.stranded_at_limit == 0, outcome
