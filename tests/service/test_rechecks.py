"""Rechecks: G1/G5/ongoing checks run again at +15 min, +1 h, +6 h, +24 h; repair is idempotent."""

from __future__ import annotations

from datetime import timedelta

import pytest

from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from icarus.jobs.schedule import Slot, missed_collapsed, recheck_slots, search_retry_slot, search_unavailable
from icarus.store.tables import JobState
from tests.service.conftest import START, FakeClock

SINGLE_ORIGIN = "The Halden council library now opens on Sundays."  # one page says so: G1
OFFSETS = [15, 60, 360, 1440]


def rechecks(runner: JobRunner, check_id: str) -> dict[str, tuple[timedelta, JobState]]:
    started = runner.store.versions(check_id)[0].as_of
    return {
        j.run_key: (j.due_at - started, j.state)
        for j in runner.service.jobs(check_id)
        if j.run_key.startswith("recheck+")
    }


def test_a_single_origin_check_is_rechecked_at_the_four_offsets(runner: JobRunner, clock: FakeClock) -> None:
    check_id = runner.submit(CheckInput(text=SINGLE_ORIGIN))
    runner.run(check_id, "first")
    assert "G1" in str(runner.store.latest(check_id).result()["claims"][0]["recheck"]["triggers"])
    planned = rechecks(runner, check_id)
    assert {key: due for key, (due, _) in planned.items()} == {
        f"recheck+{m}m": timedelta(minutes=m) for m in OFFSETS
    }
    ran: list[str] = []
    runner.enqueue = lambda c, k: ran.append(k)
    clock.advance(minutes=14)
    assert runner.dispatch_due() == 0
    clock.advance(minutes=1)
    assert runner.dispatch_due() == 1 and ran == ["recheck+15m"]
    assert runner.run(check_id, "recheck+15m") == "recorded version 2"
    second = runner.store.versions(check_id)[1]
    assert second.reason.value == "recheck" and second.what_changed.startswith("scheduled recheck at +15 min")
    assert rechecks(runner, check_id)["recheck+15m"][1] is JobState.DONE


def test_repair_schedules_what_is_missing_and_repeating_it_adds_nothing(
    runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:  # a crash right after the version: no rechecks were scheduled
        patch.setattr(runner, "_plan_rechecks", lambda *a: 0)
        check_id = runner.submit(CheckInput(text=SINGLE_ORIGIN))
        runner.run(check_id, "first")
    assert rechecks(runner, check_id) == {}
    assert runner.repair() == 4
    assert runner.repair() == 0
    assert len(rechecks(runner, check_id)) == 4


def test_slots_missed_while_down_collapse_into_one_catch_up(
    runner: JobRunner, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(runner, "_plan_rechecks", lambda *a: 0)
        check_id = runner.submit(CheckInput(text=SINGLE_ORIGIN))
        runner.run(check_id, "first")
    clock.advance(hours=7)  # +15 min, +1 h and +6 h all passed while nothing ran
    assert runner.repair() == 2
    assert set(rechecks(runner, check_id)) == {"recheck+360m", "recheck+1440m"}


def test_a_check_without_triggers_gets_no_rechecks(runner: JobRunner) -> None:
    from tests.service.conftest import sample_payload

    check_id = runner.submit(CheckInput(payload=sample_payload()))
    runner.run(check_id, "first")
    assert runner.store.latest(check_id).label == "supported"
    assert rechecks(runner, check_id) == {}
    assert runner.repair() == 0


def test_recheck_slots_and_the_catch_up_rule() -> None:
    slots = recheck_slots(START, OFFSETS)
    assert [s.due_at - START for s in slots] == [timedelta(minutes=m) for m in OFFSETS]
    assert missed_collapsed(slots, START, []) == slots
    assert missed_collapsed(slots, START + timedelta(minutes=15), []) == slots  # due exactly now: not lost
    assert [s.run_key for s in missed_collapsed(slots, START + timedelta(hours=2), ["recheck+15m"])] == [
        "recheck+60m",
        "recheck+360m",
        "recheck+1440m",
    ]
    assert missed_collapsed(slots, START + timedelta(days=2), [s.run_key for s in slots]) == []


def test_search_retry_offsets_count_from_the_first_failure() -> None:
    first = search_retry_slot("first", START, [10, 30, 120])
    assert first == Slot("search-retry-1", START + timedelta(minutes=10))
    late = START + timedelta(minutes=13)  # retry 1 ran three minutes late
    second = search_retry_slot("search-retry-1", late, [10, 30, 120])
    assert second == Slot("search-retry-2", START + timedelta(minutes=33))
    assert search_retry_slot("search-retry-3", START, [10, 30, 120]) is None


@pytest.mark.parametrize(
    ("statuses", "unavailable"),
    [
        (["error", "error"], True),
        (["error", "ok"], False),  # one search worked, even with no hits
        (["not_run", "not_run"], False),  # nothing configured is not an outage
        (["error", "not_run"], True),
        ([], False),
    ],
)
def test_search_unavailable_means_every_attempted_search_failed(
    statuses: list[str], unavailable: bool
) -> None:
    assert search_unavailable(statuses) is unavailable


def test_every_later_version_is_announced_once_and_a_failing_announcement_loses_nothing(
    runner: JobRunner, clock: FakeClock
) -> None:
    announced: list[tuple[str, int, str]] = []

    def announce(check_id: str, version: int, result: dict) -> None:  # type: ignore[type-arg]
        announced.append((check_id, version, result["overall"]["label"]))
        raise ConnectionError("X is down")

    runner.announce = announce
    check_id = runner.submit(CheckInput(text=SINGLE_ORIGIN))
    runner.run(check_id, "first")
    assert announced == []  # the first version is the bot's own reply, not a follow-up
    clock.advance(minutes=15)
    assert runner.run(check_id, "recheck+15m") == "recorded version 2"
    latest = runner.store.latest(check_id)
    assert announced == [(check_id, 2, latest.result()["overall"]["label"])]
    assert latest.version == 2 and len(runner.store.versions(check_id)) == 2


def test_the_default_announcement_is_the_x_bots_follow_up(
    runner: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import icarus.xbot

    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(
        icarus.xbot, "follow_up_on_new_version", lambda c, v, r, s: calls.append((c, v)) or []
    )
    runner.announce("abc", 3, {"overall": {"label": "supported"}})
    assert calls == [("abc", 3)]
