"""Scale-out across hosts with the network failing: workers and the queue on hosts of their own, then cut off.

The machine plays the database host: a private PostgreSQL cluster (``bench/pg_cluster.py``) and a fake
SearXNG listen on the bridge of a private network (``bench/netns.py``). Redis runs on a host of its own and
every worker on another, each a network namespace. Two scenarios, run by ``tests/service/test_partition.py``
and ``python -m bench.partition``:

- ``partition_worker``: checks in flight on both workers, one worker host's link is cut for longer than a
  lease, then restored. The other worker takes over the cut-off worker's checks once their leases run out;
  the cut-off worker, back on the network, must record nothing for the runs it lost.
- ``drop_queue``: clients submit checks through the API while the queue host's link is cut for 10 s (or
  Redis is stopped and started again empty, every queued message lost). Every submission is answered
  (202: the check is in the database, queued once the queue is back; or 503 with ``Retry-After``, then
  retried), none is lost, and every accepted check is recorded exactly once.

Leases and heartbeats are short (settings), so each scenario takes well under a minute.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from bench.netns import Host, Network, private_network
from bench.pg_cluster import private_cluster
from bench.worker_kill import ROOT, SlowSearch, _worker_env
from icarus.api import create_app
from icarus.jobs.inputs import CheckInput
from icarus.jobs.queue import bind_tasks, create_huey
from icarus.jobs.runner import JobRunner, settings_services
from icarus.jobs.schedule import FIRST_RUN
from icarus.research import LocalCorpus
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.tables import CheckRequest, Job, JobState, ReportVersion
from icarus.store.tokens import Role, TokenStore
from icarus.store.workers import WorkerRecord

__all__ = [
    "CrossHostLab",
    "PartitionOutcome",
    "QueueOutageOutcome",
    "cross_host_lab",
    "drop_queue",
    "partition_worker",
]

WORKERS: Final = 2
WORKER_THREADS: Final = "2"
WORKER_START_S: Final = 120.0
SERVICE_START_S: Final = 30.0
POLL_S: Final = 0.2
CLAIM: Final = "Container traffic at Halden harbor fell {n}% in October."
# How a worker's log says a run ended without recording (runner.py): stopped because its lease moved on,
# or failed (its database unreachable; the line names the attempt, "failed (attempt 1 of 3)"), to be handed
# back only if no other worker has claimed it since.
RUN_ENDED: Final = re.compile(
    r"job (\S+?)(?:: .* has moved on; nothing recorded| failed(?: \(attempt \d+ of \d+\))?)$", re.MULTILINE
)
SUBMITTERS: Final = 3
SUBMIT_EVERY_S: Final = 1.0  # three clients at about one check a second each: load the workers keep up with
CLIENT_TOKEN_RATE: Final = 100_000  # per minute: the clients must meet the queue, not the rate limit


class Redis:
    """A throwaway ``redis-server`` on ``host`` without persistence (a restart empties the queue), stopped on
    ``close``."""

    def __init__(self, host: Host, folder: Path) -> None:
        self.host, self.port, self.folder = host, 6379, folder
        self.url = f"redis://{host.address}:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        command = [
            "redis-server", "--port", str(self.port), "--bind", self.host.address, "--save", "",
            "--appendonly", "no", "--protected-mode", "no", "--dir", str(self.folder),
        ]  # fmt: skip
        self.process = subprocess.Popen(
            self.host.command(command),
            stdout=(self.folder / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        _wait_for_port(self.host.address, self.port, SERVICE_START_S)

    def close(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None


def _wait_for_port(address: str, port: int, within_s: float) -> None:
    deadline = time.monotonic() + within_s
    while True:
        try:
            with socket.create_connection((address, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(POLL_S)


@dataclass
class CrossHostLab:
    """The private network, its services and the worker processes (``workers[n]`` runs on ``hosts[n]``)."""

    folder: Path
    network: Network
    db_url: str
    redis: Redis
    search: SlowSearch
    settings: Settings
    store: Store
    hosts: list[Host]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def submitter(self) -> JobRunner:
        runner = JobRunner(self.store, settings_services(self.settings), settings=self.settings)
        runner.enqueue = bind_tasks(create_huey(self.settings)).enqueue
        return runner

    def worker_log(self, n: int) -> str:
        return (self.folder / f"worker-{n}.log").read_text(errors="replace")


@contextmanager
def cross_host_lab(
    folder: Path, corpus: Path, *, lease_s: float = 4.0, heartbeat_s: float = 1.0, search_delay_s: float = 0.3
) -> Iterator[CrossHostLab]:
    """Build the network, start PostgreSQL, Redis, the search and two workers; tear all of it down after.
    Raises ``NetnsUnavailable`` or ``ClusterUnavailable`` where that cannot be done."""
    with ExitStack() as stack:
        network = stack.enter_context(private_network())
        cluster = stack.enter_context(private_cluster(network.gateway, str(network.subnet)))
        queue_host = network.add_host()
        hosts = [network.add_host() for _ in range(WORKERS)]
        redis = Redis(queue_host, folder)
        stack.callback(redis.close)
        search = SlowSearch(search_delay_s, host=network.gateway)
        stack.callback(search.close)
        env = _worker_env(folder, cluster.url, redis.url, corpus, search.url, lease_s, heartbeat_s)
        settings = Settings(
            data_dir=folder,
            database_url=cluster.url,
            redis_url=redis.url,
            queue_name=env["ICARUS_QUEUE_NAME"],
            job_lease_s=lease_s,
            job_heartbeat_s=heartbeat_s,
        )
        store = Store(cluster.url).open()
        stack.callback(store.close)
        lab = CrossHostLab(folder, network, cluster.url, redis, search, settings, store, hosts)
        stack.callback(_stop_workers, lab.workers)
        for n, host in enumerate(hosts):
            data = folder / f"host-{n}"
            data.mkdir(exist_ok=True)
            lab.workers.append(
                subprocess.Popen(
                    host.command([sys.executable, "-m", "icarus.cli", "worker", "--threads", WORKER_THREADS]),
                    env=env | {"ICARUS_DATA_DIR": str(data)},
                    cwd=ROOT,
                    stdout=(folder / f"worker-{n}.log").open("wb"),
                    stderr=subprocess.STDOUT,
                )
            )
        _wait_for_workers(lab)
        yield lab


def _wait_for_workers(lab: CrossHostLab) -> None:
    deadline = time.monotonic() + WORKER_START_S
    while not all("schedule repair" in lab.worker_log(n) for n in range(len(lab.workers))):
        if time.monotonic() > deadline or any(w.poll() is not None for w in lab.workers):
            raise RuntimeError(f"the workers did not start; see {lab.folder}/worker-*.log")
        time.sleep(POLL_S)


def _stop_workers(workers: list[subprocess.Popen[bytes]]) -> None:
    for process in workers:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


# --- what the database says ----------------------------------------------------------------------------


def _running(store: Store) -> dict[int, int]:
    """Jobs running now: id -> the attempt their lease was taken at."""
    with store.reading() as session:
        rows = session.execute(select(Job.id, Job.attempts).where(Job.state == JobState.RUNNING)).all()
        return {int(job_id): int(attempts) for job_id, attempts in rows}


def _taken_over(store: Store, at_cut: dict[int, int]) -> set[int]:
    """Those of ``at_cut`` that are done or were claimed again under a later lease."""
    with store.reading() as session:
        rows = session.execute(select(Job.id, Job.state, Job.attempts).where(Job.id.in_(list(at_cut)))).all()
    return {job_id for job_id, state, attempts in rows if state == JobState.DONE or attempts > at_cut[job_id]}


def _versions(store: Store, check_ids: list[str]) -> dict[str, int]:
    """Versions recorded per check of ``check_ids``."""
    with store.reading() as session:
        counts = dict(
            session.execute(
                select(ReportVersion.check_id, func.count())
                .where(ReportVersion.check_id.in_(check_ids))
                .group_by(ReportVersion.check_id)
            ).all()
        )
    return {check_id: int(counts.get(check_id, 0)) for check_id in check_ids}


# --- a worker host cut off ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartitionOutcome:
    """``cut_off_running``: runs the cut-off worker held when its link went down (the other worker handed
    them out again); ``handed_out_s``: seconds from the cut until the first of them was handed out or
    claimed again by the other worker; ``running_again_s``: until every one of them was running again under a new
    lease (or done); ``all_recorded_s``: seconds from the heal until every check was recorded;
    ``stale_runs_ended``: how many of those runs the cut-off worker, back on the network, ended without
    recording; ``duplicates``: versions beyond one per check."""

    checks: int
    down_s: float
    lease_s: float
    cut_off_running: int
    handed_out_s: float | None
    running_again_s: float | None
    all_recorded_s: float | None
    recorded_once: int
    versions: int
    duplicates: int
    stale_runs_ended: int
    workers_alive: bool


def partition_worker(
    lab: CrossHostLab, *, checks: int = 12, down_s: float = 12.0, finish_within_s: float = 120.0
) -> PartitionOutcome:
    """Submit ``checks``; once both workers run checks, cut the first worker's host off for ``down_s``,
    heal it, and wait until every check is recorded and the cut-off worker has ended its stale runs."""
    submitter = lab.submitter()
    check_ids = [submitter.submit(CheckInput(text=CLAIM.format(n=n + 1))) for n in range(checks)]
    victim = lab.hosts[0]
    deadline = time.monotonic() + finish_within_s
    while True:  # both workers busy: more jobs running than one worker has threads
        running = _running(lab.store)
        if len(running) > int(WORKER_THREADS) and _held_by(lab, 0):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"the workers never ran checks together; see {lab.folder}/worker-*.log")
        time.sleep(POLL_S)
    lab.network.partition(victim)
    cut = time.monotonic()
    at_cut = _running(lab.store)
    handed_out_s: float | None = None
    while time.monotonic() - cut < down_s:
        if handed_out_s is None and _moved_on(lab.store, at_cut):
            handed_out_s = time.monotonic() - cut
        time.sleep(POLL_S)
    lab.network.heal(victim)
    healed = time.monotonic()
    stale_jobs = {job: at_cut[job] for job in _moved_on(lab.store, at_cut)}
    stale = set(_run_keys(lab.store, set(stale_jobs)).values())
    running_again_s: float | None = None
    all_recorded_s: float | None = None
    while time.monotonic() < deadline:
        if running_again_s is None and _taken_over(lab.store, stale_jobs) == set(stale_jobs):
            running_again_s = time.monotonic() - cut
        if all_recorded_s is None and all(n >= 1 for n in _versions(lab.store, check_ids).values()):
            all_recorded_s = time.monotonic() - healed
        if all_recorded_s is not None and not _running(lab.store) and stale <= _runs_ended(lab, 0):
            break
        time.sleep(POLL_S)
    counts = _versions(lab.store, check_ids)
    return PartitionOutcome(
        checks=checks,
        down_s=down_s,
        lease_s=float(lab.settings.job_lease_s),
        cut_off_running=len(stale),
        handed_out_s=None if handed_out_s is None else round(handed_out_s, 2),
        running_again_s=None if running_again_s is None else round(running_again_s, 2),
        all_recorded_s=None if all_recorded_s is None else round(all_recorded_s, 2),
        recorded_once=sum(1 for n in counts.values() if n == 1),
        versions=sum(counts.values()),
        duplicates=sum(max(0, n - 1) for n in counts.values()),
        stale_runs_ended=len(stale & _runs_ended(lab, 0)),
        workers_alive=all(w.poll() is None for w in lab.workers),
    )


def _moved_on(store: Store, at_cut: dict[int, int]) -> set[int]:
    """The jobs of ``at_cut`` whose lease moved on: handed out again (scheduled) or claimed again since.
    Only the cut-off worker's jobs can be: the other worker's are renewed, and finish under their lease."""
    with store.reading() as session:
        rows = session.execute(select(Job.id, Job.state, Job.attempts).where(Job.id.in_(list(at_cut)))).all()
    return {
        job_id for job_id, state, attempts in rows if state == JobState.SCHEDULED or attempts > at_cut[job_id]
    }


def _runs_ended(lab: CrossHostLab, n: int) -> set[str]:
    """The runs (``check/run key``) worker ``n`` ended without recording."""
    return set(RUN_ENDED.findall(lab.worker_log(n)))


def _run_keys(store: Store, job_ids: set[int]) -> dict[int, str]:
    """Job id -> ``check/run key``, as the workers' logs name runs."""
    with store.reading() as session:
        rows = session.execute(
            select(Job.id, Job.check_id, Job.run_key).where(Job.id.in_(list(job_ids)))
        ).all()
        return {int(job_id): f"{check_id}/{run_key}" for job_id, check_id, run_key in rows}


