"""Schemathesis against the debate operations of /openapi.json: generated requests never get a 5xx.

A debate with an answered claim exists, so generated ids sometimes reach real rows besides unknown ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from icarus.store.tokens import Role
from tests.debates.test_api import Site, open_site

DEBATE_PATHS = ("/v1/debates", "/v1/claim", "/v1/claims/", "/v1/panels/", "/v1/session/")


@pytest.fixture
def fuzz_site(tmp_path: Path) -> Iterator[Site]:
    yield from open_site(tmp_path)


def test_no_debate_request_gets_a_server_error(fuzz_site: Site) -> None:
    admin = fuzz_site.token(Role.ADMIN)
    debate_id = fuzz_site.debate(admin)
    fuzz_site.claim(admin, debate_id)
    schema = schemathesis.openapi.from_asgi("/openapi.json", fuzz_site.client.app)
    every: list[Any] = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    operations = [operation for operation in every if operation.path.startswith(DEBATE_PATHS)]
    assert len(operations) >= 20

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
        def no_5xx(case: Any) -> None:
            if case.path.endswith("/events"):
                case.query = {**(case.query or {}), "once": True}  # a live stream would never end
            response = case.call(headers=admin)
            assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:300]}"

        no_5xx()
