"""The HTTP API against the real routes, with jobs run inline on the sample corpus and a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from icarus.api import create_app
from icarus.api.app import MAX_BODY_BYTES
from icarus.jobs.runner import JobRunner
from icarus.jobs.sweep import PostStatus
from icarus.reports.methodology import published_methodology
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from icarus.store.tokens import Role, TokenStore
from tests.service.conftest import FakeClock, sample_payload

SAMPLE_POST = "1860000000000000001"


class FixedStatuses:
    def __init__(self) -> None:
        self.answers: dict[str, PostStatus] = {}

    def statuses(self, post_ids: list[str]) -> dict[str, PostStatus]:
        return {p: self.answers.get(p, PostStatus.AVAILABLE) for p in post_ids}


@pytest.fixture
def x_statuses() -> FixedStatuses:
    return FixedStatuses()


@pytest.fixture
def client(runner: JobRunner, tmp_path: Path, x_statuses: FixedStatuses) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path, public_url="https://icarus.test")
    app = create_app(settings, runner=runner, enqueue=lambda c, k: None, status_source=x_statuses)
    with TestClient(app) as test_client:
        yield test_client


def token(runner: JobRunner, role: Role, rate: int | None = None) -> dict[str, str]:
    issued = TokenStore(runner.store).create(f"test {role.value}", role, runner.clock(), rate)
    return {"Authorization": f"Bearer {issued.secret}"}


def submit_and_run(client: TestClient, runner: JobRunner, body: dict[str, object]) -> str:
    answer = client.post("/v1/checks", json=body, headers=token(runner, Role.API))
    assert answer.status_code == 202, answer.text
    check_id: str = answer.json()["id"]
    assert answer.headers["location"] == f"/v1/checks/{check_id}"
    runner.run(check_id, "first")
    return check_id


def test_submit_read_status_report_versions_ledger_and_trace(client: TestClient, runner: JobRunner) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    status = client.get(f"/v1/checks/{check_id}").json()
    assert status["state"] == "recorded" and status["latest_version"] == 1
    assert status["label"] == "supported" and status["post_id"] == SAMPLE_POST
    report = client.get(f"/v1/checks/{check_id}/report").json()
    assert report["version"] == 1 and report["result"]["overall"]["label"] == "supported"
    assert report["url"] == f"https://icarus.test/checks/{check_id}/versions/1"
    assert client.get(f"/v1/checks/{check_id}/versions/1").json()["trace_hash"] == report["trace_hash"]
    versions = client.get(f"/v1/checks/{check_id}/versions").json()
    assert [(v["version"], v["reason"]) for v in versions] == [(1, "first")]
    ledger = client.get(f"/v1/checks/{check_id}/versions/1/ledger").json()
    assert ledger["subject"]["subject_id"] == SAMPLE_POST
    trace = client.get(f"/v1/checks/{check_id}/versions/1/trace").json()
    assert trace["trace_hash"] == report["trace_hash"] and "claims" in trace["trace"]
    by_post = client.get("/v1/checks", params={"post_id": SAMPLE_POST}).json()["checks"]
    assert [c["id"] for c in by_post] == [check_id]


def test_text_input_is_accepted_and_checked(client: TestClient, runner: JobRunner) -> None:
    check_id = submit_and_run(
        client, runner, {"text": "Container traffic at Halden harbor fell 12% in October."}
    )
    assert client.get(f"/v1/checks/{check_id}").json()["state"] == "recorded"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "exactly one of text, url, post, payload"),
        ({"text": "a", "url": "https://example.org"}, "got text, url"),
        ({"url": "ftp://example.org/x"}, "http:// or https://"),
        ({"post": "not a post"}, "not an X post id"),
        ({"text": "claim", "policy": "icarus@9.9"}, "unknown policy"),
        ({"text": "claim", "colour": "red"}, "Extra inputs are not permitted"),
        ({"payload": {"data": {"id": "1", "text": "x"}}}, "not a reply"),
        # refused at once: the worker's error would quote the URL, and PostgreSQL text cannot hold NUL
        ({"url": "https://example.org/a\u0000b"}, "whitespace, control characters or backslashes"),
        ({"url": "https://exa mple.org/"}, "whitespace, control characters or backslashes"),
    ],
)
def test_invalid_input_is_a_422_with_a_clear_message(
    client: TestClient, runner: JobRunner, body: dict[str, object], message: str
) -> None:
    answer = client.post("/v1/checks", json=body, headers=token(runner, Role.API))
    assert answer.status_code == 422
    assert message in answer.json()["detail"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/checks/0123456789abcdef",
        "/v1/checks/0123456789abcdef/report",
        "/v1/checks/0123456789abcdef/versions",
        "/v1/checks/0123456789abcdef/versions/1",
        "/v1/checks/0123456789abcdef/timeline",
        "/v1/checks/0123456789abcdef/claimreview",
        "/v1/checks/0123456789abcdef/events",
        "/v1/policies/nothing@1.0",
        "/v1/snapshots/sha256:" + "0" * 64,
    ],
)
def test_unknown_ids_are_404(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_a_version_that_does_not_exist_yet_is_404(client: TestClient, runner: JobRunner) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    assert client.get(f"/v1/checks/{check_id}/versions/2").status_code == 404


def test_recheck_and_correction_are_new_versions_saying_what_changed_and_why(
    client: TestClient, runner: JobRunner, clock: FakeClock
) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    clock.advance(days=3)
    api, admin = token(runner, Role.API), token(runner, Role.ADMIN)
    recheck = client.post(f"/v1/checks/{check_id}/rechecks", json={"note": "new reporting"}, headers=api)
    assert recheck.status_code == 202
    runner.run(check_id, recheck.json()["run_key"])
    # corrections are admin-only
    assert (
        client.post(f"/v1/checks/{check_id}/corrections", json={"note": "x"}, headers=api).status_code == 403
    )
    clock.advance(hours=1)
    correction = client.post(
        f"/v1/checks/{check_id}/corrections", json={"note": "publisher misnamed"}, headers=admin
    )
    runner.run(check_id, correction.json()["run_key"])
    timeline = client.get(f"/v1/checks/{check_id}/timeline").json()
    versions = timeline["versions"]
    assert [(v["version"], v["reason"]) for v in versions] == [
        (1, "first"),
        (2, "recheck"),
        (3, "correction"),
    ]
    assert versions[1]["what_changed"].startswith("recheck requested: new reporting")
    assert versions[2]["what_changed"].startswith("correction: publisher misnamed")
    assert len({v["url"] for v in versions}) == 3  # each version keeps its own address
    assert client.get(f"/v1/checks/{check_id}/versions/1").json()["as_of"] != versions[1]["as_of"]
    assert {r["run_key"] for r in timeline["runs"]} >= {"first", recheck.json()["run_key"]}


def test_claimreview_lists_decided_claims(client: TestClient, runner: JobRunner) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    answer = client.get(f"/v1/checks/{check_id}/claimreview")
    assert answer.headers["content-type"].startswith("application/ld+json")
    graph = answer.json()["@graph"]
    assert graph and all(r["@type"] == "ClaimReview" for r in graph)
    review = graph[0]
    assert review["reviewRating"]["alternateName"] == "Supported"
    assert review["url"].startswith(f"https://icarus.test/checks/{check_id}/versions/1#claim-")
    assert "Halden" in review["claimReviewed"]


def test_event_stream_replays_progress_and_the_new_version(client: TestClient, runner: JobRunner) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    with client.stream("GET", f"/v1/checks/{check_id}/events", params={"once": True}) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        body = "".join(stream.iter_text())
    kinds = [line.removeprefix("event: ") for line in body.splitlines() if line.startswith("event: ")]
    assert kinds[0] == "status" and "progress" in kinds and kinds[-1] == "version"
    ids = [int(line.removeprefix("id: ")) for line in body.splitlines() if line.startswith("id: ")]
    resumed = client.get(
        f"/v1/checks/{check_id}/events", params={"once": True}, headers={"Last-Event-ID": str(ids[-2])}
    ).text
    assert [line for line in resumed.splitlines() if line.startswith("id: ")] == [f"id: {ids[-1]}"]


@pytest.mark.parametrize("header", ["9" * 5000, "9" * 30, str(2**63), "999999"])  # 2**63: past SQLite INTEGER
def test_a_last_event_id_past_the_newest_event_resumes_from_now(
    client: TestClient, runner: JobRunner, header: str
) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    answer = client.get(
        f"/v1/checks/{check_id}/events", params={"once": True}, headers={"Last-Event-ID": header}
    )
    assert answer.status_code == 200
    assert "event: " not in answer.text  # nothing replayed, not the whole stream


@pytest.mark.parametrize("header", ["-1", "abc", ""])
def test_an_unreadable_last_event_id_replays_the_stream_from_its_start(
    client: TestClient, runner: JobRunner, header: str
) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    answer = client.get(
        f"/v1/checks/{check_id}/events", params={"once": True}, headers={"Last-Event-ID": header}
    )
    assert answer.status_code == 200
    assert answer.text.split("event: ")[1].startswith("status")


@pytest.mark.parametrize(("path", "role"), [("rechecks", Role.API), ("corrections", Role.ADMIN)])
def test_a_note_with_a_nul_character_is_kept_with_the_character_marked(
    client: TestClient, runner: JobRunner, path: str, role: Role
) -> None:
    # As in every other text the store keeps (tests/api/test_nul_in_notes.py follows it into the version).
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    answer = client.post(
        f"/v1/checks/{check_id}/{path}", json={"note": "a\u0000b"}, headers=token(runner, role)
    )
    assert answer.status_code == 202, answer.text
    runs = client.get(f"/v1/checks/{check_id}/timeline").json()["runs"]
    assert "a\ufffdb" in [run["note"] for run in runs]


def test_an_oversize_body_is_a_413_before_it_is_read(client: TestClient, runner: JobRunner) -> None:
    headers = {**token(runner, Role.API), "Content-Type": "application/json"}
    too_big = b'{"text": "' + b"a" * MAX_BODY_BYTES + b'"}'
    answer = client.post("/v1/checks", content=too_big, headers=headers)
    assert answer.status_code == 413 and "larger than" in answer.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"text": "'
        for _ in range(MAX_BODY_BYTES // 65536 + 1):
            yield b"a" * 65536
        yield b'"}'

    streamed = client.post("/v1/checks", content=chunks(), headers=headers)
    assert streamed.status_code == 413 and "larger than" in streamed.json()["detail"]
    fits = client.post("/v1/checks", json={"text": "Unemployment fell to 3.9% in May."}, headers=headers)
    assert fits.status_code == 202


def test_a_deleted_post_is_hidden_after_the_sweep_but_the_verdict_stays(
    client: TestClient, runner: JobRunner, x_statuses: FixedStatuses
) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    admin = token(runner, Role.ADMIN)
    before = client.get(f"/v1/checks/{check_id}/report").json()
    assert "Halden" in before["result"]["claims"][0]["text"]
    x_statuses.answers[SAMPLE_POST] = PostStatus.DELETED
    swept = client.post("/v1/admin/sweep", headers=admin).json()
    assert swept["hidden"] == [SAMPLE_POST]
    after = client.get(f"/v1/checks/{check_id}/report").json()
    assert after["source_hidden"] == "deleted"
    assert "Halden" not in str(after["result"]["claims"]) and "Halden" not in str(
        after["result"]["not_assessed"]
    )
    assert after["label"] == before["label"] and after["result"]["evidence"] == before["result"]["evidence"]
    ledger = client.get(f"/v1/checks/{check_id}/versions/1/ledger").json()
    assert "Halden" not in str(ledger["subject"]) and "Halden" not in str(ledger["claims"])
    assert ledger["evidence"]  # the evidence stays
    assert client.get(f"/v1/checks/{check_id}/timeline").json()["versions"]  # and the update log
    assert "Halden" not in str(client.get(f"/v1/checks/{check_id}/claimreview").json())
    assert client.post("/v1/admin/sweep", headers=admin).json()["hidden"] == []  # already hidden: nothing new
    # the stored version itself is untouched
    assert "Halden" in runner.store.latest(check_id).result_json


def test_roles_and_hidden_admin_diagnostics(client: TestClient, runner: JobRunner) -> None:
    body = {"text": "Container traffic at Halden harbor fell 12% in October."}
    assert client.post("/v1/checks", json=body).status_code == 401
    assert client.post("/v1/checks", json=body, headers=token(runner, Role.READER)).status_code == 403
    assert (
        client.post("/v1/checks", json=body, headers={"Authorization": "Bearer icr_nope"}).status_code == 401
    )
    for headers in ({}, token(runner, Role.READER), token(runner, Role.API)):
        assert client.get("/v1/admin/diagnostics", headers=headers).status_code == 404
    diagnostics = client.get("/v1/admin/diagnostics", headers=token(runner, Role.ADMIN))
    assert diagnostics.status_code == 200 and diagnostics.json()["database"] in ("sqlite", "postgresql")
    assert "/v1/admin/diagnostics" not in client.get("/openapi.json").json()["paths"]


def test_a_revoked_token_stops_working(
    client: TestClient, runner: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("icarus.http.auth.TOKEN_CACHE_S", 0.0)
    tokens = TokenStore(runner.store)
    issued = tokens.create("soon gone", Role.API, runner.clock())
    headers = {"Authorization": f"Bearer {issued.secret}"}
    assert client.get("/v1/checks", headers=headers).status_code == 200
    tokens.revoke(issued.info.id, runner.clock())
    assert client.get("/v1/checks", headers=headers).status_code == 401


def test_tokens_are_stored_only_as_hashes(runner: JobRunner) -> None:
    issued = TokenStore(runner.store).create("audit", Role.READER, runner.clock())
    with runner.store.engine.connect() as connection:
        dump = str(connection.exec_driver_sql("SELECT * FROM api_tokens").all())
    assert issued.secret not in dump and issued.secret[-20:] not in dump


def test_per_token_rate_limit(client: TestClient, runner: JobRunner) -> None:
    limited = token(runner, Role.READER, rate=3)
    answers = [client.get("/v1/policies", headers=limited).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert client.get("/v1/policies", headers=token(runner, Role.READER, rate=3)).status_code == 200


def test_policies_are_served_from_config(client: TestClient) -> None:
    listed = client.get("/v1/policies").json()
    assert {p["ref"] for p in listed} >= {"icarus@1.0", "icarus@1.1"}
    page = client.get("/v1/policies/icarus@1.1").json()
    assert page["config_hash"].startswith("sha256:") and page["methodology_markdown"].startswith("#")
    # the same page `icarus policy show` prints and the web shows, standing sections included
    assert page["methodology_markdown"] == published_methodology(load_policy("icarus@1.1"))


def test_pages_are_mounted(client: TestClient, runner: JobRunner) -> None:
    check_id = submit_and_run(client, runner, {"payload": sample_payload()})
    assert client.get("/").status_code == 200
    page = client.get(f"/checks/{check_id}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert client.get(f"/checks/{check_id}/versions/1").status_code == 200
    assert client.get("/methodology").status_code == 200
    assert client.get("/checks/0123456789abcdef").status_code == 404


def test_a_queue_outage_does_not_lose_a_submission(runner: JobRunner, tmp_path: Path) -> None:
    def broken(check_id: str, run_key: str) -> None:
        raise ConnectionError("queue down")

    app = create_app(Settings(data_dir=tmp_path), runner=runner, enqueue=broken)
    with TestClient(app) as test_client:
        answer = test_client.post(
            "/v1/checks", json={"payload": sample_payload()}, headers=token(runner, Role.API)
        )
    assert answer.status_code == 202
    check_id = answer.json()["id"]
    assert [j.run_key for j in runner.service.due(runner.clock())] == ["first"]  # the dispatcher will find it
    assert runner.service.request(check_id).state.value == "queued"


def test_a_live_event_stream_delivers_the_new_version_as_it_is_recorded(
    client: TestClient, runner: JobRunner
) -> None:
    import threading

    answer = client.post("/v1/checks", json={"payload": sample_payload()}, headers=token(runner, Role.API))
    check_id = answer.json()["id"]
    seen: list[str] = []
    with client.stream("GET", f"/v1/checks/{check_id}/events") as stream:
        worker = threading.Timer(0.3, runner.run, args=(check_id, "first"))
        worker.start()
        for line in stream.iter_lines():
            if line.startswith("event: "):
                seen.append(line.removeprefix("event: "))
            if seen and seen[-1] == "version":
                break
        worker.join()
    assert seen[0] == "status" and "progress" in seen and seen[-1] == "version"


def test_reads_can_require_a_token(runner: JobRunner, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, api_public_reads=False)
    with TestClient(create_app(settings, runner=runner, enqueue=lambda c, k: None)) as private:
        assert private.get("/v1/policies").status_code == 401
        assert private.get("/v1/policies", headers=token(runner, Role.READER)).status_code == 200


def test_a_database_outage_is_a_503_with_retry_after(
    client: TestClient, runner: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy.exc import OperationalError

    def down(*_: object) -> None:
        raise OperationalError("SELECT 1", {}, ConnectionError("server closed the connection"))

    monkeypatch.setattr(runner.service, "report_head", down)
    answer = client.get("/v1/checks/0123456789abcdef/report")
    assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