def _held_by(lab: CrossHostLab, n: int) -> bool:
    """Whether worker ``n``'s last heartbeat says it holds a job."""
    pid = lab.workers[n].pid
    with lab.store.reading() as session:
        held = session.scalars(select(WorkerRecord.jobs_held).where(WorkerRecord.pid == pid)).first()
    return bool(held)


# --- the queue host cut off -----------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueOutageOutcome:
    """``answers``: HTTP status -> how many (``-1``: no HTTP answer); ``unavailable_without_retry_after``:
    503 answers that did not say when to try again; ``accepted``: checks answered 202;
    ``lost``: accepted checks missing from the database; ``slowest_answer_s``: the longest a submission
    waited for its answer during the outage; ``all_recorded_s``: seconds from the queue's return until
    every accepted check was recorded, ``outage_checks_started_s`` until the first check accepted during the
    outage was running; ``duplicates``: versions beyond one per check."""

    down_s: float
    restarted: bool
    answers: dict[int, int]
    unavailable_without_retry_after: int
    server_errors: int
    accepted: int
    accepted_during_outage: int
    lost: int
    slowest_answer_s: float
    outage_checks_started_s: float | None
    all_recorded_s: float | None
    recorded_once: int
    duplicates: int


@dataclass
class _Clients:
    """Clients submitting checks until ``stop``: a 503 is retried after its ``Retry-After``."""

    client: TestClient
    headers: dict[str, str]
    answers: dict[int, int] = field(default_factory=dict)
    without_retry_after: int = 0
    accepted: list[tuple[str, float]] = field(default_factory=list)
    slowest_s: list[tuple[float, float]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, n: int) -> None:
        count = 0
        while not self.stop.is_set():
            count += 1
            body = {"text": f"{CLAIM.format(n=n + 1)} (client {n}, submission {count})"}
            while not self.stop.is_set():
                started = time.monotonic()
                try:
                    answer = self.client.post("/v1/checks", json=body, headers=self.headers)
                    status, retry = answer.status_code, answer.headers.get("Retry-After")
                except Exception:
                    status, retry = -1, None
                took = time.monotonic() - started
                with self.lock:
                    self.answers[status] = self.answers.get(status, 0) + 1
                    self.slowest_s.append((started, took))
                    self.without_retry_after += status == 503 and retry is None
                    if status == 202:
                        self.accepted.append((answer.json()["id"], started))
                if status == 503 and retry is not None:
                    time.sleep(float(retry))
                    continue  # the same submission again
                break
            self.stop.wait(SUBMIT_EVERY_S)


