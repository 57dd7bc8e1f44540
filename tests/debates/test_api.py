"""The debate endpoints over HTTP: status codes, tokens (Bearer and X-Auth-Token), organisations, roles,
admin-only diagnostics, the one answer per claim, operator choices, feedback and the live feed.

The real app and routes on SQLite, with the debate service's scripted detector and research (every
segment holding a digit is a claim; research answers from a script), run inline so an answer is there when
the request returns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from icarus.api import create_app
from icarus.debates.access import AccessStore
from icarus.debates.model import Citation, Panel, ResearchMode, Verdict
from icarus.debates.research.base import ClaimToResearch
from icarus.debates.service import DebateService
from icarus.debates.transcripts import MAX_TRANSCRIPT_BYTES
from icarus.http.auth import PAGE_HEADER, PAGE_HEADER_VALUE, TOKEN_COOKIE
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.debate_tables import DebateFeedbackRecord
from icarus.store.tokens import Role, TokenStore
from tests.debates.store_fixtures import FakeClock, ScriptedResearch, make_service, outage, sourced

TWO_STEP, DECOMPOSE, LOCAL = ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE, ResearchMode.LOCAL
DIAGNOSTICS = {"wikidata_qid": "Q42", "matched_rule": "self-scoped official page"}

SRT = b"""1
00:00:01,000 --> 00:00:04,000
SPEAKER_1: Unemployment fell to 3.9 percent in 2023.

