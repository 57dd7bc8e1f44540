"""LVF over HTTP: runs from a ledger or a stored check, the public summary, challenges with the CLI's
validation and rate limit, votes, reviews and responses, roles, and the pages."""

from __future__ import annotations

import json
from decimal import Decimal as D
from pathlib import Path
from typing import Any

from icarus.scoring.lvf.config import DEFAULT_LVF, Component, FormulaName, load_lvf_config
from icarus.store.tokens import Role
from tests.api.conftest import Site

EXAMPLE = Path(__file__).parents[2] / "examples" / "ledgers" / "two-independent-wires.json"
PRIVATE_KEYS = ("raw_response", "prompt_hash", "notes", "excerpt", "reason", "submitter")


def ledger() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return data


def record_run(site: Site) -> int:
    answer = site.client.post("/v1/lvf/runs", json={"ledger": ledger()}, headers=site.headers[Role.API])
    assert answer.status_code == 201, answer.text
    run_id: int = answer.json()["runs"][0]["run_id"]
    return run_id


def submission(run_id: int, submitter: str = "sub-1") -> dict[str, Any]:
    return {
        "run_id": run_id,
        "submitter": submitter,
        "reason": "The figure was revised.",
        "evidence": [
            {
                "url": "https://port.example/revision",
                "excerpt": "Traffic fell 9% (revised).",
                "stance": "refutes",
            }
        ],
    }


def test_a_recorded_run_is_served_with_its_own_weights_and_both_assessors(site: Site) -> None:
    run_id = record_run(site)
    view = site.client.get(f"/v1/lvf/runs/{run_id}").json()
    config = load_lvf_config(DEFAULT_LVF)
    assert view["summary"]["methodology"] == DEFAULT_LVF
    formula = config.formulas.get(FormulaName(view["summary"]["formula"]))
    for component, weight in view["weights"]["components"].items():
        assert D(weight) == formula.weight(Component(component))
    assert len(view["assessors"]) >= 2
    assert "record" not in view  # private parts for reviewers only
    full = site.client.get(f"/v1/lvf/runs/{run_id}", headers=site.headers[Role.REVIEWER]).json()
    assert full["record"]["run_format"] == "icarus-lvf-run/1"
    listed = site.client.get("/v1/lvf/runs").json()
    assert listed[0]["run_id"] == run_id


def test_the_public_summary_holds_only_allowlisted_fields(site: Site) -> None:
    run_id = record_run(site)
    summary = site.client.get(f"/v1/lvf/runs/{run_id}/public").json()
    text = json.dumps(summary)
    assert summary["run_id"] == run_id and "components" in summary
    for key in PRIVATE_KEYS:
        assert f'"{key}"' not in text


def test_runs_from_a_stored_check_and_unrecorded_public_runs(site: Site) -> None:
    check_id = site.recorded_check()
    body = {"check_id": check_id, "record": False, "public": True}
    answer = site.client.post("/v1/lvf/runs", json=body, headers=site.headers[Role.API])
    assert answer.status_code == 200, answer.text
    runs = answer.json()["runs"]
    assert runs and all(r["run_id"] is None and "assessors" in r["run"] for r in runs)
    assert all("raw_response" not in json.dumps(r) for r in runs)
    missing = site.client.post("/v1/lvf/runs", json={"check_id": "nope"}, headers=site.headers[Role.API])
    assert missing.status_code == 404


def test_bad_run_requests_are_422_naming_the_field(site: Site) -> None:
    api = site.headers[Role.API]
    cases = [
        ({}, "body"),
        ({"ledger": ledger(), "check_id": "x"}, "body"),
        ({"ledger": ledger(), "methodology": "lvf@9.0"}, "body.methodology"),
        ({"ledger": {"ledger_id": "x"}}, "ledger"),
        ({"ledger": ledger(), "claims": ["zz"]}, "claims"),
    ]
    for body, field in cases:
        answer = site.client.post("/v1/lvf/runs", json=body, headers=api)
        assert answer.status_code == 422, body
        assert answer.json()["detail"].startswith(field), answer.json()["detail"]


def test_roles_reader_reads_api_submits_reviewer_reviews(site: Site) -> None:
    run_id = record_run(site)
    assert site.client.post("/v1/lvf/runs", json={"ledger": ledger()}).status_code == 401
    denied = site.client.post("/v1/lvf/runs", json={"ledger": ledger()}, headers=site.headers[Role.READER])
    assert denied.status_code == 403
    submitted = site.client.post(
        "/v1/lvf/challenges", json=submission(run_id), headers=site.headers[Role.API]
    )
    assert submitted.status_code == 201, submitted.text
    challenge_id = submitted.json()["challenge_id"]
    review = {"action": "accept", "note": "checked with the port"}
    url = f"/v1/lvf/challenges/{challenge_id}/reviews"
    assert site.client.post(url, json=review, headers=site.headers[Role.API]).status_code == 403
    assert (
        site.client.post(url, json=review, headers=site.headers[Role.REVIEWER]).json()["state"] == "accepted"
    )
    again = site.client.post(url, json=review, headers=site.headers[Role.ADMIN])
    assert again.status_code == 409  # accepted is final
    reader_view = site.client.get(f"/v1/lvf/challenges/{challenge_id}").json()
    assert reader_view["state"] == "accepted" and "events" not in reader_view
    reviewer_view = site.client.get(
        f"/v1/lvf/challenges/{challenge_id}", headers=site.headers[Role.REVIEWER]
    ).json()
    assert reviewer_view["events"][-1]["payload"]["note"] == "checked with the port"


