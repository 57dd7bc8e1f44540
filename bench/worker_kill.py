"""SIGKILL one of two real `icarus worker` processes while checks are in flight, and measure what follows.

Run by ``bench/service.py`` and by ``tests/service/test_worker_kill.py``. The workers search a local fake
SearXNG that answers each query after a short delay, so checks stay in flight long enough for the kill to
land in the middle of them. Leases and heartbeats are short (settings), so the test takes seconds, not
minutes; the measurement is the same with the defaults, only slower.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Final

from sqlalchemy import func, select

from icarus.jobs.inputs import CheckInput
from icarus.jobs.queue import bind_tasks, create_huey
from icarus.jobs.runner import JobRunner, settings_services
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.tables import Job, JobState, ReportVersion

__all__ = ["KillOutcome", "SlowSearch", "kill_one_of_two_workers"]

ROOT: Final = Path(__file__).parents[1]
WORKER_START_S: Final = 180.0  # a cold worker imports the whole pipeline; slow on a busy machine
STRANDED_LIMIT_S: Final = 60.0
POLL_S: Final = 0.2


class SlowSearch:
    """A SearXNG stand-in on ``host`` (loopback by default): every query answers no results after
    ``delay_s``."""

    def __init__(self, delay_s: float, host: str = "127.0.0.1") -> None:
        self.queries = 0
        self.delay_s = delay_s  # may be changed while it runs
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.queries += 1
                time.sleep(outer.delay_s)
                body = b'{"results": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass(frozen=True)
class KillOutcome:
    """What happened after the kill. ``stranded_s``: seconds from the kill until the last job that was
    running at the kill had finished or been handed out again (None if that never happened);
    ``stranded_at_limit``: how many of those were still ``running`` under the same lease 60 s after the kill;
    ``rerun_s``: seconds until each of them was done or running again under a new lease."""

    checks: int
    running_at_kill: int
    recorded: int
    recorded_once: int
    versions: int
    stranded_s: float | None
    rerun_s: float | None
    stranded_at_limit: int
    all_recorded_s: float | None
    worker_exit: int


def _worker_env(
    folder: Path,
    db_url: str,
    redis_url: str | None,
    corpus: Path,
    search_url: str,
    lease_s: float,
    heartbeat_s: float,
) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ICARUS_")}
    env |= {
        "ICARUS_DATA_DIR": str(folder),
        "ICARUS_OFFLINE": "1",  # the figures are the workers' own, not the look-ups' services
        "ICARUS_DATABASE_URL": db_url,
        "ICARUS_CORPUS_PATH": str(corpus),
        "ICARUS_SEARXNG_URL": search_url,
        "ICARUS_OFFLINE_JUDGE": "offline-lexical@1",
        "ICARUS_FETCH_CITED_LINKS": "false",
        "ICARUS_CHECK_MAX_QUERIES": "4",
        "ICARUS_CHECK_MAX_CLAIMS": "1",
        "ICARUS_QUEUE_NAME": f"kill-{uuid.uuid4().hex[:8]}",
        "ICARUS_JOB_LEASE_S": str(lease_s),
        "ICARUS_JOB_HEARTBEAT_S": str(heartbeat_s),
        "ICARUS_WORKER_GRACE_S": "2",
    }
    if redis_url:
        env["ICARUS_REDIS_URL"] = redis_url
    return env


@contextmanager
def _workers(env: dict[str, str], folder: Path, count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    try:
        for n in range(count):
            log = (folder / f"worker-{n}.log").open("wb")
            started.append(
                subprocess.Popen(
                    [sys.executable, "-m", "icarus.cli", "worker", "--threads", "2"],
                    env=env,
                    cwd=ROOT,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        yield started
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)


def _rerun(store: Store, at_kill: dict[int, int]) -> bool:
    """Every job running at the kill is done, or was claimed again since (a higher attempt number)."""
    with store.reading() as session:
        rows = session.execute(select(Job.id, Job.state, Job.attempts).where(Job.id.in_(list(at_kill)))).all()
    return all(state == JobState.DONE or attempts > at_kill[job_id] for job_id, state, attempts in rows)


def _running(store: Store) -> dict[int, int]:
    with store.reading() as session:
        rows = session.execute(select(Job.id, Job.attempts).where(Job.state == JobState.RUNNING)).all()
        return {int(job_id): int(attempts) for job_id, attempts in rows}


def _recorded(store: Store, check_ids: list[str]) -> tuple[int, int, int]:
    """(checks recorded, checks with exactly one version, versions in all)."""
    with store.reading() as session:
        counts = dict(
            session.execute(
                select(ReportVersion.check_id, func.count()).group_by(ReportVersion.check_id)
            ).all()
        )
    ours = [int(counts.get(check_id, 0)) for check_id in check_ids]
    return sum(1 for n in ours if n), sum(1 for n in ours if n == 1), sum(ours)


def kill_one_of_two_workers(
    folder: Path,
    db_url: str,
    corpus: Path,
    *,
    redis_url: str | None = None,
    checks: int = 50,
    search_delay_s: float = 0.2,
    finish_within_s: float = 240.0,
    lease_s: float = 4.0,
    heartbeat_s: float = 1.0,
) -> KillOutcome:
    """Submit ``checks`` checks, start two workers, SIGKILL one once both are running checks, then wait
    until every check is recorded (or ``finish_within_s`` passes) and say what happened."""
    search = SlowSearch(search_delay_s)
    env = _worker_env(folder, db_url, redis_url, corpus, search.url, lease_s, heartbeat_s)
    settings = Settings(
        data_dir=folder, database_url=db_url, redis_url=redis_url, queue_name=env["ICARUS_QUEUE_NAME"]
    )
    store = Store(db_url).open()
    try:
        submitter = JobRunner(store, settings_services(settings), settings=settings)  # submits only
        submitter.enqueue = bind_tasks(create_huey(settings)).enqueue
        check_ids = [
            submitter.submit(CheckInput(text=f"Container traffic at Halden harbor fell {n + 1}% in October."))
            for n in range(checks)
        ]
        with _workers(env, folder, 2) as (victim, survivor):
            deadline = time.monotonic() + WORKER_START_S
            while len(_running(store)) < 3:  # both workers have taken checks (two threads each)
                if time.monotonic() > deadline or victim.poll() is not None or survivor.poll() is not None:
                    raise RuntimeError(f"the workers never ran checks together; see {folder}/worker-*.log")
                time.sleep(POLL_S)
            at_kill = _running(store)
            os.kill(victim.pid, signal.SIGKILL)
            killed = time.monotonic()
            victim.wait(timeout=30)
            stranded_s: float | None = None
            rerun_s: float | None = None
            stranded_at_limit = -1
            all_recorded_s: float | None = None
            while time.monotonic() - killed < finish_within_s:
                now = time.monotonic() - killed
                running = _running(store)
                stuck = {job for job, attempts in at_kill.items() if running.get(job) == attempts}
                if stranded_s is None and not stuck:
                    stranded_s = now
                if rerun_s is None and _rerun(store, at_kill):
                    rerun_s = now
                if stranded_at_limit < 0 and now >= STRANDED_LIMIT_S:
                    stranded_at_limit = len(stuck)
                recorded = _recorded(store, check_ids)[0]
                if recorded == checks and stranded_s is not None and rerun_s is not None:
                    all_recorded_s = now
                    break
                time.sleep(POLL_S)
            if stranded_at_limit < 0:  # everything was done before the limit
                stranded_at_limit = 0 if stranded_s is not None else len(at_kill)
            recorded, once, versions = _recorded(store, check_ids)
            return KillOutcome(
                checks=checks,
                running_at_kill=len(at_kill),
                recorded=recorded,
                recorded_once=once,
                versions=versions,
                stranded_s=None if stranded_s is None else round(stranded_s, 2),
                rerun_s=None if rerun_s is None else round(rerun_s, 2),
                stranded_at_limit=stranded_at_limit,
                all_recorded_s=None if all_recorded_s is None else round(all_recorded_s, 2),
                worker_exit=victim.returncode,
            )
    finally:
        store.close()
        search.close()
