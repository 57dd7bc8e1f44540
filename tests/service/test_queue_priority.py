"""Runs handed back from a stopped worker go ahead of the waiting ones where the queue keeps priorities."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from icarus.jobs.queue import Tasks, bind_tasks, create_huey
from icarus.settings import Settings


def waiting(tasks: Tasks) -> list[tuple[Any, ...]]:
    huey = tasks.huey
    return [huey.deserialize_task(data).args for data in huey.storage.enqueued_items()]


def test_a_handed_back_run_is_queued_first_on_sqlite(tmp_path: Path) -> None:
    tasks = bind_tasks(
        create_huey(Settings(data_dir=tmp_path, redis_url=None, queue_name=f"q-{uuid.uuid4().hex[:8]}"))
    )
    tasks.enqueue("a", "first")
    tasks.enqueue("b", "first")
    tasks.enqueue_first("c", "first")
    assert waiting(tasks)[0] == ("c", "first")


def test_without_priorities_a_handed_back_run_is_queued_last(tmp_path: Path) -> None:
    tasks = bind_tasks(
        create_huey(Settings(data_dir=tmp_path, redis_url=None, queue_name=f"q-{uuid.uuid4().hex[:8]}"))
    )
    original = tasks.huey.storage.enqueue

    def no_priorities(data: bytes, priority: float | None = None) -> None:
        if priority:
            raise NotImplementedError("Task priorities are not supported by this storage.")  # as RedisHuey
        original(data, priority)

    tasks.huey.storage.enqueue = no_priorities
    tasks.enqueue("a", "first")
    tasks.enqueue_first("c", "first")
    assert [args[0] for args in waiting(tasks)] == ["a", "c"]


def test_a_handed_back_run_is_popped_first_on_redis(tmp_path: Path) -> None:
    redis_url = os.environ.get("ICARUS_REDIS_URL", "")
    if not redis_url.startswith("redis"):
        pytest.skip("ICARUS_REDIS_URL is not a Redis URL; the Redis queue test is skipped")
    settings = Settings(data_dir=tmp_path, redis_url=redis_url, queue_name=f"q-{uuid.uuid4().hex[:8]}")
    tasks = bind_tasks(create_huey(settings))
    try:
        tasks.enqueue("a", "first")
        tasks.enqueue("b", "first")
        tasks.enqueue_first("c", "first")
        popped = [tasks.huey.deserialize_task(tasks.huey.storage.dequeue()).args for _ in range(3)]
        assert popped == [("c", "first"), ("a", "first"), ("b", "first")]
    finally:
        tasks.huey.storage.flush_queue()