def test_votes_reorder_the_queue_once_per_voter(site: Site) -> None:
    run_id = record_run(site)
    api = site.headers[Role.API]
    first = site.client.post("/v1/lvf/challenges", json=submission(run_id, "sub-a"), headers=api).json()
    second = site.client.post("/v1/lvf/challenges", json=submission(run_id, "sub-b"), headers=api).json()
    vote_url = f"/v1/lvf/challenges/{second['challenge_id']}/votes"
    assert site.client.post(vote_url, json={"voter": "v-1"}, headers=api).json()["counted"] is True
    assert site.client.post(vote_url, json={"voter": "v-1"}, headers=api).json()["counted"] is False
    queue = site.client.get("/v1/lvf/challenges", params={"run_id": run_id}).json()
    assert [e["challenge_id"] for e in queue] == [second["challenge_id"], first["challenge_id"]]
    assert site.client.post(vote_url, json={}).status_code == 401


def test_more_information_requested_then_added_by_the_submitter_only(site: Site) -> None:
    run_id = record_run(site)
    api = site.headers[Role.API]
    challenge_id = site.client.post("/v1/lvf/challenges", json=submission(run_id), headers=api).json()[
        "challenge_id"
    ]
    asked = site.client.post(
        f"/v1/lvf/challenges/{challenge_id}/reviews",
        json={"action": "request-more-info"},
        headers=site.headers[Role.REVIEWER],
    )
    assert asked.json()["state"] == "awaiting_submitter"
    url = f"/v1/lvf/challenges/{challenge_id}/responses"
    stranger = site.client.post(url, json=submission(run_id, "someone-else"), headers=api)
    assert stranger.status_code == 409
    assert site.client.post(url, json=submission(run_id), headers=api).json()["state"] == "queued"


def test_challenge_validation_rate_limit_and_unknown_ids(site: Site) -> None:
    run_id = record_run(site)
    api = site.headers[Role.API]
    bad_url = submission(run_id)
    bad_url["evidence"][0]["url"] = "ftp://x"
    answer = site.client.post("/v1/lvf/challenges", json=bad_url, headers=api)
    assert answer.status_code == 422 and "evidence.0.url" in answer.json()["detail"]
    limits = load_lvf_config(DEFAULT_LVF).challenges
    too_long = submission(run_id)
    too_long["reason"] = "x" * (limits.max_text_chars + 1)
    answer = site.client.post("/v1/lvf/challenges", json=too_long, headers=api)
    assert answer.status_code == 422 and "reason" in answer.json()["detail"]
    assert (
        site.client.post("/v1/lvf/challenges", json=submission(run_id + 99), headers=api).status_code == 404
    )
    for _ in range(limits.max_per_submitter):
        assert (
            site.client.post("/v1/lvf/challenges", json=submission(run_id, "busy"), headers=api).status_code
            == 201
        )
    limited = site.client.post("/v1/lvf/challenges", json=submission(run_id, "busy"), headers=api)
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) > 0
    for path in ("/v1/lvf/runs/999", "/v1/lvf/runs/999/public", "/v1/lvf/challenges/ch-0000000000000000"):
        assert site.client.get(path).status_code == 404, path
    assert site.client.get("/v1/lvf/runs/0").status_code == 422


def test_pages_for_a_run_its_queue_and_its_summary(site: Site) -> None:
    run_id = record_run(site)
    site.client.post("/v1/lvf/challenges", json=submission(run_id), headers=site.headers[Role.API])
    page = site.client.get(f"/lvf/runs/{run_id}").text
    assert "Criteria, assessor by assessor" in page
    assert "ledger-deterministic@1" in page and "stance-claim@1" in page
    queue = site.client.get(f"/lvf/runs/{run_id}/challenges").text
    assert "ch-" in queue and "never enter a score" in queue
    summary = site.client.get(f"/lvf/runs/{run_id}/summary")
    assert summary.status_code == 200 and "Public summary" in summary.text
    assert "Traffic fell 9%" not in page + queue + summary.text  # submitted excerpts are never shown
    for path in ("/lvf/runs/999", "/lvf/runs/x/summary", "/lvf/runs/0/challenges"):
        assert site.client.get(path).status_code == 404, path
