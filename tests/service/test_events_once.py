"""A version is announced once: a worker that dies after recording (before or after announcing it, before
closing its job) leaves one ``recorded`` status and one ``version`` event for the rerun to find."""

from __future__ import annotations

import asyncio

import pytest

from icarus.api.sse import EventStream, format_event
from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from icarus.store import NotFound
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


def test_a_recheck_of_a_queued_check_says_it_has_no_version_yet(runner: JobRunner) -> None:
    check_id = runner.submit(CheckInput(payload=sample_payload()))
    with pytest.raises(NotFound, match=rf"check '{check_id}' has no version yet \(it is queued\)"):
        runner.request_run(check_id, correction=False, note=None)


def test_a_batch_of_events_is_one_write(runner: JobRunner) -> None:
    # A client that leaves mid-batch used to cost one failed socket write (and log line) per event left.
    check_id = runner.submit(CheckInput(payload=sample_payload()))
    runner.run(check_id, "first")
    events = runner.service.events(check_id)
    stream = EventStream(runner.service)._stream(None, check_id, 0, events, True)  # type: ignore[arg-type]

    async def chunks() -> list[str]:
        return [chunk async for chunk in stream]

    written = asyncio.run(chunks())
    assert len(events) > 3 and written == ["retry: 2000\n\n", "".join(format_event(e) for e in events)]
