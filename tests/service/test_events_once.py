"""A version is announced once: a worker that dies after recording (before or after announcing it, before
closing its job) leaves one ``recorded`` status and one ``version`` event for the rerun to find."""

from __future__ import annotations

import pytest

from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from tests.service.conftest import FakeClock, sample_payload


def _killed(*_: object, **__: object) -> None:
    raise KeyboardInterrupt  # the process stops here, deterministically


def _announcements(runner: JobRunner, check_id: str) -> list[tuple[str, object]]:
    return [
        (event.kind, event.data.get("version", event.data.get("state")))
        for event in runner.service.events(check_id)
        if event.kind == "version" or event.data.get("state") == "recorded"
    ]


@pytest.mark.parametrize("dies_in", ["finish", "recorded"])
def test_a_worker_dying_between_record_and_close_announces_the_version_once(
    runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, dies_in: str
) -> None:
    check_id = runner.submit(CheckInput(payload=sample_payload()))
    with monkeypatch.context() as patch:
        patch.setattr(runner.service, dies_in, _killed)
        with pytest.raises(KeyboardInterrupt):
            runner.run(check_id, "first")
    clock.advance(seconds=runner.config.lease.total_seconds() + 1)
    runner.heartbeat()  # another worker hands the stranded job out again
    assert runner.run(check_id, "first") == "already recorded as version 1"
    assert _announcements(runner, check_id) == [("status", "recorded"), ("version", 1)]
    ids = [event.id for event in runner.service.events(check_id)]
    assert ids == sorted(set(ids))  # the SSE id of each event is its own, increasing


def test_each_new_version_is_announced(runner: JobRunner, clock: FakeClock) -> None:
    check_id = runner.submit(CheckInput(payload=sample_payload()))
    runner.run(check_id, "first")
    key = runner.request_run(check_id, correction=False, note="new reporting")
    runner.run(check_id, key)
    assert _announcements(runner, check_id) == [
        ("status", "recorded"),
        ("version", 1),
        ("status", "recorded"),
        ("version", 2),
    ]
