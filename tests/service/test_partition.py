"""Across hosts, with the network failing.

Workers and Redis run on hosts of their own (network namespaces on a private bridge, made and removed by the
test; PostgreSQL and the search listen on the bridge): a worker host cut off for three leases and healed
records nothing for the runs it lost, and every check is recorded exactly once; a Redis host cut off for
10 s under load answers every submission (none a 500, none lost) and its checks run as soon as it is back.
Skipped, with the reason, where network namespaces cannot be made (not root, no CAP_NET_ADMIN) or the
PostgreSQL or Redis server binaries are missing.

The fencing underneath is tested without namespaces too: a run whose lease moved on while every search
failed schedules no retry, and a worker that sees the queue answer again queues every due job at once.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.netns import NetnsUnavailable, why_not_permitted
from bench.partition import RUN_ENDED, CrossHostLab, cross_host_lab, drop_queue, partition_worker
from bench.pg_cluster import ClusterUnavailable

from icarus.jobs.heartbeat import Heartbeat
from icarus.jobs.inputs import CheckInput
from icarus.jobs.queue import REDIS_CONNECT_TIMEOUT_S, REDIS_READ_TIMEOUT_S
from icarus.jobs.runner import JobRunner
from icarus.jobs.schedule import FIRST_RUN
from icarus.research import PlannedQuery, ProviderResult
from icarus.store import WorkerRegistry
from icarus.store.tables import JobState, RequestState
from tests.service.conftest import FakeClock, Providers, open_runner

CLAIM = "Container traffic at Halden harbor fell 12% in October."
LEASE_S = 4.0  # short leases (ICARUS_JOB_LEASE_S), so a partition longer than a lease takes seconds
HEARTBEAT_S = 1.0
PARTITION_S = 3 * LEASE_S
QUEUE_DOWN_S = 10.0
CHECKS = 12
ANSWER_MARGIN_S = 3.0  # scheduling slack on a busy machine, beyond the Redis client's timeouts


# --- fencing, without namespaces -------------------------------------------------------------------------


class SearchCutOff:
    """Every search fails (the worker's host is cut off), and while the first one hangs, the lease runs
    out and another worker claims the job: the cut-off run comes back to a lease that moved on."""

    name = "cut-off"

    def __init__(self, clock: FakeClock, other: JobRunner, check_id: list[str]) -> None:
        self.clock, self.other, self.check_id = clock, other, check_id
        self.taken_over = False

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        if not self.taken_over:
            lease = self.other.config.lease
            self.clock.advance(seconds=lease.total_seconds() + 1)
            claimed = self.other.service.claim(self.check_id[0], FIRST_RUN, self.clock(), lease)
            assert claimed is not None and claimed.attempts == 2
            self.taken_over = True
        return ProviderResult.error(self.name, "network unreachable")


def test_a_run_cut_off_past_its_lease_schedules_no_retry_and_records_nothing(
    db_url: str, tmp_path: Path, clock: FakeClock, providers: Providers
) -> None:
    other = open_runner(db_url, tmp_path / "other", clock, providers)
    check_id: list[str] = []
    cut_off_search = SearchCutOff(clock, other, check_id)
    cut_off = open_runner(db_url, tmp_path / "cut-off", clock, Providers([cut_off_search]))
    try:
        check_id.append(cut_off.submit(CheckInput(text=CLAIM)))
        outcome = cut_off.run(check_id[0], FIRST_RUN)
        assert cut_off_search.taken_over
        assert outcome.startswith("lease moved on"), outcome
        # No search retry scheduled and the check not held pending by the run that lost its lease: the
        # worker that holds the job now decides.
        jobs = other.service.jobs(check_id[0])
        assert [(job.run_key, job.state, job.attempts) for job in jobs] == [(FIRST_RUN, JobState.RUNNING, 2)]
        assert other.service.request(check_id[0]).state is RequestState.RUNNING
        assert other.service.run_version(check_id[0], FIRST_RUN) is None
    finally:
        cut_off.store.close()
        other.store.close()


def test_the_queue_answering_again_hands_out_every_due_job_once(
    sqlite_url: str, tmp_path: Path, clock: FakeClock, providers: Providers
) -> None:
    runner = open_runner(sqlite_url, tmp_path, clock, providers)
    try:
        check_id = runner.submit(CheckInput(text=CLAIM))  # accepted while the queue was unreachable
        queued: list[tuple[str, str]] = []
        runner.enqueue = lambda check, run_key: queued.append((check, run_key))
        reachable = [True]

        def probe() -> None:
            if not reachable[0]:
                raise ConnectionError("queue host unreachable")

        heartbeat = Heartbeat(runner, WorkerRegistry(runner.store), "w1", HEARTBEAT_S, probe)
        assert heartbeat.check_queue() is None and queued == []  # reachable all along: nothing to do
        reachable[0] = False
        assert heartbeat.check_queue() is None and heartbeat.queue_down
        assert heartbeat.check_queue() is None and queued == []
        reachable[0] = True
        assert heartbeat.check_queue() == 1
        assert queued == [(check_id, FIRST_RUN)] and not heartbeat.queue_down
        assert heartbeat.check_queue() is None and queued == [(check_id, FIRST_RUN)]
    finally:
        runner.store.close()


def test_both_ways_a_run_ends_without_recording_are_read_from_a_workers_log() -> None:
    # A run cut off from its database fails, and the runner's line names the attempt; one whose lease moved
    # on says so. Reading only "failed" at the line's end once missed the first kind and failed the test.
    log = "\n".join(
        [
            "2026-12-03 15:32:23,173 icarus.jobs ERROR job 5e82/first failed (attempt 1 of 3)",
            "2026-12-03 15:32:31,402 icarus.jobs WARNING job b89e/first: job 2: the lease of attempt 1 has "
            "moved on; nothing recorded",
            "2026-12-03 15:32:31,415 icarus.jobs WARNING job c001/first: its worker's lease ran out; queued again",
        ]
    )
    assert set(RUN_ENDED.findall(log)) == {"5e82/first", "b89e/first"}


# --- hosts in network namespaces ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, corpus_file: Path) -> Iterator[CrossHostLab]:
    reason = why_not_permitted()
    if reason is not None:
        pytest.skip(f"no network namespaces for the across-hosts test: {reason}")
    if shutil.which("redis-server") is None:
        pytest.skip("no `redis-server` binary for the across-hosts test's private Redis")
    folder = tmp_path_factory.mktemp("across-hosts")
    manager = cross_host_lab(folder, corpus_file, lease_s=LEASE_S, heartbeat_s=HEARTBEAT_S)
    try:
        started = manager.__enter__()
    except (NetnsUnavailable, ClusterUnavailable) as exc:
        pytest.skip(f"the across-hosts test cannot build its network and services here: {exc}")
    try:
        yield started
    finally:
        manager.__exit__(None, None, None)


def test_a_worker_host_cut_off_past_its_lease_records_every_check_exactly_once(lab: CrossHostLab) -> None:
    outcome = partition_worker(lab, checks=CHECKS, down_s=PARTITION_S)
    assert outcome.workers_alive, outcome
    assert outcome.cut_off_running >= 1, outcome  # the cut-off worker held checks the other handed out
    assert outcome.handed_out_s is not None and outcome.handed_out_s < PARTITION_S, outcome
    assert outcome.running_again_s is not None, outcome
    assert outcome.recorded_once == outcome.versions == CHECKS and outcome.duplicates == 0, outcome
    # Back on the network, the cut-off worker ended every run it lost without recording any of them.
    assert outcome.stale_runs_ended == outcome.cut_off_running, outcome
    assert outcome.all_recorded_s is not None, outcome


def test_a_queue_host_cut_off_under_load_loses_no_submission(lab: CrossHostLab) -> None:
    outcome = drop_queue(lab, down_s=QUEUE_DOWN_S)
    assert outcome.server_errors == 0 and set(outcome.answers) <= {202, 503}, outcome
    assert outcome.unavailable_without_retry_after == 0, outcome
    assert outcome.accepted_during_outage >= 1, outcome
    assert outcome.lost == 0, outcome
    # A vanished Redis host costs a submission the client's timeouts, not TCP's minutes.
    assert outcome.slowest_answer_s <= REDIS_READ_TIMEOUT_S + REDIS_CONNECT_TIMEOUT_S + ANSWER_MARGIN_S
    assert outcome.outage_checks_started_s is not None, outcome
    assert outcome.all_recorded_s is not None, outcome
    assert outcome.recorded_once == outcome.accepted and outcome.duplicates == 0, outcome
