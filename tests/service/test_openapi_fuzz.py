"""Schemathesis against /openapi.json: generated requests to every operation never get a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from icarus.api import create_app
from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store.tokens import Role, TokenStore
from tests.service.conftest import FakeClock, Providers, open_runner, sample_payload

ADMIN: dict[str, str] = {}


@pytest.fixture
def fuzz_runner(sqlite_url: str, tmp_path: Path, providers: Providers) -> Iterator[JobRunner]:
    runner = open_runner(sqlite_url, tmp_path, FakeClock(), providers)
    yield runner
    runner.store.close()


@pytest.fixture
def api_schema(fuzz_runner: JobRunner, tmp_path: Path) -> Any:
    check_id = fuzz_runner.submit(CheckInput(payload=sample_payload()))
    fuzz_runner.run(check_id, "first")  # something real to read, besides the unknown ids
    issued = TokenStore(fuzz_runner.store).create(
        "fuzz", Role.ADMIN, fuzz_runner.clock(), rate_per_minute=100_000
    )
    ADMIN["Authorization"] = f"Bearer {issued.secret}"
    app = create_app(Settings(data_dir=tmp_path), runner=fuzz_runner, enqueue=lambda c, k: None)
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def test_no_request_gets_a_server_error(api_schema: Any) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 15

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
        def no_5xx(case: Any) -> None:
            if "/events" in case.path:
                case.query = {**(case.query or {}), "once": True}  # a live stream would never end
            response = case.call(headers=ADMIN)
            assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:300]}"

        no_5xx()
