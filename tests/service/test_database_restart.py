"""A real database restart: a private PostgreSQL cluster is stopped and started under the API and the runner.

Requests while the database is down must be 503 with ``Retry-After`` (never a 500); the same app answers
again once the database is back, without being restarted (the pool drops its dead connections); nothing
accepted before or after is lost, and every job ends with exactly one version, even one that the restart
interrupted. Skipped where the PostgreSQL server binaries are missing or cannot run.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.pg_cluster import ClusterUnavailable, PrivateCluster, private_cluster
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from icarus.api import create_app
from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store.engine import create_store_engine
from icarus.store.tables import JobState, RequestState
from icarus.store.tokens import Role, TokenStore
from tests.service.conftest import FakeClock, Providers, open_runner, sample_payload

TEXT_CLAIM = "Container traffic at Halden harbor fell 12% in October."


@pytest.fixture(scope="module")
def cluster() -> Iterator[PrivateCluster]:
    manager = private_cluster()
    try:
        started = manager.__enter__()
    except ClusterUnavailable as exc:
        pytest.skip(f"no private PostgreSQL cluster to restart: {exc}")
    try:
        yield started
    finally:
        manager.__exit__(None, None, None)


@pytest.fixture
def cluster_runner(
    cluster: PrivateCluster, tmp_path: Path, clock: FakeClock, providers: Providers
) -> Iterator[JobRunner]:
    """A runner on a fresh database of its own in the private cluster; the cluster is running again after."""
    name = f"icarus_restart_{uuid.uuid4().hex[:10]}"
    admin = create_store_engine(cluster.url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = make_url(cluster.url).set(database=name).render_as_string(hide_password=False)
    runner = open_runner(url, tmp_path, clock, providers)
    yield runner
    runner.store.close()
    if not cluster.running:
        cluster.start()


def _headers(runner: JobRunner) -> dict[str, str]:
    issued = TokenStore(runner.store).create("restart test", Role.API, runner.clock())
    return {"Authorization": f"Bearer {issued.secret}"}


def _submit(client: TestClient, headers: dict[str, str], n: int) -> str:
    answer = client.post("/v1/checks", json={"text": f"{TEXT_CLAIM} ({n})"}, headers=headers)
    assert answer.status_code == 202, answer.text
    check_id: str = answer.json()["id"]
    return check_id


def _submit_direct(runner: JobRunner) -> str:
    return runner.submit(CheckInput(text=TEXT_CLAIM))


def _versions(runner: JobRunner, check_id: str) -> list[int]:
    return [entry.version for entry in runner.store.versions(check_id)]


def test_requests_during_a_restart_are_503_and_nothing_is_lost(
    cluster: PrivateCluster, cluster_runner: JobRunner, tmp_path: Path
) -> None:
    runner = cluster_runner
    queued: list[tuple[str, str]] = []
    app = create_app(
        Settings(data_dir=tmp_path), runner=runner, enqueue=lambda check, key: queued.append((check, key))
    )
    headers = _headers(runner)
    with TestClient(app) as client:
        before = [_submit(client, headers, n) for n in range(3)]
        runner.run(before[0], "first")
        report = f"/v1/checks/{before[0]}/report"
        assert client.get(report).status_code == 200

        cluster.stop()
        during = [
            client.post("/v1/checks", json={"text": TEXT_CLAIM}, headers=headers),
            client.get(report),
            client.get(f"/v1/checks/{before[1]}"),
            client.get("/v1/checks", params={"post_id": "1860000000000000001"}),
        ]
        assert [answer.status_code for answer in during] == [503] * len(during)
        assert all(answer.headers["retry-after"] == "1" for answer in during)
        assert "database is unavailable" in during[0].json()["detail"]
        assert client.get("/healthz").status_code == 200  # the process itself is fine
        with pytest.raises(OperationalError):
            runner.run(before[1], "first")  # a worker's run fails; the job stays in the database

        cluster.start()
        assert client.get(report).status_code == 200  # the same app, no restart: the pool recovered
        after = [_submit(client, headers, n) for n in range(3, 6)]
        payload_check = client.post("/v1/checks", json={"payload": sample_payload()}, headers=headers)
        assert payload_check.status_code == 202
        after.append(payload_check.json()["id"])

    accepted = before + after
    assert len(queued) == len(accepted)  # the refused submission queued nothing
    assert {row.check_id for row in runner.service.recent(100)} == set(accepted)
    ran: list[tuple[str, str]] = []
    runner.enqueue = lambda check, key: ran.append((check, key))
    runner.dispatch_due()  # hands out every job still waiting, the one the outage refused included
    assert {check for check, _ in ran} == set(accepted[1:])
    for check, key in ran:
        runner.run(check, key)
    for check in accepted:
        assert runner.service.request(check).state is RequestState.RECORDED
        assert _versions(runner, check) == [1]


def test_a_job_survives_a_restart_while_it_runs(
    cluster: PrivateCluster, cluster_runner: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = cluster_runner
    check_id = _submit_direct(runner)
    add_event = runner.service.add_event
    restarted: list[bool] = []

    def restart_on_first_progress(*args: Any, **kwargs: Any) -> None:
        if args[1] == "progress" and not restarted:
            restarted.append(True)
            cluster.restart()  # every pooled connection is now dead
        add_event(*args, **kwargs)

    monkeypatch.setattr(runner.service, "add_event", restart_on_first_progress)
    assert runner.run(check_id, "first") == "recorded version 1"
    assert restarted and _versions(runner, check_id) == [1]
    assert runner.service.job(check_id, "first").state is JobState.DONE


def test_a_job_cut_off_while_recording_records_exactly_one_version_later(
    cluster: PrivateCluster, cluster_runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = cluster_runner
    check_id = _submit_direct(runner)
    record = runner.store.record_check

    def down_while_recording(*args: Any, **kwargs: Any) -> Any:
        cluster.stop()
        return record(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(runner.store, "record_check", down_while_recording)
        outcome = runner.run(check_id, "first")  # the worker cannot even hand the job back
    assert outcome.startswith("error, will retry once the database answers")
    cluster.start()
    assert _versions(runner, check_id) == []  # no half version
    assert runner.service.job(check_id, "first").state is JobState.RUNNING
    assert runner.run(check_id, "first").startswith("not runnable")  # still leased
    ran: list[tuple[str, str]] = []
    runner.enqueue = lambda check, key: ran.append((check, key))
    assert runner.dispatch_due() == 0  # handed back now, due after the error back-off
    assert runner.service.job(check_id, "first").state is JobState.SCHEDULED
    clock.advance(seconds=runner.config.error_backoff.total_seconds())  # well within the lease
    assert runner.dispatch_due() == 1 and ran == [(check_id, "first")]
    assert runner.run(check_id, "first") == "recorded version 1"
    assert _versions(runner, check_id) == [1]
    assert runner.service.job(check_id, "first").attempts == 2


def test_an_open_event_stream_rides_out_a_restart(
    cluster: PrivateCluster, cluster_runner: JobRunner, tmp_path: Path
) -> None:
    """A client following a check's progress keeps its stream: polls during the outage wait, and the
    events written after the restart arrive on the same connection."""
    runner = cluster_runner
    check_id = _submit_direct(runner)
    app = create_app(Settings(data_dir=tmp_path), runner=runner, enqueue=lambda check, key: None)
    seen: list[str] = []

    def restart_then_run() -> None:
        cluster.restart(down_s=1.5)  # several polls of the stream fall into the outage
        runner.run(check_id, "first")

    with TestClient(app) as client, client.stream("GET", f"/v1/checks/{check_id}/events") as stream:
        worker = threading.Timer(0.3, restart_then_run)
        worker.start()
        for line in stream.iter_lines():
            if line.startswith("event: "):
                seen.append(line.removeprefix("event: "))
            if seen and seen[-1] == "version":
                break
        worker.join()
    assert seen[0] == "status" and "progress" in seen and seen[-1] == "version"


def test_an_event_stream_opened_during_the_outage_is_a_503(
    cluster: PrivateCluster, cluster_runner: JobRunner, tmp_path: Path
) -> None:
    runner = cluster_runner
    check_id = _submit_direct(runner)
    app = create_app(Settings(data_dir=tmp_path), runner=runner, enqueue=lambda check, key: None)
    with TestClient(app) as client:
        client.get("/v1/policies")  # the app is up and has used the database
        cluster.stop()
        for path in (f"/v1/checks/{check_id}/events", "/v1/events", "/v1/events?once=true"):
            answer = client.get(path)
            assert answer.status_code == 503 and answer.headers["retry-after"] == "1", path
        cluster.start()
        assert client.get(f"/v1/checks/{check_id}/events", params={"once": True}).status_code == 200
