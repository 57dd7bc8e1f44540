"""Pruning the event streams' history: old events go, the newest stays, ids keep growing; the daily task
is bound to the runner's pruning (SQLite, and PostgreSQL when CI provides one)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from icarus.jobs.queue import bind_tasks, create_huey
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from tests.service.conftest import FakeClock


def test_events_older_than_the_retention_are_deleted(runner: JobRunner, clock: FakeClock) -> None:
    service = runner.service
    service.add_event("a", "progress", {"step": 1}, clock.now)
    clock.advance(days=10)
    service.add_event("a", "progress", {"step": 2}, clock.now)
    clock.advance(days=25)
    service.add_event("b", "state", {"state": "recorded"}, clock.now)
    assert runner.settings.event_retention_days == 30
    assert runner.prune_events() == 1  # only the one 35 days old
    assert [e.data for e in service.events("a")] == [{"step": 2}]
    assert runner.prune_events() == 0  # idempotent
    clock.advance(days=31)
    assert runner.prune_events() == 1
    assert [e.check_id for e in service.all_events()] == ["b"]


def test_the_newest_event_stays_so_ids_keep_growing(runner: JobRunner, clock: FakeClock) -> None:
    service = runner.service
    assert service.prune_events(clock.now) == 0  # nothing recorded yet
    for step in range(3):
        service.add_event("a", "progress", {"step": step}, clock.now)
    newest = service.last_event_id()
    clock.advance(days=90)
    assert runner.prune_events() == 2
    assert service.last_event_id() == newest
    service.add_event("a", "progress", {"step": 3}, clock.now)
    assert [e.id for e in service.events("a", after=newest)] == [newest + 1]


def test_the_daily_prune_task_runs_the_bound_callable(tmp_path: Path) -> None:
    huey = create_huey(Settings(data_dir=tmp_path, redis_url=None))
    pruned: list[bool] = []
    tasks = bind_tasks(huey, prune=lambda: pruned.append(True))
    tasks.prune.call_local()
    assert pruned == [True]
    due = {type(task).__name__ for task in huey.read_periodic(datetime(2026, 12, 1, 3, 17))}
    assert "icarus.prune_events" in due  # once a day, at 03:17
    assert "icarus.prune_events" not in {
        type(t).__name__ for t in huey.read_periodic(datetime(2026, 12, 1, 4, 17))
    }