def _first_runs_claimed(store: Store, check_ids: list[str]) -> bool:
    """Whether any of ``check_ids`` has had its first run claimed by a worker (none: vacuously true)."""
    if not check_ids:
        return True
    with store.reading() as session:
        claimed = session.scalars(
            select(func.count()).where(
                Job.check_id.in_(check_ids), Job.run_key == FIRST_RUN, Job.attempts > 0
            )
        ).one()
    return bool(claimed)


def drop_queue(
    lab: CrossHostLab,
    *,
    down_s: float = 10.0,
    before_s: float = 3.0,
    after_s: float = 3.0,
    restart: bool = False,
) -> QueueOutageOutcome:
    """Clients submit through the API; after ``before_s`` the queue host is cut off for ``down_s``, then
    healed (with ``restart``, Redis is stopped instead and started again empty: every queued message is
    lost); the clients go on for ``after_s``. Then wait until every accepted check is recorded."""
    lab.search.delay_s = 0.0  # checks as fast as they go: the outage, not the search, sets the pace
    settings = lab.settings.model_copy(update={"data_dir": lab.folder / "api"})
    token = TokenStore(lab.store).create(
        "partition clients", Role.API, datetime.now(UTC), rate_per_minute=CLIENT_TOKEN_RATE
    )
    with TestClient(create_app(settings)) as client:
        clients = _Clients(client, {"Authorization": f"Bearer {token.secret}"})
        threads = [threading.Thread(target=clients.run, args=(n,)) for n in range(SUBMITTERS)]
        for thread in threads:
            thread.start()
        time.sleep(before_s)
        if restart:
            lab.redis.close()
        else:
            lab.network.partition(lab.redis.host)
        cut = time.monotonic()
        time.sleep(down_s)
        if restart:
            lab.redis.start()
        else:
            lab.network.heal(lab.redis.host)
        back = time.monotonic()
        time.sleep(after_s)
        clients.stop.set()
        for thread in threads:
            thread.join(timeout=60)
    check_ids = [check_id for check_id, _ in clients.accepted]
    with lab.store.reading() as session:
        stored = set(session.scalars(select(CheckRequest.id).where(CheckRequest.id.in_(check_ids))).all())
    during_ids = [check_id for check_id, started in clients.accepted if cut <= started < back]
    started_s: float | None = None
    all_recorded_s: float | None = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if started_s is None and _first_runs_claimed(lab.store, during_ids):
            started_s = time.monotonic() - back
        if all(n >= 1 for n in _versions(lab.store, check_ids).values()):
            all_recorded_s = time.monotonic() - back
            break
        time.sleep(POLL_S)
    counts = _versions(lab.store, check_ids)
    during = [took for started, took in clients.slowest_s if cut <= started < back]
    return QueueOutageOutcome(
        down_s=down_s,
        restarted=restart,
        answers=dict(sorted(clients.answers.items())),
        unavailable_without_retry_after=clients.without_retry_after,
        server_errors=sum(n for status, n in clients.answers.items() if status >= 500 and status != 503),
        accepted=len(check_ids),
        accepted_during_outage=len(during_ids),
        lost=len(set(check_ids) - stored),
        slowest_answer_s=round(max(during, default=0.0), 2),
        outage_checks_started_s=None if started_s is None else round(started_s, 2),
        all_recorded_s=None if all_recorded_s is None else round(all_recorded_s, 2),
        recorded_once=sum(1 for n in counts.values() if n == 1),
        duplicates=sum(max(0, n - 1) for n in counts.values()),
    )


def main() -> None:
    """Both scenarios on the sample corpus, with short leases; prints the outcomes as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.partition", description=main.__doc__)
    parser.add_argument("--keep", type=Path, default=None, help="a folder for the logs, kept afterwards")
    parser.add_argument("--lease-s", type=float, default=4.0)
    parser.add_argument("--heartbeat-s", type=float, default=1.0)
    args = parser.parse_args()
    with ExitStack() as stack:
        if args.keep is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="icarus-partition-")))
        else:
            folder = args.keep
            folder.mkdir(parents=True, exist_ok=True)
        corpus = folder / "corpus.db"
        LocalCorpus(corpus).add(sorted((ROOT / "examples" / "sample-corpus").glob("*.html")))
        with cross_host_lab(folder, corpus, lease_s=args.lease_s, heartbeat_s=args.heartbeat_s) as lab:
            partition = partition_worker(lab, down_s=3 * args.lease_s)
            queue = drop_queue(lab)
            restarted = drop_queue(lab, restart=True)
        outcomes = {
            "partition": asdict(partition),
            "queue_cut_off": asdict(queue),
            "queue_restarted": asdict(restarted),
        }
        print(json.dumps(outcomes, indent=2))


if __name__ == "__main__":
    main()
