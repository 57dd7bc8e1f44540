"""Jobs: a submitted check runs once, records one version, and reruns never add a second one."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy.exc import OperationalError

from icarus.jobs.inputs import CaptureFailed, CheckInput
from icarus.jobs.runner import JobRunner
from icarus.store.tables import JobState, RequestState
from tests.service.conftest import START, FailingSearch, FakeClock, Providers, sample_payload


def submit_sample(runner: JobRunner) -> str:
    return runner.submit(CheckInput(payload=sample_payload()))


def test_a_submitted_check_runs_and_records_its_first_version(runner: JobRunner) -> None:
    check_id = submit_sample(runner)
    assert runner.service.request(check_id).state is RequestState.QUEUED
    assert runner.service.request(check_id).post_id == "1860000000000000001"  # indexed by the post checked
    assert runner.run(check_id, "first") == "recorded version 1"
    request = runner.service.request(check_id)
    assert request.state is RequestState.RECORDED
    version = runner.store.latest(check_id)
    assert version.version == 1 and version.label == "supported"
    assert version.what_changed.startswith("first check")
    kinds = [event.kind for event in runner.service.events(check_id)]
    assert kinds[0] == "status" and "progress" in kinds and kinds[-1] == "version"


def test_running_a_finished_job_again_does_nothing(runner: JobRunner) -> None:
    check_id = submit_sample(runner)
    runner.run(check_id, "first")
    assert runner.run(check_id, "first").startswith("not runnable")
    assert [e.version for e in runner.store.versions(check_id)] == [1]


def test_a_worker_that_died_after_recording_leaves_one_version(
    runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_id = submit_sample(runner)

    def killed(*_: object, **__: object) -> None:
        raise KeyboardInterrupt  # the process stops between writing the version and closing the job

    with monkeypatch.context() as patch:
        patch.setattr(runner.service, "finish", killed)
        with pytest.raises(KeyboardInterrupt):
            runner.run(check_id, "first")
    assert runner.service.job(check_id, "first").state is JobState.RUNNING
    clock.advance(seconds=runner.config.lease.total_seconds() + 1)
    assert runner.run(check_id, "first") == "already recorded as version 1"
    assert [e.version for e in runner.store.versions(check_id)] == [1]
    assert runner.service.job(check_id, "first").state is JobState.DONE


def test_a_job_held_by_a_dead_worker_runs_again_after_its_lease(runner: JobRunner, clock: FakeClock) -> None:
    check_id = submit_sample(runner)
    assert runner.service.claim(check_id, "first", clock.now, runner.config.lease) is not None  # then died
    assert runner.dispatch_due() == 0  # still leased: nobody else may take it
    clock.advance(seconds=runner.config.lease.total_seconds() + 1)
    ran: list[tuple[str, str]] = []
    runner.enqueue = lambda c, k: ran.append((c, k))
    assert runner.dispatch_due() == 1 and ran == [(check_id, "first")]
    assert runner.run(check_id, "first") == "recorded version 1"
    assert runner.service.job(check_id, "first").attempts == 2


def test_search_unavailable_holds_the_check_pending_and_retries_on_schedule(
    runner: JobRunner, clock: FakeClock, providers: Providers
) -> None:
    working = providers.current
    providers.current = [FailingSearch()]
    check_id = submit_sample(runner)
    start = clock.now
    assert runner.run(check_id, "first").startswith("search_unavailable")
    request = runner.service.request(check_id)
    assert request.state is RequestState.PENDING and request.state_reason == "search_unavailable"
    retries = [j for j in runner.service.jobs(check_id) if j.run_key.startswith("search-retry")]
    assert [(j.run_key, j.due_at - start) for j in retries] == [("search-retry-1", timedelta(minutes=10))]
    clock.advance(minutes=10)
    runner.run(check_id, "search-retry-1")
    clock.advance(minutes=20)
    runner.run(check_id, "search-retry-2")
    due = {j.run_key: j.due_at - start for j in runner.service.jobs(check_id)}
    assert due["search-retry-2"] == timedelta(minutes=30) and due["search-retry-3"] == timedelta(hours=2)
    assert runner.service.request(check_id).state is RequestState.PENDING
    clock.advance(minutes=90)
    assert runner.run(check_id, "search-retry-3") == "recorded version 1"  # the last retry records
    version = runner.store.latest(check_id)
    assert version.label == "unverifiable"  # no search evidence: ❔, never ❌
    assert "search still unavailable" in version.what_changed
    providers.current = working


def test_search_coming_back_records_the_version_on_the_retry(
    runner: JobRunner, clock: FakeClock, providers: Providers
) -> None:
    working = providers.current
    providers.current = [FailingSearch()]
    check_id = submit_sample(runner)
    runner.run(check_id, "first")
    providers.current = working
    clock.advance(minutes=10)
    assert runner.run(check_id, "search-retry-1") == "recorded version 1"
    assert runner.store.latest(check_id).label == "supported"
    assert not [j for j in runner.service.jobs(check_id) if j.state is JobState.SCHEDULED]


def test_invalid_input_is_refused_before_anything_is_queued(runner: JobRunner) -> None:
    with pytest.raises(CaptureFailed, match=r"no_parent: .*not a reply"):
        payload = sample_payload()
        payload["data"].pop("referenced_tweets")
        runner.submit(CheckInput(payload=payload))
    assert runner.service.recent() == []


def test_an_error_quoting_a_nul_character_is_logged_and_the_check_fails_in_words(
    runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # PostgreSQL text columns refuse NUL: storing the error as given would fail and leave the check 'running'
    check_id = submit_sample(runner)

    def failing(*_: object) -> str:
        raise RuntimeError("X API answered: invalid id 1\x00 2 [SQL: UPDATE checks SET headline=%(h)s]")

    with monkeypatch.context() as patch:
        patch.setattr(runner, "_execute", failing)
        for _ in range(runner.config.max_attempts):
            outcome = runner.run(check_id, "first")
            clock.advance(days=1)
    assert outcome.startswith("gave up: RuntimeError: X API answered")  # what the worker logs
    assert "invalid id 1\x00 2" in caplog.text  # the whole error, in the log
    job = runner.service.job(check_id, "first")
    request = runner.service.request(check_id)
    assert job.state is JobState.DONE and request.state is RequestState.FAILED
    assert request.state_reason == "error"
    for public in (request.detail, job.outcome, runner.service.events(check_id)[-1].data["detail"]):
        assert public is not None and public.startswith("all 3 attempts failed with an internal error")
        assert "SQL" not in public and "RuntimeError" not in public and "invalid id" not in public


def test_a_capture_failure_quoting_a_nul_character_fails_the_check(
    runner: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_id = submit_sample(runner)

    def refused(*_: object) -> None:
        raise CaptureFailed("x_api_error", "the X API said: not found\x00")

    monkeypatch.setattr(runner, "_subject", refused)
    assert runner.run(check_id, "first").startswith("capture failed: x_api_error")
    request = runner.service.request(check_id)
    assert request.state is RequestState.FAILED and request.detail == "the X API said: not found\ufffd"
    assert runner.service.job(check_id, "first").state is JobState.DONE
    assert runner.service.events(check_id)[-1].data["detail"] == request.detail


def _database_down(*_: object, **__: object) -> None:
    raise OperationalError("UPDATE jobs", {}, Exception("connection refused"))


def test_a_job_that_failed_during_an_outage_is_given_back_at_the_next_dispatch(
    runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner.config = replace(runner.config, lease=runner.config.error_backoff * 3)  # outlasts the backoff
    check_id = submit_sample(runner)

    def failing(*_: object) -> str:
        raise OperationalError("SELECT", {}, Exception("connection refused"))

    with monkeypatch.context() as patch:
        patch.setattr(runner, "_execute", failing)
        patch.setattr(runner.service, "release", _database_down)
        assert runner.run(check_id, "first").startswith("error, will retry once the database answers")
        with pytest.raises(OperationalError):
            runner.dispatch_due()  # still down: the hand-back stays pending
    assert runner.service.job(check_id, "first").state is JobState.RUNNING  # leased, as the outage left it
    clock.advance(seconds=runner.config.error_backoff.total_seconds())
    ran: list[tuple[str, str]] = []
    runner.enqueue = lambda c, k: ran.append((c, k))
    assert runner.dispatch_due() == 1 and ran == [(check_id, "first")]  # well before the lease runs out
    assert clock.now - START < runner.config.lease
    assert runner.run(check_id, "first") == "recorded version 1"
    assert runner.dispatch_due() == 0  # nothing left pending


def test_a_late_hand_back_leaves_a_job_another_worker_has_claimed(
    runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_id = submit_sample(runner)
    with monkeypatch.context() as patch:
        patch.setattr(runner, "_execute", _database_down)
        patch.setattr(runner.service, "release", _database_down)
        runner.run(check_id, "first")
    clock.advance(seconds=runner.config.lease.total_seconds() + 1)  # the outage outlasted the lease
    claimed = runner.service.claim(check_id, "first", clock.now, runner.config.lease)  # another worker
    assert claimed is not None and claimed.attempts == 2
    runner.dispatch_due()
    job = runner.service.job(check_id, "first")
    assert job.state is JobState.RUNNING and job.attempts == 2  # not handed back under the other worker
