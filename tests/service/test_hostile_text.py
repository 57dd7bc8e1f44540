"""NUL characters and failing runs, on SQLite and on PostgreSQL (when ``ICARUS_DATABASE_URL`` is set).

PostgreSQL refuses NUL in text; a submitted claim holding one made the worker fail three times while the
check said ``running``, then published the SQL statement as the check's ``detail``. The store now cleans
every string at its engine (NUL becomes U+FFFD, on both databases), a failed run says so in words, and a
check waiting for its next attempt says ``retrying``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import DataError

from icarus.api import create_app
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store.engine import LOST_CHARACTER, storable
from icarus.store.tables import JobState, RequestState
from icarus.store.tokens import Role, TokenStore
from tests.service.conftest import FakeClock

NUL_CLAIM = "Unemployment fell \u0000 to 3.9%"  # the request that could not be recorded on PostgreSQL
SQL_ERROR = DataError(
    "UPDATE checks SET headline=%(headline)s::VARCHAR WHERE checks.id = %(checks_id)s::VARCHAR",
    {"headline": "Unemployment fell \x00 to 3.9%", "checks_id": "4b51"},
    Exception("PostgreSQL text fields cannot contain NUL (0x00) bytes"),
)


@pytest.fixture
def client(runner: JobRunner, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=tmp_path), runner=runner, enqueue=lambda c, k: None)
    with TestClient(app) as test_client:
        yield test_client


def submit(client: TestClient, runner: JobRunner, body: dict[str, Any]) -> str:
    secret = TokenStore(runner.store).create("test", Role.API, runner.clock(), None).secret
    answer = client.post("/v1/checks", json=body, headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 202, answer.text
    check_id: str = answer.json()["id"]
    return check_id


def test_a_claim_with_a_nul_character_is_recorded_with_the_character_marked(
    client: TestClient, runner: JobRunner
) -> None:
    check_id = submit(client, runner, {"text": NUL_CLAIM})
    assert runner.run(check_id, "first") == "recorded version 1"
    status = client.get(f"/v1/checks/{check_id}").json()
    assert status["state"] == "recorded" and status["latest_version"] == 1
    assert runner.service.request(check_id).input == {"text": f"Unemployment fell {LOST_CHARACTER} to 3.9%"}
    listed = runner.service.check_row(check_id)
    assert listed.headline is not None and "\x00" not in listed.headline and LOST_CHARACTER in listed.headline
    assert client.get(f"/v1/checks/{check_id}/report").status_code == 200


def test_every_string_the_store_sends_is_cleaned_and_lookups_match(runner: JobRunner) -> None:
    # One boundary for every table: a raw statement too, and a lookup by the same string finds the row.
    raw = "title\x00 of a fetched page"
    with runner.store.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO removals (subject_kind, subject_id, reason, hidden_at) VALUES (:k, :i, 'deleted', :t)"
            ),
            {"k": "url", "i": raw, "t": runner.clock()},
        )
    with runner.store.engine.connect() as connection:
        stored = connection.execute(
            text("SELECT subject_id FROM removals WHERE subject_id = :i"), {"i": raw}
        ).scalar_one()
    assert stored == "title\ufffd of a fetched page"


def test_storable_cleans_nested_parameters_and_leaves_the_rest() -> None:
    many = [{"a": "x\x00", "n": 3}, {"a": "y", "n": None}]
    assert storable(many) == [{"a": "x\ufffd", "n": 3}, {"a": "y", "n": None}]
    assert storable(("p\x00q", b"\x00", 1.5)) == ("p\ufffdq", b"\x00", 1.5)  # bytes are not text


def test_a_failing_run_says_retrying_with_its_next_attempt_then_failed_in_words(
    client: TestClient,
    runner: JobRunner,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    check_id = submit(client, runner, {"text": "Container traffic at Halden harbor fell 12% in October."})

    def failing(*_: object) -> str:
        runner.service.set_state(check_id, RequestState.RUNNING, clock.now)  # as a real run does first
        raise SQL_ERROR

    monkeypatch.setattr(runner, "_execute", failing)
    assert runner.run(check_id, "first").startswith("error, will retry")
    status = client.get(f"/v1/checks/{check_id}").json()
    due = clock.now + runner.config.error_backoff
    assert status["state"] == "retrying" and status["state_reason"] == "error"
    assert status["next_run_at"].replace("Z", "+00:00") == due.isoformat()
    assert status["detail"] == (
        f"attempt 1 of 3 failed with an internal error (the worker's log has it); "
        f"the next attempt is at {due.isoformat()}"
    )
    retrying = runner.service.events(check_id)[-1]
    assert retrying.data["state"] == "retrying" and retrying.data["next_attempt_at"] == due.isoformat()
    for _ in range(runner.config.max_attempts - 1):
        clock.advance(days=1)
        runner.run(check_id, "first")
    status = client.get(f"/v1/checks/{check_id}").json()
    assert status["state"] == "failed" and status["next_run_at"] is None
    timeline = client.get(f"/v1/checks/{check_id}/timeline").json()
    public = [status["detail"], *(run["outcome"] for run in timeline["runs"])]
    public += [event.data.get("detail", "") for event in runner.service.events(check_id)]
    for words in public:
        assert "SQL" not in words and "UPDATE" not in words and "headline" not in words, words
        assert "Traceback" not in words and "DataError" not in words and len(words) < 200, words
    assert runner.service.job(check_id, "first").state is JobState.DONE
    assert "UPDATE checks SET headline" in caplog.text  # the operator still gets the whole error


def test_a_retrying_check_runs_again_and_records(
    runner: JobRunner, client: TestClient, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_id = submit(client, runner, {"text": "Container traffic at Halden harbor fell 12% in October."})
    with monkeypatch.context() as patch:
        patch.setattr(runner, "_subject", lambda *_: (_ for _ in ()).throw(SQL_ERROR))
        runner.run(check_id, "first")
    assert runner.service.request(check_id).state is RequestState.RETRYING
    clock.advance(seconds=runner.config.error_backoff.total_seconds())
    assert runner.run(check_id, "first") == "recorded version 1"
    states = [e.data["state"] for e in runner.service.events(check_id) if e.kind == "status"]
    assert states == ["queued", "running", "retrying", "running", "recorded"]
