"""H4 from the service: a worker's recorded version queues its review requests, in the queue the settings
name, from the registry the worker scored with; and writers in several processes and threads at once
neither lose nor repeat an item."""

from __future__ import annotations

import json
import multiprocessing
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from icarus.jobs.runner import JobRunner, settings_services
from icarus.ledger import Directness, Ledger, ReputationMethod
from icarus.reputation import load_registry
from icarus.reputation.review import enqueue_from_result, lock_path, pending, read_queue
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.settings import Settings
from icarus.store import Store
from tests.builders import item, ledger
from tests.pipeline.conftest import UNREVIEWED, registry_without
from tests.service.conftest import EXAMPLES, FakeClock, Providers, make_services
from tests.service.test_runner import submit_sample

WRITERS = 6
DOMAINS = 30
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def partial_runner(url: str, tmp_path: Path, clock: FakeClock, providers: Providers) -> JobRunner:
    """A runner whose services score with the sample registry less one of the post's two origins."""
    store = Store(url, clock=clock).open()
    registry = load_registry(registry_without(UNREVIEWED, tmp_path / "partial.json"))
    return JobRunner(
        store,
        make_services(tmp_path, providers, registry),
        clock=clock,
        settings=Settings(data_dir=tmp_path, review_queue_path=tmp_path / "queues" / "h4.jsonl"),
    )


@pytest.fixture
def partial(db_url: str, tmp_path: Path, clock: FakeClock, providers: Providers) -> Iterator[JobRunner]:
    opened = partial_runner(db_url, tmp_path, clock, providers)
    yield opened
    opened.store.close()


def test_a_worker_run_queues_the_estimate_its_registry_left(partial: JobRunner, tmp_path: Path) -> None:
    check_id = submit_sample(partial)
    assert partial.run(check_id, "first") == "recorded version 1"
    version = partial.store.latest(check_id)
    assert version.label == "unverifiable"  # one origin on file, the other only estimated
    [queued] = pending(tmp_path / "queues" / "h4.jsonl")
    assert queued.domain == UNREVIEWED and queued.ledger_id == version.ledger()["ledger_id"]
    assert queued.estimate.method is ReputationMethod.HEURISTIC
    assert queued.queued_at == partial.clock()
    assert not (tmp_path / "review-queue.jsonl").exists()  # the setting, not the default place


def test_a_worker_scoring_with_the_full_registry_queues_nothing(runner: JobRunner, tmp_path: Path) -> None:
    check_id = submit_sample(runner)
    assert runner.run(check_id, "first") == "recorded version 1"
    assert runner.store.latest(check_id).label == "supported"
    assert not runner.settings.resolved_review_queue_path.exists()


def test_a_recheck_and_a_rerun_of_a_recorded_job_queue_the_domain_once(
    partial: JobRunner, tmp_path: Path, clock: FakeClock
) -> None:
    check_id = submit_sample(partial)
    partial.run(check_id, "first")
    run_key = partial.request_run(check_id, correction=False, note="again")
    assert partial.run(check_id, run_key) == "recorded version 2"
    assert [json.loads(line)["domain"] for line in (tmp_path / "queues" / "h4.jsonl").open()] == [UNREVIEWED]


