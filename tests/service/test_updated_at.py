"""A check's ``updated_at`` moves when a version is recorded, not only when its run began."""

from __future__ import annotations

from typing import Any

from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from tests.service.conftest import FakeClock, sample_payload

CHECK_SECONDS = 90


def slow_checks(runner: JobRunner, clock: FakeClock) -> None:
    """Every run takes ``CHECK_SECONDS`` between starting and recording its version."""
    original = runner._record

    def slow(*args: Any) -> str:
        clock.advance(seconds=CHECK_SECONDS)
        return original(*args)

    runner._record = slow  # type: ignore[method-assign,assignment]


def test_updated_at_is_when_each_version_was_recorded(runner: JobRunner, clock: FakeClock) -> None:
    slow_checks(runner, clock)
    check_id = runner.submit(CheckInput(payload=sample_payload()))
    submitted = runner.service.request(check_id).updated_at
    assert runner.run(check_id, "first") == "recorded version 1"
    first = runner.service.request(check_id).updated_at
    assert first == clock.now and (first - submitted).total_seconds() == CHECK_SECONDS
    clock.advance(hours=1)
    run_key = runner.request_run(check_id, correction=False, note="asked again")
    assert runner.run(check_id, run_key) == "recorded version 2"
    assert runner.service.request(check_id).updated_at == clock.now > first
