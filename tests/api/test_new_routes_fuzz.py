"""Schemathesis over the model, LVF and EvidenceVerify routes: generated requests never get a 5xx."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings

from icarus.store.tokens import Role
from tests.api.conftest import Site

NEW_ROUTES = ("/v1/models", "/v1/lvf", "/v1/evidence-verify", "/v1/policies/")
CHECK_ROUTES = ("/models", "/compare", "/replay")
LEDGER = Path(__file__).parents[2] / "examples" / "ledgers" / "two-independent-wires.json"


def _is_new(path: str) -> bool:
    return path.startswith(NEW_ROUTES) or (path.startswith("/v1/checks/") and path.endswith(CHECK_ROUTES))


def test_no_request_to_the_new_routes_gets_a_server_error(site: Site) -> None:
    site.recorded_check()
    ledger = json.loads(LEDGER.read_text(encoding="utf-8"))
    admin = site.headers[Role.ADMIN]
    assert site.client.post("/v1/lvf/runs", json={"ledger": ledger}, headers=admin).status_code == 201
    schema: Any = schemathesis.openapi.from_asgi("/openapi.json", site.client.app)
    operations = [result.ok() for result in schema.get_all_operations() if _is_new(result.ok().path)]
    assert len(operations) >= 15

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
        def no_5xx(case: Any) -> None:
            response = case.call(headers=admin)
            assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:300]}"

        no_5xx()
