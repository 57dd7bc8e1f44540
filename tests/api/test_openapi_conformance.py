"""The OpenAPI description matches the answers, on every route it lists, and is exactly as strict as
validation.

Schemathesis generates requests for every operation of ``/openapi.json`` (as an admin, an api token, a
reader and an anonymous caller), schema-valid ones (positive) and schema-invalid ones (negative), and
validates each answer against the description: no 5xx, every status documented, content types, headers
and bodies as described (error bodies included), every schema-invalid request refused, and every
schema-valid one never refused by request validation (the spy below sees each ``RequestValidationError``).
A 422 stays allowed for schema-valid input whose content is refused after validation (an address the
fetch guard refuses, a ledger that does not validate, a debate dated in the future): the schema describes
shapes, the 422's ``detail`` says why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from icarus.api import openapi
from icarus.api.openapi import DOCS_ASSETS, docs_router, swagger_assets
from icarus.jobs.inputs import CheckInput
from icarus.store.tokens import Role
from tests.api.conftest import Site
from tests.service.conftest import sample_payload

LEDGER = Path(__file__).parents[2] / "examples" / "ledgers" / "two-independent-wires.json"
# Cases per operation: about 70 operations, so some 1,100 requests in all (under a minute here).
EXAMPLES: Final = {GenerationMode.POSITIVE: 10, GenerationMode.NEGATIVE: 6}
# Schema-valid requests may still be refused for their content (see the module docstring): 422.
ACCEPTABLE_FOR_VALID_DATA: Final = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]
# Schema-invalid ones are refused: 422 for the body, query or path; 401/403 before a body is read; 404 for
# a path parameter that names nothing; 405 for a generated method; 413 for a body over the limit; 429.
REFUSALS_OF_INVALID_DATA: Final = ["401", "403", "404", "405", "413", "422", "429"]
CHECKS: Final = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    positive_data_acceptance,
]
CALLERS: Final = (Role.ADMIN, Role.API, Role.READER, None)


def _seed(site: Site) -> None:
    """Real rows for generated ids to hit now and then: a recorded check, a queued one, an LVF run, a
    debate with a claim."""
    admin = site.headers[Role.ADMIN]
    site.recorded_check()
    site.runner.submit(CheckInput(text="A check still in the queue."))
    ledger = json.loads(LEDGER.read_text(encoding="utf-8"))
    assert site.client.post("/v1/lvf/runs", json={"ledger": ledger}, headers=admin).status_code == 201
    debate = site.client.post("/v1/debates", json={"research_modes": ["two_step"]}, headers=admin)
    assert debate.status_code == 201, debate.text
    claim = {"text": "Taxes rose 5 percent in 2024.", "debate_id": debate.json()["id"]}
    assert site.client.post("/v1/claim", json=claim, headers=admin).status_code == 202


@pytest.fixture
def shape_refusals(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RequestValidationError]]:
    """Every request validation error raised while the test runs: a schema-valid request must raise none."""
    raised: list[RequestValidationError] = []
    original = RequestValidationError.__init__

    def spy(self: RequestValidationError, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        raised.append(self)

    monkeypatch.setattr(RequestValidationError, "__init__", spy)
    yield raised


def _has_inputs(description: dict[str, Any], method: str, path: str) -> bool:
    operation = description["paths"][path][method.lower()]
    return bool(operation.get("parameters") or operation.get("requestBody"))


@pytest.mark.parametrize("mode", list(EXAMPLES), ids=lambda mode: str(mode.value))
def test_every_operation_answers_as_its_description_says(
    site: Site, shape_refusals: list[RequestValidationError], mode: GenerationMode
) -> None:
    _seed(site)
    config = SchemathesisConfig.from_dict(
        {
            "checks": {
                "positive_data_acceptance": {"expected-statuses": ACCEPTABLE_FOR_VALID_DATA},
                "negative_data_rejection": {"expected-statuses": REFUSALS_OF_INVALID_DATA},
            }
        }
    )
    schema: Any = schemathesis.openapi.from_asgi("/openapi.json", site.client.app, config=config)
    description = site.client.get("/openapi.json").json()
    operations = [result.ok() for result in schema.get_all_operations()]
    listed = {(op.method.upper(), op.path) for op in operations}
    assert len(listed) >= 60, "every documented operation is exercised"
    assert {("POST", "/v1/checks"), ("GET", "/v1/debates/{debate_id}"), ("POST", "/v1/lvf/runs")} <= listed
    callers = [site.headers[role] if role else {} for role in CALLERS]
    nothing_to_negate = []

    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=mode), caller=st.sampled_from(callers))
        @settings(
            max_examples=EXAMPLES[mode],
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def conforms(case: Any, caller: dict[str, str]) -> None:
            if case.path.endswith("/events"):
                case.query = {**(case.query or {}), "once": True}  # a live stream would never end
            shape_refusals.clear()
            case.call_and_validate(headers=caller, checks=CHECKS)
            if mode.is_positive:
                assert not shape_refusals, (
                    f"{case.method} {case.formatted_path}: the schema allows {case.body!r} "
                    f"(query {case.query!r}) but validation refused it: {shape_refusals[0].errors()}"
                )

        try:
            conforms()
        except Unsatisfiable:  # a negative case needs an input to get wrong
            nothing_to_negate.append((operation.method.upper(), operation.path))
    assert not any(_has_inputs(description, method, path) for method, path in nothing_to_negate)
    assert mode.is_negative or not nothing_to_negate


def test_an_invalid_request_answers_a_string_detail_and_a_list_of_errors(site: Site) -> None:
    answer = site.client.post("/v1/checks", json={"url": ""}, headers=site.headers[Role.API])
    assert answer.status_code == 422
    body = answer.json()
    assert isinstance(body["detail"], str) and body["detail"]
    assert [error["field"] for error in body["errors"]] == ["body.url"]


@pytest.mark.parametrize(
    "body",
    [b'{"text": "caf\xe9"}', b"[" * 100_000 + b"]" * 100_000],
    ids=["invalid UTF-8", "nested 100,000 deep"],
)
def test_a_body_that_is_not_json_answers_422_with_its_errors(site: Site, body: bytes) -> None:
    headers = site.headers[Role.API] | {"Content-Type": "application/json"}
    answer = site.client.post("/v1/checks", content=body, headers=headers)
    assert answer.status_code == 422
    assert answer.json()["errors"] == [{"field": "body", "message": answer.json()["detail"][6:]}]


def test_the_description_refuses_the_empty_strings_the_server_refuses(site: Site) -> None:
    description = site.client.get("/openapi.json").json()
    fields = description["components"]["schemas"]["CheckSubmission"]["properties"]
    strings = {
        name: next(branch for branch in fields[name]["anyOf"] if branch["type"] == "string")
        for name in ("url", "post", "text", "policy")
    }
    assert strings["url"]["minLength"] == strings["post"]["minLength"] == strings["text"]["minLength"] == 1
    assert "" not in strings["policy"]["enum"] and "icarus@1.1" in strings["policy"]["enum"]
    assert re.fullmatch(strings["url"]["pattern"], "HTTP://example.org/a")
    for name in ("url", "post", "text", "policy"):
        answer = site.client.post("/v1/checks", json={name: ""}, headers=site.headers[Role.API])
        assert answer.status_code == 422, name


def test_every_error_answer_is_described_as_a_problem(site: Site) -> None:
    description = site.client.get("/openapi.json").json()
    assert "HTTPValidationError" not in description["components"]["schemas"]
    corrections = description["paths"]["/v1/checks/{check_id}/corrections"]["post"]["responses"]
    assert {"401", "403", "404", "413", "422", "429", "503"} <= set(corrections)
    for path, item in description["paths"].items():
        for method, operation in item.items():
            for code, answer in operation["responses"].items():
                if code.startswith(("4", "5")):
                    assert answer["content"] == {
                        "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
                    }, (method, path, code)
    assert "Retry-After" in corrections["429"]["headers"]


def test_a_correction_by_a_token_without_the_admin_role_is_a_documented_403(site: Site) -> None:
    check_id = site.recorded_check()
    answer = site.client.post(
        f"/v1/checks/{check_id}/corrections", json={"note": "wrong"}, headers=site.headers[Role.API]
    )
    assert answer.status_code == 403 and "admin" in answer.json()["detail"]


def test_claimreview_of_a_check_still_queued_says_it_has_no_version_yet(site: Site) -> None:
    check_id = site.runner.submit(CheckInput(payload=sample_payload()))
    for route in ("claimreview", "report", "versions/1/ledger", "versions/1/trace", "versions/1"):
        answer = site.client.get(f"/v1/checks/{check_id}/{route}")
        assert answer.status_code == 404, route
        assert "has no version yet (it is queued)" in answer.json()["detail"], route
    assert site.client.get("/v1/checks/unknown/claimreview").json()["detail"] == "no check 'unknown'"


EXTERNAL: Final = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.IGNORECASE)


def test_docs_name_no_other_host(site: Site) -> None:
    page = site.client.get("/docs")
    assert page.status_code == 200
    assert not EXTERNAL.search(page.text), "the docs page loads something from another host"
    assert "/openapi.json" in page.text
    assert site.client.get("/redoc").status_code == 404  # it would load its script from a CDN


def test_docs_serve_swagger_ui_from_this_process(site: Site) -> None:
    assert swagger_assets() is not None, "swagger-ui-py is a dependency: its script and style must be there"
    page = site.client.get("/docs").text
    for name in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert f"{DOCS_ASSETS}/{name}" in page
        asset = site.client.get(f"{DOCS_ASSETS}/{name}")
        assert asset.status_code == 200 and len(asset.content) > 10_000
    assert site.client.get(f"{DOCS_ASSETS}/../../etc/passwd").status_code == 404


def test_without_swagger_ui_the_docs_list_every_operation(site: Site, monkeypatch: Any) -> None:
    # A broken install (the package's files missing) still gets an offline page, not a blank one.
    monkeypatch.setattr(openapi, "swagger_assets", lambda: None)
    app = FastAPI(title="Icarus", docs_url=None, redoc_url=None)
    app.include_router(docs_router(app))
    app.include_router(site.client.app.router)  # type: ignore[attr-defined]
    page = TestClient(app).get("/docs").text
    assert not EXTERNAL.search(page)
    assert "/v1/checks/{check_id}/claimreview" in page and "POST" in page
