"""Stopping workers: SIGTERM hands unfinished checks back at once and exits cleanly; a supervised worker
that dies is started again, and the restart is logged."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from bench.worker_kill import ROOT, WORKER_START_S

from icarus.jobs.inputs import CheckInput
from icarus.jobs.queue import bind_tasks, create_huey
from icarus.jobs.runner import JobRunner, settings_services
from icarus.jobs.supervisor import WorkerSupervisor
from icarus.settings import Settings
from icarus.store import Store, WorkerRegistry
from icarus.store.service import WORKER_STOPPED
from icarus.store.tables import JobState, RequestState
from tests.service.test_worker_process import HangingSearch

GRACE_S = 1.0


def test_sigterm_hands_the_running_check_back_and_exits_cleanly(tmp_path: Path, corpus_file: Path) -> None:
    search = HangingSearch()  # holds every query open: the check cannot finish within the grace period
    url = f"sqlite:///{tmp_path / 'icarus.db'}"
    queue = f"stop-{uuid.uuid4().hex[:8]}"
    env = {key: value for key, value in os.environ.items() if not key.startswith("ICARUS_")} | {
        "ICARUS_DATA_DIR": str(tmp_path),
        "ICARUS_OFFLINE": "1",  # no look-up reaches the internet (tests/conftest.py)
        "ICARUS_DATABASE_URL": url,
        "ICARUS_CORPUS_PATH": str(corpus_file),
        "ICARUS_SEARXNG_URL": search.url,
        "ICARUS_OFFLINE_JUDGE": "offline-lexical@1",
        "ICARUS_QUEUE_NAME": queue,
        "ICARUS_WORKER_GRACE_S": str(GRACE_S),
        "ICARUS_JOB_HEARTBEAT_S": "1",
    }
    settings = Settings(data_dir=tmp_path, database_url=url, queue_name=queue)
    store = Store(url).open()
    submitter = JobRunner(store, settings_services(settings), settings=settings)
    submitter.enqueue = bind_tasks(create_huey(settings)).enqueue
    check_id = submitter.submit(CheckInput(text="Container traffic at Halden harbor fell 12% in October."))
    worker = subprocess.Popen(
        [sys.executable, "-m", "icarus.cli", "worker", "--threads", "1"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        assert search.hit.wait(timeout=WORKER_START_S), "the worker never started the check"
        assert submitter.service.job(check_id, "first").state is JobState.RUNNING
        stopping = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=GRACE_S + 30)
        stopped_in = time.monotonic() - stopping
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        search.close()
    log = output.decode(errors="replace")
    assert worker.returncode == 0, log
    assert "terminate called" not in log
    assert "handed back" in log
    assert stopped_in < GRACE_S + 20
    job = submitter.service.job(check_id, "first")
    assert job.state is JobState.SCHEDULED and job.attempts == 1  # due now, for the next worker
    request = submitter.service.request(check_id)
    assert request.state is RequestState.QUEUED and request.state_reason == WORKER_STOPPED
    assert store.versions(check_id) == []
    [info] = WorkerRegistry(store).recent()
    assert info.stopped_at is not None and info.jobs_held == 0
    store.close()


def test_a_supervised_worker_that_dies_is_restarted_and_the_restart_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    command = [sys.executable, "-c", "import time; time.sleep(120)"]
    supervisor = WorkerSupervisor(command, grace_s=1)
    caplog.set_level(logging.WARNING, logger="icarus.serve")
    supervisor.start()
    try:
        first = supervisor.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while supervisor.restarts == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert supervisor.restarts == 1 and supervisor.pid not in (None, first)
    finally:
        supervisor.stop()
    assert any(f"worker {first} exited with code -9" in r.getMessage() for r in caplog.records)
    assert any("worker restarted as process" in r.getMessage() for r in caplog.records)
