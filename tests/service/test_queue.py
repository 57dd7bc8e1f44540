"""The queue: SqliteHuey by default, RedisHuey (tested on a real Redis when ICARUS_REDIS_URL is set)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from huey import RedisHuey, SqliteHuey

from icarus.jobs.queue import bind_tasks, create_huey
from icarus.settings import Settings


def _round_trip(settings: Settings) -> list[tuple[str, str]]:
    huey = create_huey(settings)
    ran: list[tuple[str, str]] = []
    tasks = bind_tasks(huey, run=lambda c, k: ran.append((c, k)))
    try:
        tasks.enqueue("abc123", "first")
        tasks.enqueue("abc123", "recheck+15m")
        while (message := huey.dequeue()) is not None:
            huey.execute(message)
    finally:
        huey.flush()
    return ran


def test_the_embedded_queue_is_a_sqlite_file_in_the_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, redis_url=None)
    assert isinstance(create_huey(settings), SqliteHuey)
    assert _round_trip(settings) == [("abc123", "first"), ("abc123", "recheck+15m")]
    assert (tmp_path / "queue.db").is_file()


def test_the_redis_queue_carries_jobs_between_processes(tmp_path: Path) -> None:
    url = os.environ.get("ICARUS_REDIS_URL", "")
    if not url.startswith("redis"):
        pytest.skip("ICARUS_REDIS_URL is not set; the Redis queue test is skipped")
    import redis

    try:
        redis.Redis.from_url(url).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at ICARUS_REDIS_URL is not reachable: {exc}")
    settings = Settings(data_dir=tmp_path, redis_url=url, queue_name=f"icarus-test-{uuid.uuid4().hex[:8]}")
    assert isinstance(create_huey(settings), RedisHuey)
    assert _round_trip(settings) == [("abc123", "first"), ("abc123", "recheck+15m")]


def test_a_process_that_only_enqueues_refuses_to_run_jobs(tmp_path: Path) -> None:
    huey = create_huey(Settings(data_dir=tmp_path, redis_url=None))
    tasks = bind_tasks(huey)
    tasks.enqueue("abc123", "first")
    message = huey.dequeue()
    assert message is not None
    with pytest.raises(RuntimeError, match="icarus worker"):
        message.execute()
