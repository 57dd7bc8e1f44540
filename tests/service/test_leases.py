"""Short leases renewed by a heartbeat, jobs rescued when their worker stops, and fenced writes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from icarus.api import create_app
from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store import WorkerRegistry
from icarus.store.service import WORKER_STOPPED
from icarus.store.tables import JobState, RequestState
from icarus.store.tokens import Role, TokenStore
from tests.service.conftest import FakeClock, sample_payload


def submit_sample(runner: JobRunner) -> str:
    return runner.submit(CheckInput(payload=sample_payload()))


def during_execute(runner: JobRunner, action: Callable[[], object]) -> None:
    """Run ``action`` in the middle of the runner's next job (only that one), after its lease was taken."""
    original = runner._execute

    def wrapped(*args: Any) -> str:
        runner._execute = original  # type: ignore[method-assign]
        action()
        return original(*args)

    runner._execute = wrapped  # type: ignore[method-assign,assignment]


def test_a_renewed_lease_keeps_a_long_run_from_being_taken(runner: JobRunner, clock: FakeClock) -> None:
    check_id = submit_sample(runner)
    job = runner.service.claim(check_id, "first", clock.now, runner.config.lease)
    assert job is not None
    lease_s = runner.config.lease.total_seconds()
    for _ in range(4):  # a run four leases long, renewed at half a lease
        clock.advance(seconds=lease_s / 2)
        assert runner.service.renew({job.id: job.attempts}, clock.now, runner.config.lease) == set()
        assert runner.service.due(clock.now) == []
        assert runner.service.reclaim_expired(clock.now) == []
    clock.advance(seconds=lease_s + 1)  # the heartbeat stopped: the lease runs out
    assert [j.id for j in runner.service.due(clock.now)] == [job.id]


def test_a_lease_that_moved_on_is_not_renewed(runner: JobRunner, clock: FakeClock) -> None:
    check_id = submit_sample(runner)
    first = runner.service.claim(check_id, "first", clock.now, runner.config.lease)
    assert first is not None
    clock.advance(seconds=runner.config.lease.total_seconds() + 1)
    second = runner.service.claim(check_id, "first", clock.now, runner.config.lease)
    assert second is not None and second.attempts == first.attempts + 1
    assert runner.service.renew({first.id: first.attempts}, clock.now, runner.config.lease) == {first.id}


def test_the_heartbeat_hands_out_again_the_jobs_of_a_dead_worker(runner: JobRunner, clock: FakeClock) -> None:
    check_id = submit_sample(runner)
    queued: list[tuple[str, str]] = []
    runner.enqueue = lambda c, k: queued.append((c, k))
    dead = runner.service.claim(check_id, "first", clock.now, runner.config.lease)  # then SIGKILL
    assert dead is not None
    runner.service.set_state(check_id, RequestState.RUNNING, clock.now)
    assert runner.heartbeat() == []  # still within its lease
    clock.advance(seconds=runner.config.lease.total_seconds() + 1)
    rescued = runner.heartbeat()
    assert [(j.check_id, j.run_key) for j in rescued] == [(check_id, "first")] == queued
    request = runner.service.request(check_id)
    assert request.state is RequestState.QUEUED and request.state_reason == WORKER_STOPPED
    assert runner.service.job(check_id, "first").state is JobState.SCHEDULED
    assert runner.run(check_id, "first") == "recorded version 1"
    assert [e.version for e in runner.store.versions(check_id)] == [1]
    assert runner.service.job(check_id, "first").attempts == 2


def test_a_worker_whose_lease_moved_on_records_nothing(runner: JobRunner, clock: FakeClock) -> None:
    check_id = submit_sample(runner)
    taken: list[object] = []

    def another_worker_takes_over() -> None:  # this worker hangs past its lease; another claims the job
        clock.advance(seconds=runner.config.lease.total_seconds() + 1)
        taken.append(runner.service.claim(check_id, "first", clock.now, runner.config.lease))

    during_execute(runner, another_worker_takes_over)
    outcome = runner.run(check_id, "first")
    assert outcome.startswith("lease moved on"), outcome
    assert taken[0] is not None
    assert runner.store.versions(check_id) == []  # fenced: nothing written under a lost lease
    job = runner.service.job(check_id, "first")
    assert job.state is JobState.RUNNING and job.attempts == 2  # still the other worker's, not closed


def test_a_stopping_worker_hands_its_running_jobs_back(runner: JobRunner, clock: FakeClock) -> None:
    check_id = submit_sample(runner)
    queued: list[tuple[str, str]] = []
    handed: list[int] = []
    during_execute(runner, lambda: handed.append(runner.hand_back_held("stopping")))
    runner.enqueue = lambda c, k: queued.append((c, k))
    assert runner.run(check_id, "first").startswith("lease moved on")
    assert handed == [1] and queued == [(check_id, "first")]
    assert runner.store.versions(check_id) == []
    job = runner.service.job(check_id, "first")
    assert job.state is JobState.SCHEDULED and job.due_at == clock.now
    assert runner.run(check_id, "first") == "recorded version 1"  # the next worker runs it at once


def test_diagnostics_show_each_workers_last_heartbeat(
    runner: JobRunner, clock: FakeClock, tmp_path: Path
) -> None:
    registry = WorkerRegistry(runner.store)
    registry.beat("host:1:aaaaaa", "host", 1, clock.now, clock.now, 2)
    registry.beat("host:2:bbbbbb", "host", 2, clock.now, clock.now, 0)
    registry.stopped("host:2:bbbbbb", clock.now)
    clock.advance(seconds=60)
    registry.beat("host:3:cccccc", "host", 3, clock.now, clock.now, 1)
    settings = Settings(data_dir=tmp_path, job_heartbeat_s=5)
    app = create_app(settings, runner=runner, enqueue=lambda c, k: None)
    secret = TokenStore(runner.store).create("admin", Role.ADMIN, clock.now).secret
    with TestClient(app) as client:
        answer = client.get("/v1/admin/diagnostics", headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 200
    assert answer.json()["judge"] == settings.offline_judge and answer.json()["policy"] == settings.policy
    workers = {w["name"]: w for w in answer.json()["workers"]}
    assert list(workers) == ["host:3:cccccc", "host:1:aaaaaa", "host:2:bbbbbb"]  # latest heartbeat first
    assert workers["host:3:cccccc"]["alive"] and workers["host:3:cccccc"]["seconds_since_heartbeat"] == 0
    assert not workers["host:1:aaaaaa"]["alive"] and workers["host:1:aaaaaa"]["seconds_since_heartbeat"] == 60
    assert workers["host:1:aaaaaa"]["jobs_held"] == 2
    assert not workers["host:2:bbbbbb"]["alive"] and workers["host:2:bbbbbb"]["stopped_at"] is not None
