"""EvidenceVerify over HTTP: verify, store, write corroboration back, replay, roles, and the page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from icarus.store.tokens import Role
from tests.api.conftest import Site

EXAMPLES = Path(__file__).parents[2] / "examples" / "evidenceverify"
AS_OF = "2026-08-01T00:00:00Z"


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


def verify(site: Site, body: dict[str, Any], role: Role = Role.API) -> Any:
    return site.client.post("/v1/evidence-verify", json=body, headers=site.headers[role])


def test_verifies_stores_and_writes_corroboration_back(site: Site) -> None:
    answer = verify(
        site, {"claim": example("claim.json"), "store": example("evidence_store.json"), "as_of": AS_OF}
    )
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert answer.headers["location"] == f"/v1/evidence-verify/{body['id']}"
    assert body["result"]["status"] == "verified" and body["result"]["model"] == "evidenceverify@1.0"
    assert body["store_revision"] == 1 and body["judge"] == "offline-lexical@1"
    (twitter,) = body["result"]["twitter"]
    assert twitter["evidence_id"] == "ev-4" and twitter["corroboration_status"] == "corroborated"
    assert body["store_revision_written"] == 2
    latest = site.client.get(f"/v1/evidence-verify/stores/{body['store_id']}").json()
    assert latest["revision"] == 2 and latest["written_by"] == body["id"]
    statuses = {e["evidence_id"]: e["corroboration_status"] for e in latest["store"]["evidence"]}
    assert statuses["ev-4"] == "corroborated"
    first = site.client.get(f"/v1/evidence-verify/stores/{body['store_id']}", params={"revision": 1}).json()
    assert all(e["corroboration_status"] is None for e in first["store"]["evidence"])  # never rewritten
    assert site.client.get(f"/v1/evidence-verify/{body['id']}").json() == body


def test_a_stored_store_is_verified_by_id_and_results_replay_byte_for_byte(site: Site) -> None:
    first = verify(
        site, {"claim": example("claim.json"), "store": example("evidence_store.json"), "as_of": AS_OF}
    )
    store_id = first.json()["store_id"]
    second = verify(site, {"claim": example("claim-contested.json"), "store_id": store_id, "as_of": AS_OF})
    assert second.status_code == 201, second.text
    result = second.json()
    assert result["store_revision"] == 2 and result["result"]["status"] == "contested"
    assert result["result"]["evidence_missing"]  # the contested claim cites an id the store lacks
    for verification in (first.json()["id"], result["id"]):
        replay = site.client.get(f"/v1/evidence-verify/{verification}/replay").json()
        assert replay["identical"] is True


def test_bad_input_is_422_naming_the_field_and_unknown_ids_404(site: Site) -> None:
    claim, store = example("claim.json"), example("evidence_store.json")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"claim": claim}, "body"),
        ({"claim": claim, "store": store, "store_id": "evs-" + "0" * 20}, "body"),
        ({"claim": {**claim, "text": ""}, "store": store}, "body.claim.text"),
        ({"claim": claim, "store": {**store, "format": "x"}}, "body.store.format"),
        ({"claim": claim, "store": store, "judge": "no-such-judge@1"}, "judge"),
        ({"claim": claim, "store": store, "as_of": "2026-08-01T00:00:00"}, "body.as_of"),
    ]
    for body, field in cases:
        answer = verify(site, body)
        assert answer.status_code == 422, body
        assert answer.json()["detail"].startswith(field), answer.json()["detail"]
    missing = verify(site, {"claim": claim, "store_id": "evs-" + "0" * 20})
    assert missing.status_code == 404
    for path in (
        "/v1/evidence-verify/ev-" + "0" * 20,
        "/v1/evidence-verify/ev-" + "0" * 20 + "/replay",
        "/v1/evidence-verify/stores/evs-" + "0" * 20,
        "/evidence-verify/ev-" + "0" * 20,
        "/evidence-verify/nonsense",
    ):
        assert site.client.get(path).status_code == 404, path


def test_roles_reader_reads_api_submits(site: Site) -> None:
    body = {"claim": example("claim.json"), "store": example("evidence_store.json"), "as_of": AS_OF}
    assert site.client.post("/v1/evidence-verify", json=body).status_code == 401
    assert verify(site, body, Role.READER).status_code == 403
    for role in (Role.API, Role.REVIEWER, Role.ADMIN):
        assert verify(site, body, role).status_code == 201


def test_the_result_page(site: Site) -> None:
    body = verify(
        site, {"claim": example("claim.json"), "store": example("evidence_store.json"), "as_of": AS_OF}
    ).json()
    page = site.client.get(f"/evidence-verify/{body['id']}")
    assert page.status_code == 200
    assert "unverified → verified" in page.text and "Halden central bank" in page.text
    assert "revision 2 of the store" in page.text and 'href="/methodology/evidenceverify@1.0"' in page.text
