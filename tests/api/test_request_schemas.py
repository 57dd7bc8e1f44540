"""The published request schemas are exactly as strict as validation, at the rules' boundaries.

Each body is judged twice: by the schema ``/openapi.json`` publishes for the operation, and by the server.
The two must agree: a body the schema allows is never refused by request validation, and one it refuses
is a 422 naming the fields. The cases are the rules pydantic's own schema left out: exactly one of
several fields, a field that needs another, two fields that exclude each other, settings that may be
left out but not nulled, and patterns that must mean in the schema what the server's checks mean.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import jsonschema_rs
import pytest
from fastapi.exceptions import RequestValidationError

from icarus.request_schema import SPACE_CLASS
from icarus.store.tokens import Role
from tests.api.conftest import Site

EXAMPLES = Path(__file__).parents[2] / "examples"
LEDGER: Final = json.loads((EXAMPLES / "ledgers" / "two-independent-wires.json").read_text(encoding="utf-8"))
TEXT: Final = "Container traffic at Halden harbor fell 12% in October."
EVIDENCE: Final = {"excerpt": "traffic fell", "stance": "supports"}
CHALLENGE: Final = {"run_id": 1, "submitter": "s-1", "reason": "the run missed a source"}

# (method, path, body, the schema allows it): a path's {debate} is the test's debate.
CASES: Final[list[tuple[str, str, Any, bool]]] = [
    ("POST", "/v1/checks", {}, False),
    ("POST", "/v1/checks", {"text": TEXT}, True),
    ("POST", "/v1/checks", {"text": TEXT, "url": None, "post": None}, True),
    ("POST", "/v1/checks", {"url": None}, False),
    ("POST", "/v1/checks", {"text": TEXT, "url": "https://example.org/a"}, False),
    ("POST", "/v1/checks", {"post": "1234567890"}, True),
    ("POST", "/v1/checks", {"post": "https://x.com/someone/status/1234567890?s=20"}, True),
    ("POST", "/v1/checks", {"post": " 1234567890"}, False),  # no spaces (tweet_id_from would strip them)
    ("POST", "/v1/checks", {"post": "\u0661\u0662\u0663"}, False),  # digits, but not ASCII ones
    ("POST", "/v1/checks", {"url": "HTTP://example.org/a\ufeffb"}, True),  # U+FEFF is not whitespace
    ("POST", "/v1/checks", {"url": "https://example.org/a\u3000b"}, False),  # an ideographic space
    ("POST", "/v1/checks", {"url": "https://example.org/a\x01b"}, False),  # a control character
    ("POST", "/v1/checks", {"text": TEXT, "models": []}, False),
    ("POST", "/v1/checks", {"text": TEXT, "models": ["icarus@1.1", "icarus@1.1"]}, False),
    ("POST", "/v1/checks", {"text": TEXT, "models": ["icarus@1.1"]}, True),
    ("POST", "/v1/lvf/runs", {}, False),
    ("POST", "/v1/lvf/runs", {"ledger": LEDGER}, True),
    ("POST", "/v1/lvf/runs", {"check_id": "unknown", "check_version": 1}, True),  # a 404, not a 422
    ("POST", "/v1/lvf/runs", {"ledger": LEDGER, "check_version": 1}, False),
    ("POST", "/v1/lvf/runs", {"ledger": LEDGER, "check_id": "unknown"}, False),
    ("POST", "/v1/lvf/runs", {"ledger": None, "check_id": "unknown"}, True),
    (
        "POST",
        "/v1/lvf/challenges",
        {**CHALLENGE, "evidence": [{**EVIDENCE, "url": "HTTPS://a.example"}]},
        True,
    ),
    ("POST", "/v1/lvf/challenges", {**CHALLENGE, "evidence": [{**EVIDENCE, "url": "a.example"}]}, False),
    ("POST", "/v1/lvf/challenges", {**CHALLENGE, "evidence": [{**EVIDENCE, "url": "https://a b"}]}, False),
    ("PATCH", "/v1/debates/{debate}", {}, True),
    ("PATCH", "/v1/debates/{debate}", {"escalate_enabled": True, "cost_weight": None}, True),
    ("PATCH", "/v1/debates/{debate}", {"escalate_enabled": None}, False),
    ("PATCH", "/v1/debates/{debate}", {"title": None}, False),
    ("PATCH", "/v1/debates/{debate}", {"held_at": None}, False),
    ("PATCH", "/v1/debates/{debate}", {"country": None}, True),
    ("PATCH", "/v1/debates/{debate}", {"held_at": "2020-10-22"}, True),  # a date, as documented
    ("PATCH", "/v1/debates/{debate}", {"held_at": "2020-10-22T20:00:00Z"}, True),
    ("PATCH", "/v1/debates/{debate}", {"held_at": "20201022"}, False),  # not seconds since 1970
    ("POST", "/v1/claim", {"text": TEXT, "debate_id": "{debate}", "research_mode": "two_step"}, True),
    ("POST", "/v1/claim", {"text": TEXT, "debate_id": "{debate}", "research_modes": []}, True),
    (
        "POST",
        "/v1/claim",
        {"text": TEXT, "debate_id": "{debate}", "research_mode": "two_step", "research_modes": []},
        False,
    ),
    ("POST", "/v1/panels/999/corrections", {"verdict": "pending"}, False),
    ("POST", "/v1/panels/999/corrections", {"verdict": "true"}, True),  # a 404: no such panel
    ("POST", "/v1/claims/1/winner", {"debate_id": "{debate}", "panel_id": 2**31 - 1}, True),
    ("POST", "/v1/claims/1/winner", {"debate_id": "{debate}", "panel_id": 2**31}, False),
    ("POST", "/v1/evidence-verify", {"claim": {"claim_id": "c1", "text": TEXT}}, False),
    (
        "POST",
        "/v1/evidence-verify",
        {"claim": {"claim_id": "c1", "text": TEXT}, "store_id": "evs-" + "0" * 20},
        True,
    ),
    (
        "POST",
        "/v1/evidence-verify",
        {"claim": {"claim_id": "c1", "text": TEXT}, "store": {}, "store_id": "evs-" + "0" * 20},
        False,
    ),
]


@pytest.fixture
def refusals(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RequestValidationError]]:
    raised: list[RequestValidationError] = []
    original = RequestValidationError.__init__

    def spy(self: RequestValidationError, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        raised.append(self)

    monkeypatch.setattr(RequestValidationError, "__init__", spy)
    yield raised


def _filled(value: Any, debate: str) -> Any:
    if isinstance(value, str):
        return value.replace("{debate}", debate)
    if isinstance(value, dict):
        return {key: _filled(item, debate) for key, item in value.items()}
    return value


def _schema_allows(description: dict[str, Any], method: str, path: str, body: Any) -> bool:
    operation = description["paths"][path][method.lower()]
    body_schema = operation["requestBody"]["content"]["application/json"]["schema"]
    root = {**body_schema, "components": description["components"]}
    # The validator schemathesis judges with, formats asserted (RFC 3339 dates and timestamps).
    return bool(jsonschema_rs.validator_for(root, validate_formats=True).is_valid(body))


def test_the_schema_and_validation_agree(site: Site, refusals: list[RequestValidationError]) -> None:
    admin = site.headers[Role.ADMIN]
    debate = site.client.post("/v1/debates", json={}, headers=admin).json()["id"]
    description = site.client.get("/openapi.json").json()
    disagreements = []
    for method, path, body, allowed in CASES:
        template = path.replace("{debate}", "{debate_id}").replace("/999/", "/{panel_id}/")
        template = template.replace("/claims/1/", "/claims/{claim_id}/")
        sent = _filled(body, debate)
        schema_allows = _schema_allows(description, method, template, sent)
        refusals.clear()
        answer = site.client.request(method, _filled(path, debate), json=sent, headers=admin)
        # Allowed: never refused by validation (content may still be refused after it, or name nothing).
        # Refused: a 422, from validation or from the route's own check of the same rule.
        server_allows = not refusals and answer.status_code != 422
        if (schema_allows, server_allows) != (allowed, allowed):
            disagreements.append((method, path, body, schema_allows, answer.status_code, answer.text[:200]))
    assert not disagreements


def test_space_class_is_pythons_whitespace_in_both_dialects() -> None:
    # The server checks whitespace with str.isspace / \s; the schema's pattern must refuse the same set.
    python = {chr(code) for code in range(0x110000) if chr(code).isspace()}
    pattern = re.compile(f"[{SPACE_CLASS}]")
    assert {chr(code) for code in range(0x110000) if pattern.fullmatch(chr(code))} == python
    ecma = jsonschema_rs.validator_for({"type": "string", "pattern": f"^[{SPACE_CLASS}]$"})
    near = python | {"\ufeff", "\u200b", "\x08", "\x0e", "\x1b", "a", "\u180e"}
    assert {char for char in near if ecma.is_valid(char)} == python