def test_a_version_recorded_before_its_worker_stopped_is_queued_when_the_job_runs_again(
    partial: JobRunner, tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_id = submit_sample(partial)

    def killed(*_: object) -> None:
        raise KeyboardInterrupt  # the process stops after recording the version, before queueing

    with monkeypatch.context() as patch:
        patch.setattr(partial, "_queue_reviews", killed)
        with pytest.raises(KeyboardInterrupt):
            partial.run(check_id, "first")
    assert not (tmp_path / "queues" / "h4.jsonl").exists()
    clock.advance(seconds=partial.config.lease.total_seconds() + 1)
    assert partial.run(check_id, "first") == "already recorded as version 1"
    assert [i.domain for i in pending(tmp_path / "queues" / "h4.jsonl")] == [UNREVIEWED]


def test_a_queue_that_cannot_be_written_does_not_fail_the_job(
    partial: JobRunner, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "queues" / "h4.jsonl").mkdir(parents=True)  # a folder where the file should be
    check_id = submit_sample(partial)
    assert partial.run(check_id, "first") == "recorded version 1"
    assert "review queue" in caplog.text and "not written" in caplog.text


def test_the_worker_services_load_the_reputation_files_setting(tmp_path: Path) -> None:
    partial = registry_without(UNREVIEWED, tmp_path / "partial.json")
    full = EXAMPLES / "sample-corpus" / "reputation.json"
    base = {"data_dir": tmp_path, "offline_judge": "offline-lexical@1", "fetch_cited_links": False}
    shipped_only = settings_services(Settings(**base))(None).registry
    both = settings_services(Settings(**base, reputation_files=(full, partial)))(None).registry
    just_partial = settings_services(Settings(**base, reputation_files=(partial,)))(None).registry
    assert shipped_only.lookup(UNREVIEWED).record.method is ReputationMethod.HEURISTIC
    assert both.lookup(UNREVIEWED).record.method is ReputationMethod.MANUAL
    assert just_partial.lookup(UNREVIEWED).record.method is ReputationMethod.HEURISTIC
    assert just_partial.lookup("haldenport.example").record.method is ReputationMethod.MANUAL


def test_the_reputation_files_setting_reads_the_path_separator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", "/srv/a.json:/srv/b c.json:")
    assert Settings().reputation_files == (Path("/srv/a.json"), Path("/srv/b c.json"))
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", "")
    assert Settings().reputation_files == ()


def test_diagnostics_name_the_reputation_files_and_the_queue(partial: JobRunner, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from icarus.api import create_app
    from icarus.store.tokens import Role
    from tests.service.test_api import FixedStatuses, token

    check_id = submit_sample(partial)
    partial.run(check_id, "first")
    files = (tmp_path / "partial.json",)
    settings = partial.settings.model_copy(update={"reputation_files": files})
    app = create_app(settings, runner=partial, enqueue=lambda c, k: None, status_source=FixedStatuses())
    with TestClient(app) as client:
        answer = client.get("/v1/admin/diagnostics", headers=token(partial, Role.ADMIN)).json()
    assert answer["reputation_files"] == [str(tmp_path / "partial.json")]
    assert answer["review_queue"] == str(tmp_path / "queues" / "h4.jsonl")
    assert answer["review_pending"] == 1


# --- several writers at once ------------------------------------------------------------------------------


def estimated(domain: str) -> tuple[dict[str, Any], Ledger]:
    """A scored one-claim ledger whose estimated source ``domain`` could change the label."""
    led = ledger(
        [
            item(
                "e",
                domain=domain,
                score="0.75",
                method=ReputationMethod.HEURISTIC,
                directness=Directness.PRIMARY_DOCUMENT,
                confidence="1.00",
            ),
            item("a"),
        ],
        ledger_id=f"ledger-{domain}",
    )
    return score_ledger(led, load_policy("icarus@1.1")), led


def _write_all(queue: Path, scored: list[tuple[dict[str, Any], Ledger]], start: Any) -> None:
    start.wait()
    for result, led in scored:
        enqueue_from_result(result, led, queue, NOW)


def _queued_domains(queue: Path) -> list[str]:
    state = read_queue(queue)
    assert state.problems == []  # every line whole
    return [i.domain for i in state.pending]


@pytest.fixture(scope="module")
def scored() -> list[tuple[dict[str, Any], Ledger]]:
    pairs = [estimated(f"site-{n:02d}.example") for n in range(DOMAINS)]
    assert all(result["claims"][0]["review_requests"] for result, _ in pairs)
    return pairs


def test_worker_processes_appending_at_once_queue_every_domain_exactly_once(
    tmp_path: Path, scored: list[tuple[dict[str, Any], Ledger]]
) -> None:
    queue = tmp_path / "review-queue.jsonl"
    context = multiprocessing.get_context("fork")
    start = context.Barrier(WRITERS)
    # every writer queues every domain, each in its own order: without the lock two writers both read a
    # domain as new and both append it
    orders = [scored[n:] + scored[:n] for n in range(0, WRITERS * 7, 7)]
    writers = [context.Process(target=_write_all, args=(queue, order, start)) for order in orders]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
        assert writer.exitcode == 0
    assert sorted(_queued_domains(queue)) == sorted(led.evidence[0].domain for _, led in scored)
    assert len(queue.read_text().splitlines()) == DOMAINS
    assert lock_path(queue).exists()


def test_worker_threads_appending_at_once_queue_every_domain_exactly_once(
    tmp_path: Path, scored: list[tuple[dict[str, Any], Ledger]]
) -> None:
    queue = tmp_path / "review-queue.jsonl"
    start = threading.Barrier(WRITERS)
    orders = [scored[n:] + scored[:n] for n in range(0, WRITERS * 7, 7)]
    threads = [threading.Thread(target=_write_all, args=(queue, order, start)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(_queued_domains(queue)) == sorted(led.evidence[0].domain for _, led in scored)
    assert len(queue.read_text().splitlines()) == DOMAINS


def test_a_writer_holding_the_lock_keeps_the_others_waiting(
    tmp_path: Path, scored: list[tuple[dict[str, Any], Ledger]]
) -> None:
    from icarus.reputation import review

    queue = tmp_path / "review-queue.jsonl"
    done = threading.Event()
    with review._locked(queue):
        writer = threading.Thread(target=lambda: (_write_all(queue, scored[:1], _Go()), done.set()))
        writer.start()
        assert not done.wait(timeout=0.5)  # blocked on the lock
        assert not queue.exists()
    writer.join(timeout=30)
    assert done.is_set() and len(_queued_domains(queue)) == 1


class _Go:
    def wait(self) -> None:
        return None


def test_a_worker_refuses_to_start_on_a_reputation_file_it_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from icarus.cli import app

    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv(
        "ICARUS_REPUTATION_FILES", f"{EXAMPLES / 'sample-corpus' / 'reputation.json'}:{broken}"
    )
    started: list[object] = []
    monkeypatch.setattr("icarus.jobs.worker.run_worker", lambda *args: started.append(args))
    refused = CliRunner().invoke(app, ["worker"])
    assert refused.exit_code == 2, refused.output
    assert "ICARUS_REPUTATION_FILES" in refused.output and str(broken) in refused.output
    assert started == []
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", str(EXAMPLES / "sample-corpus" / "reputation.json"))
    assert CliRunner().invoke(app, ["worker"]).exit_code == 0 and len(started) == 1
