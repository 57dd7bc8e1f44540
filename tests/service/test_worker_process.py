"""A real `icarus worker` process killed in the middle of a check: the job runs again, one version results.

The worker searches a local fake SearXNG that holds the first request open, so the test knows the check
is in flight when it kills the process (SIGKILL: no clean-up of any kind runs).
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
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from icarus.jobs.inputs import CheckInput
from icarus.jobs.queue import bind_tasks, create_huey
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.tables import JobState, RequestState
from tests.service.conftest import Providers, make_services

WORKER_START_S = 120.0  # a cold worker imports the whole pipeline; slow on a busy machine


class HangingSearch:
    def __init__(self) -> None:
        self.hit = threading.Event()
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.hit.set()
                outer.release.wait(timeout=WORKER_START_S)
                body = b'{"results": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def search() -> Iterator[HangingSearch]:
    fake = HangingSearch()
    yield fake
    fake.close()


def test_a_worker_killed_mid_check_leads_to_exactly_one_version(
    tmp_path: Path, corpus_file: Path, search: HangingSearch, providers: Providers
) -> None:
    url = f"sqlite:///{tmp_path / 'icarus.db'}"
    env = (
        {key: value for key, value in os.environ.items() if not key.startswith("ICARUS_")}
        | {
            "ICARUS_DATA_DIR": str(tmp_path),
            "ICARUS_OFFLINE": "1",  # no look-up reaches the internet (tests/conftest.py)
            "ICARUS_DATABASE_URL": url,
            "ICARUS_CORPUS_PATH": str(corpus_file),
            "ICARUS_SEARXNG_URL": search.url,
            "ICARUS_FETCH_TIMEOUT_S": str(WORKER_START_S),
            "ICARUS_QUEUE_NAME": f"test-{uuid.uuid4().hex[:8]}",
        }
    )
    settings = Settings(data_dir=tmp_path, database_url=url, queue_name=env["ICARUS_QUEUE_NAME"])
    store = Store(url).open()
    lease = timedelta(seconds=settings.job_lease_s)
    tasks = bind_tasks(create_huey(settings))
    submitter = JobRunner(store, make_services(tmp_path, providers), enqueue=tasks.enqueue, settings=settings)
    check_id = submitter.submit(CheckInput(text="Container traffic at Halden harbor fell 12% in October."))

    worker = subprocess.Popen(
        [sys.executable, "-m", "icarus.cli", "worker", "--threads", "1"],
        env=env,
        cwd=Path(__file__).parents[2],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert search.hit.wait(timeout=WORKER_START_S), "the worker never started the check"
        assert store.versions(check_id) == []
        assert submitter.service.job(check_id, "first").state is JobState.RUNNING
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
    time.sleep(0.2)

    # Nothing half-written: no version, and the job is still leased to the dead worker.
    assert store.versions(check_id) == []
    assert submitter.service.request(check_id).state is RequestState.RUNNING

    # Once the lease runs out, the dispatcher hands the job to a live worker (here: in this process).
    later = datetime.now(UTC) + lease + timedelta(seconds=5)
    rescuer = JobRunner(store, make_services(tmp_path, providers), clock=lambda: later, settings=settings)
    ran: list[str] = []
    rescuer.enqueue = lambda c, k: ran.append(rescuer.run(c, k))
    assert rescuer.dispatch_due() == 1
    assert ran == ["recorded version 1"]
    assert rescuer.dispatch_due() == 0
    assert [entry.version for entry in store.versions(check_id)] == [1]
    job = rescuer.service.job(check_id, "first")
    assert job.state is JobState.DONE and job.attempts == 2
    store.close()