2
00:00:05,000 --> 00:00:08,000
SPEAKER_2: Inflation reached 7 percent last year.
"""


def _no_checks(_policy: str | None) -> Any:
    raise AssertionError("the debate tests run no checks")


@dataclass
class Site:
    """The app, its debate service and a way to issue tokens in organisations."""

    client: TestClient
    service: DebateService
    research: ScriptedResearch
    clock: FakeClock
    store: Store

    def token(
        self, role: Role = Role.API, organisation: int | None = None, *, header: str = "bearer"
    ) -> dict[str, str]:
        issued = TokenStore(self.store).create(f"test {role.value}", role, self.clock(), 100_000)
        if organisation is not None:
            AccessStore(self.store).assign_token(issued.info.id, organisation)
        if header == "x-auth-token":
            return {"X-Auth-Token": issued.secret}
        return {"Authorization": f"Bearer {issued.secret}"}

    def organisation(self, name: str, methods: list[ResearchMode] | None = None, **limits: Any) -> int:
        access = AccessStore(self.store)
        plan = access.create_plan(f"{name} plan", methods, **limits) if methods is not None else None
        return access.create_organisation(name, plan.id if plan else None).id

    def debate(self, headers: dict[str, str], **settings: Any) -> str:
        answer = self.client.post(
            "/v1/debates", json={"research_modes": ["two_step"], **settings}, headers=headers
        )
        assert answer.status_code == 201, answer.text
        debate_id: str = answer.json()["id"]
        return debate_id

    def claim(
        self, headers: dict[str, str], debate_id: str, text: str = "Taxes rose 5 percent in 2024."
    ) -> int:
        answer = self.client.post("/v1/claim", json={"text": text, "debate_id": debate_id}, headers=headers)
        assert answer.status_code == 202, answer.text
        claim_id: int = answer.json()["claim_id"]
        return claim_id


def open_site(tmp_path: Path, *, inline: bool = True) -> Iterator[Site]:
    clock = FakeClock()
    store = Store(f"sqlite:///{tmp_path / 'data' / 'icarus.db'}", clock=clock).open()
    research = ScriptedResearch()
    service = make_service(store, clock, research, inline=inline)
    settings = Settings(data_dir=tmp_path)
    runner = JobRunner(store, _no_checks, clock=clock, settings=settings)
    app = create_app(settings, runner=runner, enqueue=lambda c, k: None, debates=service)
    with TestClient(app) as client:
        yield Site(client, service, research, clock, store)
    store.close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    yield from open_site(tmp_path)


@pytest.fixture
def slow_site(tmp_path: Path) -> Iterator[Site]:
    """Research waits for a worker: panels stay pending until ``service.run_due()``."""
    yield from open_site(tmp_path, inline=False)


def events_of(text: str) -> list[tuple[int, str, dict[str, Any]]]:
    found = []
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":")
        )
        if "event" in fields:
            found.append((int(fields["id"]), fields["event"], json.loads(fields["data"])))
    return found


# --- debates ---------------------------------------------------------------------------------------------


def test_a_debate_is_created_read_and_changed_with_an_x_auth_token(site: Site) -> None:
    headers = site.token(Role.API, header="x-auth-token")
    created = site.client.post("/v1/debates", json={"title": "Leaders' debate"}, headers=headers)
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["settings"]["research_modes"] == ["agentic", "decompose"]  # the default
    assert (
        body["settings"]["escalate_max_steps"] == 2 and body["settings"]["provisional_claim_verdict"] is False
    )
    assert created.headers["location"] == f"/v1/debates/{body['id']}"
    read = site.client.get(f"/v1/debates/{body['id']}", headers=headers)
    assert read.status_code == 200 and read.json()["title"] == "Leaders' debate"
    assert read.json()["speakers_waiting"] == []

    changed = site.client.patch(
        f"/v1/debates/{body['id']}", json={"research_modes": [], "escalate_enabled": True}, headers=headers
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["settings"]["research_modes"] == []
    assert changed.json()["settings"]["escalate_enabled"] is True
    assert changed.json()["title"] == "Leaders' debate"  # fields not named stay


def test_an_empty_method_list_is_kept_and_a_repeated_method_counted_once(site: Site) -> None:
    headers = site.token()
    empty = site.client.post("/v1/debates", json={"research_modes": []}, headers=headers)
    assert empty.status_code == 201 and empty.json()["settings"]["research_modes"] == []
    twice = site.client.post("/v1/debates", json={"research_modes": ["local", "local"]}, headers=headers)
    assert twice.json()["settings"]["research_modes"] == ["local"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"research_modes": ["two_step", "telepathy"]}, "body.research_modes.1"),
        ({"cost_weight": 1.01}, "body.cost_weight"),
        ({"latency_weight": -0.01}, "body.latency_weight"),
        ({"quality_weight": "high"}, "body.quality_weight"),
        ({"escalate_max_steps": -1}, "body.escalate_max_steps"),
        ({"speaker_gate": True}, "body.speaker_gate"),  # misspelt: refused, not ignored
    ],
)
def test_bad_debate_settings_are_a_422_naming_the_field(site: Site, body: dict[str, Any], field: str) -> None:
    answer = site.client.post("/v1/debates", json=body, headers=site.token())
    assert answer.status_code == 422
    assert field in [e["field"] for e in answer.json()["errors"]], answer.json()


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_weights_at_the_bounds_are_accepted(site: Site, weight: float) -> None:
    answer = site.client.post(
        "/v1/debates",
        json={"cost_weight": weight, "latency_weight": weight, "quality_weight": weight},
        headers=site.token(),
    )
    assert answer.status_code == 201
    assert answer.json()["settings"]["cost_weight"] == weight


def test_model_weights_change_only_the_weights_named(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers, cost_weight=0.7, latency_weight=0.3)
    answer = site.client.patch(
        "/v1/session/model-weights", json={"debate_id": debate_id, "quality_weight": 0.9}, headers=headers
    )
    assert answer.status_code == 200, answer.text
    settings = answer.json()["settings"]
    assert (settings["cost_weight"], settings["latency_weight"], settings["quality_weight"]) == (
        0.7,
        0.3,
        0.9,
    )
    cleared = site.client.patch(
        "/v1/session/model-weights", json={"debate_id": debate_id, "cost_weight": None}, headers=headers
    )
    assert cleared.json()["settings"]["cost_weight"] is None
    too_high = site.client.patch(
        "/v1/session/model-weights", json={"debate_id": debate_id, "cost_weight": 2}, headers=headers
    )
    assert too_high.status_code == 422 and "body.cost_weight" in too_high.json()["detail"]
    unknown = site.client.patch(
        "/v1/session/model-weights", json={"debate_id": "nope", "cost_weight": 0.5}, headers=headers
    )
    assert unknown.status_code == 404


def test_patch_refuses_null_for_a_setting_and_404s_an_unknown_debate(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    assert (
        site.client.patch(
            f"/v1/debates/{debate_id}", json={"escalate_enabled": None}, headers=headers
        ).status_code
        == 422
    )
    assert site.client.patch("/v1/debates/unknown", json={"title": "x"}, headers=headers).status_code == 404
    assert site.client.get("/v1/debates/unknown", headers=headers).status_code == 404
    assert site.client.get("/v1/debates/bad.id", headers=headers).status_code == 422


# --- tokens, roles and organisations --------------------------------------------------------------------


def test_tokens_and_roles(site: Site) -> None:
    debate_id = site.debate(site.token(Role.API))
    assert site.client.get(f"/v1/debates/{debate_id}").status_code == 401  # no token: debates are private
    assert (
        site.client.get(f"/v1/debates/{debate_id}", headers={"X-Auth-Token": "icr_unknown"}).status_code
        == 401
    )
    assert site.client.get(f"/v1/debates/{debate_id}", headers={"X-Auth-Token": " "}).status_code == 401
    reader = site.token(Role.READER)
    assert site.client.get(f"/v1/debates/{debate_id}", headers=reader).status_code == 200
    assert site.client.post("/v1/debates", json={}, headers=reader).status_code == 403
    claim = site.client.post("/v1/claim", json={"text": "x 1", "debate_id": debate_id}, headers=reader)
    assert claim.status_code == 403


def test_x_auth_token_also_works_on_the_check_api(site: Site) -> None:
    headers = site.token(Role.ADMIN, header="x-auth-token")
    assert site.client.get("/v1/admin/diagnostics", headers=headers).status_code == 200


def test_a_debate_outside_the_callers_organisation_is_404_everywhere(site: Site) -> None:
    north, south = site.organisation("North"), site.organisation("South")
    ours, theirs = site.token(Role.API, north), site.token(Role.API, south)
    debate_id = site.debate(ours)
    claim_id = site.claim(ours, debate_id)
    panel_id = site.client.get(f"/v1/claims/{claim_id}/results?debate_id={debate_id}", headers=ours).json()[
        "panels"
    ][0]["panel_id"]
    foreign = [
        ("GET", f"/v1/debates/{debate_id}", None),
        ("PATCH", f"/v1/debates/{debate_id}", {"title": "mine now"}),
        ("GET", f"/v1/debates/{debate_id}/claims", None),
        ("GET", f"/v1/debates/{debate_id}/events?once=true", None),
        ("GET", f"/v1/claims/{claim_id}/results?debate_id={debate_id}", None),
        ("GET", f"/v1/claims/{claim_id}/best?debate_id={debate_id}", None),
        ("POST", "/v1/claim", {"text": "Crime fell 3 percent.", "debate_id": debate_id}),
        ("POST", f"/v1/debates/{debate_id}/segments", {"segments": [{"segment_id": "x", "text": "1"}]}),
        ("POST", "/v1/session/speaker-map", {"debate_id": debate_id, "map": {"A": "Ana"}}),
        ("PATCH", "/v1/session/model-weights", {"debate_id": debate_id, "cost_weight": 0.1}),
        ("POST", f"/v1/debates/{debate_id}/run-detection", None),
        ("POST", f"/v1/panels/{panel_id}/votes", {"value": "up"}),
    ]
    for method, path, body in foreign:
        answer = site.client.request(method, path, json=body, headers=theirs)
        assert answer.status_code == 404, (method, path, answer.status_code)
    assert site.client.get("/v1/debates", headers=theirs).json() == []
    admin = site.token(Role.ADMIN)
    assert site.client.get(f"/v1/debates/{debate_id}", headers=admin).status_code == 200


def test_a_plan_limits_methods_for_others_but_not_for_an_admin(site: Site) -> None:
    org = site.organisation("Desk", [TWO_STEP])
    api, admin = site.token(Role.API, org), site.token(Role.ADMIN, org)
    debate_id = site.debate(api)
    refused = site.client.post(
        "/v1/claim",
        json={"text": "GDP grew 2 percent.", "debate_id": debate_id, "research_mode": "agentic"},
        headers=api,
    )
    assert refused.status_code == 403 and "agentic" in refused.json()["detail"]
    assert (
        site.client.post("/v1/debates", json={"research_modes": ["ricochet"]}, headers=api).status_code == 403
    )
    allowed = site.client.post(
        "/v1/claim",
        json={"text": "GDP grew 2 percent.", "debate_id": debate_id, "research_mode": "agentic"},
        headers=admin,
    )
    assert allowed.status_code == 202 and allowed.json()["queued_methods"] == ["agentic"]


def test_a_claim_quota_is_a_429(site: Site) -> None:
    org = site.organisation("Small", list(ResearchMode), claim_quota=1)
    api = site.token(Role.API, org)
    debate_id = site.debate(api)
    site.claim(api, debate_id, "Rents rose 4 percent.")
    second = site.client.post(
        "/v1/claim", json={"text": "Wages rose 2 percent.", "debate_id": debate_id}, headers=api
    )
    assert second.status_code == 429 and "quota" in second.json()["detail"]


# --- transcripts, segments and the speaker gate ---------------------------------------------------------


def test_segments_are_idempotent_by_id_and_their_claims_listed(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    batch = {
        "segments": [
            {"segment_id": "s1", "speaker_label": "A", "text": "Taxes rose 5 percent."},
            {"segment_id": "s2", "speaker_label": "A", "text": "Thank you."},
        ]
    }
    first = site.client.post(f"/v1/debates/{debate_id}/segments", json=batch, headers=headers)
    assert first.status_code == 202, first.text
    assert (first.json()["accepted"], first.json()["duplicates"], first.json()["claims_detected"]) == (
        2,
        0,
        1,
    )
    again = site.client.post(f"/v1/debates/{debate_id}/segments", json=batch, headers=headers)
    assert (again.json()["accepted"], again.json()["duplicates"]) == (0, 2)
    claims = site.client.get(f"/v1/debates/{debate_id}/claims", headers=headers).json()["claims"]
    assert [c["text"] for c in claims] == ["Taxes rose 5 percent."]
    assert claims[0]["claim_verdict"]["verdict"] == "true"
    assert site.client.get(f"/v1/debates/{debate_id}", headers=headers).json()["segment_count"] == 2


def test_an_empty_or_oversize_segment_batch_is_a_422(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    path = f"/v1/debates/{debate_id}/segments"
    assert site.client.post(path, json={"segments": []}, headers=headers).status_code == 422
    many = [{"segment_id": f"s{i}", "text": "words"} for i in range(501)]
    assert site.client.post(path, json={"segments": many}, headers=headers).status_code == 422
    assert site.client.post(path, json={"segments": many[:500]}, headers=headers).status_code == 202


def test_a_transcript_is_read_and_the_speaker_gate_answers_409_until_named(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers, speaker_gate_enabled=True)
    ingested = site.client.post(
        f"/v1/debates/{debate_id}/transcript",
        content=SRT,
        headers={**headers, "Content-Type": "application/x-subrip"},
    )
    assert ingested.status_code == 202, ingested.text
    assert ingested.json()["detection_state"] == "deferred"
    assert ingested.json()["speakers_waiting"] == ["SPEAKER_1", "SPEAKER_2"]
    assert site.client.get(f"/v1/debates/{debate_id}", headers=headers).json()["speakers_waiting"] == [
        "SPEAKER_1",
        "SPEAKER_2",
    ]

    waiting = site.client.post(f"/v1/debates/{debate_id}/run-detection", headers=headers)
    assert waiting.status_code == 409
    assert waiting.json()["still_waiting"] == ["SPEAKER_1", "SPEAKER_2"]
    assert waiting.json()["detail"] == "speakers still unidentified: SPEAKER_1, SPEAKER_2"

    unknown = site.client.post(
        "/v1/session/speaker-map",
        json={"debate_id": debate_id, "map": {"SPEAKER_9": "Nobody"}},
        headers=headers,
    )
    assert unknown.status_code == 422 and "SPEAKER_9" in str(unknown.json()["detail"])
    named = site.client.post(
        "/v1/session/speaker-map",
        json={"debate_id": debate_id, "map": {"SPEAKER_1": "Ana Ruiz"}},
        headers=headers,
    )
    assert named.status_code == 200 and named.json()["speakers_waiting"] == ["SPEAKER_2"]

    skipped = site.client.post(f"/v1/debates/{debate_id}/run-detection?skip_speakers=true", headers=headers)
    assert skipped.status_code == 202, skipped.text
    assert skipped.json()["speakers_unnamed"] == ["SPEAKER_2"]
    claims = site.client.get(f"/v1/debates/{debate_id}/claims", headers=headers).json()["claims"]
    assert {c["speaker_name"] for c in claims} >= {"Ana Ruiz"}


def test_a_malformed_caption_file_is_a_422_naming_the_line(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    broken = (
        b"1\n00:00:01,000 --> 00:00:04,000\nSPEAKER_1: fine.\n\n2\n00:00:05,000 -> nonsense\nSPEAKER_2: no.\n"
    )
    answer = site.client.post(
        f"/v1/debates/{debate_id}/transcript?format=srt", content=broken, headers=headers
    )
    assert answer.status_code == 422
    problem = answer.json()
    assert answer.headers["content-type"] == "application/problem+json"
    assert isinstance(problem["line"], int) and problem["detail"].startswith(f"line {problem['line']}: ")


def test_a_caption_upload_names_the_faulty_line_and_why(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    cues = [
        f"{n}\n00:00:{n:02},000 --> 00:00:{n:02},900\nSPEAKER_1: Taxes rose {n} percent.\n"
        for n in range(1, 60)
    ]
    for timing, line, reason in [
        ("00:00:30,000 -> 00:00:30,900", 118, "'->' where the arrow must be '-->'"),
        ("00:00:30,000 --> 00:00:3X,900", 118, "end time '00:00:3X,900' is not a timestamp"),
    ]:
        body = "\n".join(cues).replace("00:00:30,000 --> 00:00:30,900", timing).encode()
        answer = site.client.post(
            f"/v1/debates/{debate_id}/transcript?format=srt", content=body, headers=headers
        )
        assert answer.status_code == 422, answer.text
        problem = answer.json()
        assert problem["line"] == line and reason in problem["reason"]
        assert problem["detail"] == f"line {line}: {problem['reason']}"
    assert site.client.get(f"/v1/debates/{debate_id}/claims", headers=headers).json()["claims"] == []


def test_a_transcript_over_the_cap_is_a_413(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    body = b"A: words.\n" * (MAX_TRANSCRIPT_BYTES // 10 + 1)
    answer = site.client.post(f"/v1/debates/{debate_id}/transcript", content=body, headers=headers)
    assert answer.status_code == 413


def test_a_transcript_for_an_unknown_debate_is_a_404(site: Site) -> None:
    answer = site.client.post("/v1/debates/nope/transcript", content=SRT, headers=site.token())
    assert answer.status_code == 404


# --- claims and the one answer --------------------------------------------------------------------------


def test_results_while_pending_then_answered(slow_site: Site) -> None:
    site = slow_site
    headers = site.token()
    debate_id = site.debate(headers, research_modes=["two_step", "decompose"])
    claim_id = site.claim(headers, debate_id)
    path = f"/v1/claims/{claim_id}/results?debate_id={debate_id}"
    pending = site.client.get(path, headers=headers).json()
    assert pending["claim_verdict"] is None and pending["best"] is None and pending["conflict"] is False
    assert [(p["research_mode"], p["verdict"], p["state"]) for p in pending["panels"]] == [
        ("two_step", "pending", "pending"),
        ("decompose", "pending", "pending"),
    ]
    site.service.run_due()
    done = site.client.get(path, headers=headers).json()
    assert done["claim_verdict"]["verdict"] == "true" and done["claim_verdict"]["basis"] == "agreement"
    assert done["best"] == done["claim_verdict"] and done["conflict"] is False
    assert {p["research_mode"] for p in done["panels"]} == {"two_step", "decompose"}
    assert (
        site.client.get(f"/v1/claims/{claim_id}/best?debate_id={debate_id}", headers=headers).json() == done
    )


def test_a_list_of_methods_runs_only_those_the_claim_lacks(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    text = "Exports doubled to 8 billion."
    site.claim(headers, debate_id, text)
    body = {"text": text, "debate_id": debate_id, "research_modes": ["two_step", "decompose", "two_step"]}
    listed = site.client.post("/v1/claim", json=body, headers=headers)
    assert listed.status_code == 202, listed.text
    assert listed.json()["new_claim"] is False and listed.json()["queued_methods"] == ["decompose"]
    assert listed.json()["already_researched"] == ["two_step"]
    assert [mode for mode, _text, _strong in site.research.calls] == [TWO_STEP, DECOMPOSE]
    again = site.client.post("/v1/claim", json=body, headers=headers).json()
    assert again["queued_methods"] == [] and again["panel_ids"] == []
    assert again["already_researched"] == ["two_step", "decompose"] and len(site.research.calls) == 2
    added = site.client.post(
        "/v1/claim",
        json={"text": text, "debate_id": debate_id, "research_mode": "local", "manually_added": True},
        headers=headers,
    )
    assert added.json()["queued_methods"] == ["local"]


def test_an_empty_list_of_methods_adds_the_claim_and_researches_nothing(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    body = {"text": "Exports doubled to 8 billion.", "debate_id": debate_id, "research_modes": []}
    added = site.client.post("/v1/claim", json=body, headers=headers)
    assert added.status_code == 202, added.text
    assert added.json()["new_claim"] is True and added.json()["queued_methods"] == []
    assert site.research.calls == []
    [claim] = site.client.get(f"/v1/debates/{debate_id}/claims", headers=headers).json()["claims"]
    assert claim["claim_id"] == added.json()["claim_id"] and claim["claim_verdict"] is None


def test_a_named_method_already_run_runs_again_as_a_new_panel(slow_site: Site) -> None:
    site = slow_site
    headers = site.token()
    debate_id = site.debate(headers)
    text = "Exports doubled to 8 billion."
    claim_id = site.claim(headers, debate_id, text)
    site.service.run_due()
    path = f"/v1/claims/{claim_id}/results?debate_id={debate_id}"
    first = site.client.get(path, headers=headers).json()
    assert first["claim_verdict"]["verdict"] == "true"

    site.research.default = Verdict.FALSE  # the evidence has moved on since the first check
    body = {"text": text, "debate_id": debate_id, "research_mode": "two_step"}
    again = site.client.post("/v1/claim", json=body, headers=headers)
    assert again.status_code == 202, again.text
    assert again.json()["queued_methods"] == ["two_step"] and again.json()["already_researched"] == []
    [new_panel] = again.json()["panel_ids"]
    waiting = site.client.get(path, headers=headers).json()
    assert waiting["claim_verdict"] == first["claim_verdict"]  # the earlier answer stands meanwhile
    assert [(p["research_mode"], p["state"]) for p in waiting["panels"]] == [
        ("two_step", "done"),
        ("two_step", "pending"),
    ]

    site.service.run_due()  # the worker's job runner picks the queued panel up
    assert [mode for mode, _text, _strong in site.research.calls] == [TWO_STEP, TWO_STEP]
    done = site.client.get(path, headers=headers).json()
    assert [(p["panel_id"] == new_panel, p["verdict"]) for p in done["panels"]] == [
        (False, "true"),
        (True, "false"),
    ]
    assert done["claim_verdict"]["verdict"] == "false"
    assert done["claim_verdict"]["selected_panel_id"] == new_panel


def test_claim_and_results_refuse_bad_input(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    bad_mode = site.client.post(
        "/v1/claim", json={"text": "x 1", "debate_id": debate_id, "research_mode": "magic"}, headers=headers
    )
    assert bad_mode.status_code == 422 and "body.research_mode" in bad_mode.json()["detail"]
    for modes, field in [
        (["two_step", "magic"], "body.research_modes.1"),
        ("two_step", "body.research_modes"),
    ]:
        listed = site.client.post(
            "/v1/claim",
            json={"text": "x 1", "debate_id": debate_id, "research_modes": modes},
            headers=headers,
        )
        assert listed.status_code == 422 and listed.json()["errors"][0]["field"] == field, listed.text
    both = site.client.post(
        "/v1/claim",
        json={"text": "x 1", "debate_id": debate_id, "research_mode": "local", "research_modes": ["local"]},
        headers=headers,
    )
    assert both.status_code == 422 and "research_mode" in both.json()["detail"]
    assert "research_modes" in both.json()["detail"] and "not both" in both.json()["detail"]
    assert site.research.calls == []  # nothing refused was added or researched
    assert (
        site.client.post("/v1/claim", json={"text": "", "debate_id": debate_id}, headers=headers).status_code
        == 422
    )
    assert (
        site.client.post("/v1/claim", json={"text": "x 1", "debate_id": "nope"}, headers=headers).status_code
        == 404
    )
    claim_id = site.claim(headers, debate_id)
    other = site.debate(headers)
    assert (
        site.client.get(f"/v1/claims/{claim_id}/results?debate_id={other}", headers=headers).status_code
        == 404
    )
    assert (
        site.client.get(f"/v1/claims/999999/results?debate_id={debate_id}", headers=headers).status_code
        == 404
    )
    assert site.client.get(f"/v1/claims/{claim_id}/results", headers=headers).status_code == 422


def _with_diagnostics(mode: ResearchMode) -> Any:
    def answer(_claim: ClaimToResearch) -> Panel:
        return Panel(
            research_mode=mode,
            verdict=Verdict.TRUE,
            confidence=0.9,
            sources=[
                Citation(
                    url="https://stats.example/gdp",
                    domain="stats.example",
                    is_primary=True,
                    primary_kind="official_data",
                    source_origin="official_site",
                    official_entity_label="Statistics Office",
                    diagnostics=DIAGNOSTICS,
                )
            ],
        )

    return answer


def test_citation_diagnostics_reach_admins_only_and_stay_out_of_the_openapi(site: Site) -> None:
    site.research.answers[TWO_STEP] = _with_diagnostics(TWO_STEP)
    api, admin = site.token(Role.API), site.token(Role.ADMIN)
    debate_id = site.debate(api)
    claim_id = site.claim(api, debate_id)
    path = f"/v1/claims/{claim_id}/results?debate_id={debate_id}"

    public = site.client.get(path, headers=api).json()
    cited = public["panels"][0]["sources"][0]
    assert "diagnostics" not in cited
    assert (cited["is_primary"], cited["primary_kind"], cited["official_entity_label"]) == (
        True,
        "official_data",
        "Statistics Office",
    )
    assert "published_at" in cited and cited["published_at"] is None
    assert "diagnostics" not in json.dumps(public)
    assert "diagnostics" not in json.dumps(
        site.client.get(f"/v1/debates/{debate_id}/claims", headers=api).json()
    )
    assert "Q42" not in site.client.get(f"/v1/debates/{debate_id}/events?once=true", headers=api).text

    private = site.client.get(path, headers=admin).json()
    assert private["panels"][0]["sources"][0]["diagnostics"] == DIAGNOSTICS
    assert "Q42" in site.client.get(f"/v1/debates/{debate_id}/events?once=true", headers=admin).text

    schema = site.client.get("/openapi.json").json()
    assert "diagnostics" not in json.dumps(schema["components"]["schemas"]["CitationOut"])
    assert "/v1/claims/{claim_id}/results" in schema["paths"]


# --- operator choices and feedback ----------------------------------------------------------------------


def _two_panels(site: Site, headers: dict[str, str]) -> tuple[str, int, list[int]]:
    site.research.answers[DECOMPOSE] = lambda _c: sourced(DECOMPOSE, Verdict.FALSE, url="https://b.example/2")
    debate_id = site.debate(headers, research_modes=["two_step", "decompose"])
    claim_id = site.claim(headers, debate_id)
    results = site.client.get(f"/v1/claims/{claim_id}/results?debate_id={debate_id}", headers=headers).json()
    return debate_id, claim_id, [p["panel_id"] for p in results["panels"]]


def test_a_reviewer_chooses_a_winner_and_a_rejection_keeps_the_previous_one(site: Site) -> None:
    reviewer, api = site.token(Role.REVIEWER), site.token(Role.API)
    debate_id, claim_id, (first, second) = _two_panels(site, reviewer)
    path = f"/v1/claims/{claim_id}/winner"
    assert (
        site.client.post(path, json={"debate_id": debate_id, "panel_id": first}, headers=api).status_code
        == 403
    )

    chosen = site.client.post(path, json={"debate_id": debate_id, "panel_id": second}, headers=reviewer)
    assert chosen.status_code == 200, chosen.text
    assert (
        chosen.json()["claim_verdict"]["basis"] == "operator"
        and chosen.json()["claim_verdict"]["verdict"] == "false"
    )
    assert chosen.json()["operator_winner_panel_id"] == second

    rejected = site.client.post(
        f"{path}/rejections", json={"debate_id": debate_id, "panel_id": first}, headers=reviewer
    )
    assert rejected.status_code == 200
    assert rejected.json()["operator_winner_panel_id"] == second
    assert rejected.json()["claim_verdict"]["verdict"] == "false"

    assert (
        site.client.post(
            path, json={"debate_id": debate_id, "panel_id": 999_999}, headers=reviewer
        ).status_code
        == 404
    )
    other_claim = site.claim(reviewer, debate_id, "Crime fell 9 percent.")
    wrong = site.client.post(
        f"/v1/claims/{other_claim}/winner", json={"debate_id": debate_id, "panel_id": first}, headers=reviewer
    )
    assert wrong.status_code == 404  # a panel of another claim is not one of this claim's research panels


def test_corrections_and_translations_apply_to_research_panels_only(site: Site) -> None:
    reviewer = site.token(Role.REVIEWER)
    _debate_id, _claim_id, (first, _second) = _two_panels(site, reviewer)
    corrected = site.client.post(
        f"/v1/panels/{first}/corrections", json={"verdict": "misleading"}, headers=reviewer
    )
    assert corrected.status_code == 200 and corrected.json()["corrected_verdict"] == "misleading"
    assert corrected.json()["verdict"] == "true"  # the method's own verdict stays beside it
    assert (
        site.client.post(
            f"/v1/panels/{first}/corrections", json={"verdict": "pending"}, headers=reviewer
        ).status_code
        == 422
    )
    assert (
        site.client.post(
            "/v1/panels/999999/corrections", json={"verdict": "true"}, headers=reviewer
        ).status_code
        == 404
    )
    translated = site.client.post(
        f"/v1/panels/{first}/translations",
        json={"language": "es", "explanation": "Cierto."},
        headers=reviewer,
    )
    assert translated.status_code == 201 and translated.json()["kind"] == "translation"
    assert (
        site.client.post(
            "/v1/panels/999999/translations", json={"language": "es", "explanation": "x"}, headers=reviewer
        ).status_code
        == 404
    )


def test_a_correction_keeps_its_note(site: Site) -> None:
    reviewer = site.token(Role.REVIEWER)
    _debate_id, _claim_id, (first, _second) = _two_panels(site, reviewer)
    note = "The 5 percent is the nominal rise; the real one was 1 percent."
    corrected = site.client.post(
        f"/v1/panels/{first}/corrections", json={"verdict": "misleading", "note": note}, headers=reviewer
    )
    assert corrected.status_code == 200
    too_long = {"verdict": "false", "note": "x" * 2_001}
    assert (
        site.client.post(f"/v1/panels/{first}/corrections", json=too_long, headers=reviewer).status_code
        == 422
    )
    with site.store.reading() as session:
        rows = session.scalars(
            select(DebateFeedbackRecord).where(DebateFeedbackRecord.kind == "correction")
        ).all()
    assert [json.loads(r.data_json) for r in rows] == [{"verdict": "misleading", "note": note}]


def test_the_export_and_the_digest_carry_final_answers_only(site: Site) -> None:
    api, other = site.token(Role.API), site.token(Role.API, site.organisation("Other desk"))
    site.research.answers[TWO_STEP] = lambda _c: sourced(TWO_STEP, Verdict.FALSE)
    debate_id = site.debate(api)
    claim_id = site.claim(api, debate_id)
    exported = site.client.get(f"/v1/debates/{debate_id}/export", headers=api)
    assert exported.status_code == 200
    [row] = exported.json()["claims"]
    assert (row["claim_id"], row["verdict"], row["basis"]) == (claim_id, "false", "agreement")
    as_csv = site.client.get(f"/v1/debates/{debate_id}/export?format=csv", headers=api)
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert "attachment" in as_csv.headers["content-disposition"]
    header, line = as_csv.text.splitlines()
    assert header.startswith("claim_id,text,") and line.startswith(f"{claim_id},")
    assert site.client.get(f"/v1/debates/{debate_id}/export?format=xml", headers=api).status_code == 422
    digest = site.client.get(f"/v1/debates/{debate_id}/digest", headers=api).json()
    assert [a["claim_id"] for a in digest["alerts"]] == [claim_id]
    later = site.client.get(f"/v1/debates/{debate_id}/digest?since=2100-01-01T00:00:00", headers=api).json()
    assert later["alerts"] == [] and later["since"] == "2100-01-01T00:00:00+00:00"
    for path in ("export", "digest"):
        assert site.client.get(f"/v1/debates/{debate_id}/{path}", headers=other).status_code == 404


def test_votes_and_feedback_are_recorded_and_never_change_the_answer(site: Site) -> None:
    reader, api = site.token(Role.READER), site.token(Role.API)
    debate_id = site.debate(api)
    claim_id = site.claim(api, debate_id)
    path = f"/v1/claims/{claim_id}/results?debate_id={debate_id}"
    before = site.client.get(path, headers=reader).json()
    panel_id = before["panels"][0]["panel_id"]

    for _ in range(5):
        vote = site.client.post(f"/v1/panels/{panel_id}/votes", json={"value": "down"}, headers=reader)
        assert vote.status_code == 201 and vote.json()["kind"] == "vote"
    thumbs = site.client.post(
        f"/v1/claims/{claim_id}/feedback",
        json={
            "debate_id": debate_id,
            "value": "down",
            "reasons": ["wrong_source"],
            "benchmark_consent": True,
        },
        headers=reader,
    )
    assert thumbs.status_code == 201
    assert (
        thumbs.json()["kind"] == "panel_feedback"
        and thumbs.json()["panel_id"] == before["claim_verdict"]["selected_panel_id"]
    )
    extraction = site.client.post(
        f"/v1/claims/{claim_id}/feedback",
        json={"debate_id": debate_id, "value": "down", "kind": "extraction"},
        headers=reader,
    )
    assert extraction.status_code == 201 and extraction.json()["kind"] == "claim_extraction"
    assert (
        site.client.post(f"/v1/panels/{panel_id}/feedback", json={"value": "up"}, headers=reader).status_code
        == 201
    )

    assert site.client.get(path, headers=reader).json() == before
    assert (
        site.client.post("/v1/panels/999999/votes", json={"value": "up"}, headers=reader).status_code == 404
    )
    assert (
        site.client.post(f"/v1/panels/{panel_id}/votes", json={"value": "maybe"}, headers=reader).status_code
        == 422
    )


def test_feedback_on_an_answer_that_is_not_there_yet_is_a_409(slow_site: Site) -> None:
    headers = slow_site.token()
    debate_id = slow_site.debate(headers)
    claim_id = slow_site.claim(headers, debate_id)
    answer = slow_site.client.post(
        f"/v1/claims/{claim_id}/feedback", json={"debate_id": debate_id, "value": "up"}, headers=headers
    )
    assert answer.status_code == 409


# --- the live feed --------------------------------------------------------------------------------------


def test_the_feed_carries_each_panel_with_the_current_claim_verdict_and_resumes(slow_site: Site) -> None:
    site = slow_site
    headers = site.token()
    debate_id = site.debate(headers, research_modes=["two_step", "decompose"])
    claim_id = site.claim(headers, debate_id)
    site.service.run_due()
    stream = site.client.get(f"/v1/debates/{debate_id}/events?once=true", headers=headers)
    assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
    events = events_of(stream.text)
    kinds = [kind for _id, kind, _data in events]
    assert kinds[0] == "claim" and kinds.count("panel") >= 4 and "claim_verdict" in kinds
    finished = [d for _i, k, d in events if k == "panel" and d["panel"]["state"] == "done"]
    assert {d["panel"]["research_mode"] for d in finished} == {"two_step", "decompose"}
    assert finished[-1]["claim_verdict"]["verdict"] == "true"  # the answer as it stood with that panel
    assert all(d["claim_id"] == claim_id and d["debate_id"] == debate_id for _i, _k, d in events)
    ids = [i for i, _k, _d in events]
    assert ids == sorted(ids)

    resumed = site.client.get(
        f"/v1/debates/{debate_id}/events?once=true", headers={**headers, "Last-Event-ID": str(ids[-2])}
    )
    assert [i for i, _k, _d in events_of(resumed.text)] == [ids[-1]]
    after = site.client.get(f"/v1/debates/{debate_id}/events?once=true&after={ids[-3]}", headers=headers)
    assert [i for i, _k, _d in events_of(after.text)] == ids[-2:]
    both = site.client.get(
        f"/v1/debates/{debate_id}/events?once=true&after={ids[-3]}",
        headers={**headers, "Last-Event-ID": str(ids[-2])},
    )
    assert [i for i, _k, _d in events_of(both.text)] == [ids[-1]]  # a reconnecting browser's header wins
    for junk in ("²".encode(), b"-1", b"9" * 40):
        raw = [(k.encode(), v.encode()) for k, v in headers.items()] + [(b"last-event-id", junk)]
        replay = site.client.get(f"/v1/debates/{debate_id}/events?once=true", headers=raw)
        assert [i for i, _k, _d in events_of(replay.text)] == ids  # unreadable: from the start


def test_the_feed_of_an_unknown_debate_is_a_404(site: Site) -> None:
    assert site.client.get("/v1/debates/nope/events?once=true", headers=site.token()).status_code == 404


# --- the page cookie ------------------------------------------------------------------------------------


def test_the_page_cookie_signs_in_reads_and_needs_the_page_header_to_post(site: Site) -> None:
    api = site.token()
    debate_id = site.debate(api)
    claim_id = site.claim(api, debate_id)
    secret = api["Authorization"].removeprefix("Bearer ")
    site.client.cookies.set(TOKEN_COOKIE, secret)
    try:
        assert site.client.get(f"/v1/debates/{debate_id}").status_code == 200
        panel_id = site.client.get(f"/v1/claims/{claim_id}/results?debate_id={debate_id}").json()["panels"][
            0
        ]["panel_id"]
        forged = site.client.post(f"/v1/panels/{panel_id}/votes", json={"value": "up"})
        assert forged.status_code == 403  # what another site could make a browser send
        sent = site.client.post(
            f"/v1/panels/{panel_id}/votes", json={"value": "up"}, headers={PAGE_HEADER: PAGE_HEADER_VALUE}
        )
        assert sent.status_code == 201
    finally:
        site.client.cookies.clear()
    assert (
        site.client.get(f"/v1/debates/{debate_id}").status_code == 401
    )  # the cookie, not the session, signed in


def test_every_debate_endpoint_is_documented(site: Site) -> None:
    docs = (Path(__file__).parents[2] / "docs" / "debates.md").read_text(encoding="utf-8")
    schema = site.client.get("/openapi.json").json()
    debate_operations = [
        (method.upper(), path.removeprefix("/v1"))
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if "debates" in operation.get("tags", [])
    ]
    assert len(debate_operations) >= 20
    for method, named in debate_operations:
        path = re.sub(r"\{[a-z_]+\}", "{id}", named)  # the docs write every id as {id}
        assert re.search(rf"\| `{method}` \| `{re.escape(path)}(\?[^`]*)?` \|", docs), f"{method} {path}"


def test_a_search_outage_shows_as_a_pending_panel_in_results_recent_results_and_the_feed(site: Site) -> None:
    site.research.answers[TWO_STEP] = lambda _c: outage(TWO_STEP)
    headers = site.token()
    debate_id = site.debate(headers)
    claim_id = site.claim(headers, debate_id)
    results = site.client.get(f"/v1/claims/{claim_id}/results?debate_id={debate_id}", headers=headers).json()
    panel = results["panels"][0]
    assert (panel["verdict"], panel["state"], panel["research_delay_reason"]) == (
        "pending",
        "pending",
        "search_unavailable",
    )
    assert panel["next_attempt_at"] is not None and results["claim_verdict"] is None
    recent = site.client.get(f"/v1/debates/{debate_id}/results", headers=headers).json()
    assert recent["results"] == [results]
    events = events_of(site.client.get(f"/v1/debates/{debate_id}/events?once=true", headers=headers).text)
    delayed = [d for _i, k, d in events if k == "panel" and d["panel"]["research_delay_reason"]]
    assert delayed and delayed[-1]["claim_verdict"] is None


def test_recent_results_are_newest_first_and_bounded(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers)
    first = site.claim(headers, debate_id, "Rents rose 4 percent.")
    second = site.claim(headers, debate_id, "Wages rose 2 percent.")
    path = f"/v1/debates/{debate_id}/results"
    assert [r["claim_id"] for r in site.client.get(path, headers=headers).json()["results"]] == [
        second,
        first,
    ]
    assert [r["claim_id"] for r in site.client.get(f"{path}?limit=1", headers=headers).json()["results"]] == [
        second
    ]
    assert site.client.get(f"{path}?limit=0", headers=headers).status_code == 422
    assert site.client.get(f"{path}?limit=101", headers=headers).status_code == 422
    assert site.client.get("/v1/debates/nope/results", headers=headers).status_code == 404


def test_thumbs_on_an_adjudicated_answer_are_answer_feedback_recording_what_was_shown(site: Site) -> None:
    headers = site.token(Role.API)
    debate_id, claim_id, panel_ids = _two_panels(site, headers)
    shown = site.client.get(f"/v1/claims/{claim_id}/results?debate_id={debate_id}", headers=headers).json()
    assert shown["claim_verdict"]["basis"] == "adjudicated"
    answer = site.client.post(
        f"/v1/claims/{claim_id}/feedback",
        json={
            "debate_id": debate_id,
            "value": "down",
            "reasons": ["missing_source"],
            "benchmark_consent": True,
        },
        headers=headers,
    )
    assert answer.status_code == 201 and answer.json()["kind"] == "answer_feedback"
    with site.store.reading() as session:
        row = session.scalars(select(DebateFeedbackRecord)).one()
        data = json.loads(row.data_json)
    assert data["shown_verdict"] == shown["claim_verdict"]["verdict"] and data["basis"] == "adjudicated"
    assert sorted(data["panel_ids"]) == sorted(panel_ids)
    assert data["reasons"] == ["missing_source"] and data["benchmark_consent"] is True
    after = site.client.get(f"/v1/claims/{claim_id}/results?debate_id={debate_id}", headers=headers).json()
    assert after == shown


def test_a_strong_language_rerun_runs_the_claims_methods_again(site: Site) -> None:
    headers = site.token()
    debate_id = site.debate(headers, research_modes=["two_step", "decompose"])
    text = "Exports doubled to 8 billion."
    site.claim(headers, debate_id, text)
    rerun = site.client.post(
        "/v1/claim", json={"text": text, "debate_id": debate_id, "strong_language": True}, headers=headers
    )
    assert rerun.status_code == 202
    assert rerun.json()["new_claim"] is False and rerun.json()["queued_methods"] == ["two_step", "decompose"]
    assert [call[2] for call in site.research.calls][-2:] == [
        True,
        True,
    ]  # searched in English and Spanish too
