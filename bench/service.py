"""The service under load, over loopback against a real `icarus serve --no-worker` process.

1. Submissions: 500 check submissions sent at once; every one must come back 202 and be in the database
   with its first job (none lost). Run with ``--submissions N`` to change the count.
2. Report reads: concurrent GETs of one recorded report for a fixed time; requests per second, p50 and p99;
   then the same reads sent straight into the ASGI app one at a time (the app's own cost, without sockets
   and without the load generator sharing the cores).
3. Database restart: a private, throwaway PostgreSQL cluster (``bench/pg_cluster.py``: its own data folder
   and loopback port, never the shared server) backs a second server process. In the middle of a run of
   concurrent report reads and check submissions the cluster is stopped (fast shutdown: every connection
   cut), kept down for ``--db-down-s`` seconds (2 by default) and started again. The bench reports the
   answers during the outage (503 with ``Retry-After`` is the intended one; a 500 or a dropped connection
   is a fault), how soon after the database is back the service answers 200 again, and whether every
   accepted submission is in the database. Where no private cluster can run (no server binaries) and
   ``ICARUS_DATABASE_URL`` is PostgreSQL, a restart is only simulated, labelled as such: every connection
   of the bench's role is terminated with ``pg_terminate_backend``.
4. A killed worker: 50 checks submitted to two real `icarus worker` processes, one SIGKILLed while both
   run checks (``bench/worker_kill.py``). Every check must be recorded exactly once, and the killed
   worker's checks handed out again well within 60 s. On PostgreSQL + Redis when ``ICARUS_DATABASE_URL``
   and ``ICARUS_REDIS_URL`` are set. ``--kill-checks N`` changes the count; ``--skip-worker-kill`` skips it.

5. Pages against the API (``--pages-only`` runs only this): 250 recorded checks; authenticated
   ``GET /v1/checks/{id}`` polls and report reads alone, then the polls while 16 anonymous clients hammer the
   dashboard (five alternating rounds of 4 s each, medians), and ``GET /v1/checks?limit=200`` one at a
   time. Targets: the polls keep at least half their rate under the page load, run within 2x of report
   reads, and the list's p50 is under 100 ms. Run with the default page limits (per address and for all
   anonymous readers together) and again with none.
6. A spoofed flood (``--spoofed-flood`` runs only this): the same polls while the 16
   clients send a new random ``X-Forwarded-For`` with every page load, against a server that trusts no
   proxy (the default) and one that believes every forwarded address (``--trusted-proxies 127.0.0.1``, the
   worst case: a proxy that passes on whatever a client claims). Target: the polls keep at least 80 %.

The bench uses SQLite and the SQLite queue in a temporary folder unless ``ICARUS_DATABASE_URL`` is set.
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

from bench.pg_cluster import ClusterUnavailable, private_cluster
from icarus.ledger import load_ledger
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.engine import create_store_engine, normalise_url
from icarus.store.service import ServiceStore
from icarus.store.tables import RequestState
from icarus.store.tokens import Role, TokenStore

ROOT = Path(__file__).parents[1]
LEDGER = ROOT / "examples" / "ledgers" / "two-independent-wires.json"
SUBMISSIONS = 500
READ_SECONDS = 10.0
READ_CONCURRENCY = 32
SERVER_START_S = 180.0
TARGET_READS_PER_S = 200
DB_DOWN_S = 2.0
SUBMITTERS = 4  # clients submitting checks, one at a time each, during the restart run
WORKER_KILL_CHECKS = 50  # checks submitted before one of two workers is SIGKILLed
PAGE_CLIENTS = 16  # anonymous clients loading the dashboard in the pages run
POLL_CONCURRENCY = 8  # authenticated clients polling GET /v1/checks/{id} in the pages run
LIST_ROWS = 250  # recorded checks behind the pages run, more than one list page
LIST_LIMIT = 200
LIST_READS = 50
DEFAULT_PAGE_LIMITS = {  # the settings' own defaults, per address and for all anonymous readers
    f"ICARUS_{name.upper()}": str(Settings.model_fields[name].default)
    for name in ("page_rate_anonymous", "page_rate_anonymous_total")
}
NO_PAGE_LIMITS = dict.fromkeys(DEFAULT_PAGE_LIMITS, "10000000")
PAGE_ROUNDS = 5  # alternating rounds of the pages run; medians are reported
SPOOFED_ROUNDS = 5  # rounds of each spoofed-flood run
SPOOFED_TARGET = 0.8  # share of the poll rate a spoofed flood must leave
PAGE_WINDOW_S = 4.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database(folder: Path) -> tuple[str, str | None]:
    """The bench's database URL and, for PostgreSQL, its throwaway schema."""
    raw = os.environ.get("ICARUS_DATABASE_URL", "")
    if not raw.startswith("postgres"):
        return f"sqlite:///{folder / 'icarus.db'}", None
    schema = f"icarus_bench_{uuid.uuid4().hex[:10]}"
    admin = create_store_engine(raw)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    url = normalise_url(raw).update_query_dict(
        {"options": f"-csearch_path={schema}", "application_name": schema}
    )
    return url.render_as_string(hide_password=False), schema


def _drop_schema(schema: str) -> None:
    admin = create_store_engine(os.environ["ICARUS_DATABASE_URL"])
    with admin.begin() as connection:
        connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


def _recorded_check(store: Store) -> str:
    """One check with a recorded version, written the way a worker writes it."""
    ledger = load_ledger(LEDGER)
    result = score_ledger(ledger, load_policy("icarus@1.1"))
    now = datetime.now(UTC)
    check_id = uuid.uuid4().hex
    ServiceStore(store).submit(check_id, "text", {"text": "bench"}, policy=None, post_id=None, now=now)
    store.open_check(ledger.subject, check_id)
    store.record_check(ledger.subject, ledger, result, check_id=check_id, run_key="first")
    ServiceStore(store).set_state(check_id, RequestState.RECORDED, now)
    return check_id


def _start_server(
    folder: Path, url: str, port: int, extra_env: dict[str, str] | None = None, trusted: str = "none"
) -> subprocess.Popen[bytes]:
    env = (
        {key: value for key, value in os.environ.items() if not key.startswith("ICARUS_")}
        | {
            "ICARUS_DATA_DIR": str(folder),
            "ICARUS_OFFLINE": "1",  # the figures are the service's own, not the look-ups' services
            "ICARUS_DATABASE_URL": url,
            "ICARUS_QUEUE_NAME": f"bench-{uuid.uuid4().hex[:8]}",
            "ICARUS_API_RATE_ANONYMOUS": "10000000",
            "ICARUS_API_RATE_ANONYMOUS_TOTAL": "10000000",
            "ICARUS_API_RATE_API": "10000000",
        }
        | NO_PAGE_LIMITS
        | (extra_env or {})
    )
    log = (folder / "server.log").open("wb")
    command = [sys.executable, "-m", "icarus.cli", "serve", "--no-worker", "--port", str(port)]
    return subprocess.Popen(
        [*command, "--trusted-proxies", trusted],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def _wait_ready(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError("the server exited during start-up; see server.log")
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError("the server did not answer within the start-up time")


async def _submit_all(base: str, token: str, count: int) -> tuple[list[str], list[int], float]:
    limits = httpx.Limits(max_connections=count, max_keepalive_connections=count)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120, headers=headers) as client:

        async def one(n: int) -> tuple[int, str | None]:
            try:
                answer = await client.post("/v1/checks", json={"text": f"Bench claim number {n} is true."})
            except httpx.HTTPError:
                return -1, None
            return answer.status_code, answer.json().get("id") if answer.status_code == 202 else None

        started = time.perf_counter()
        answers = await asyncio.gather(*(one(n) for n in range(count)))
        elapsed = time.perf_counter() - started
    ids = [check_id for _, check_id in answers if check_id]
    return ids, [code for code, _ in answers], elapsed


async def _get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> int:
    """One keep-alive HTTP/1.1 GET on an open connection; returns the status code.

    A hand-rolled client on purpose: the load generator shares the machine's cores with the server, and a
    full HTTP client spends more CPU per request than the server does."""
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = next(
        (int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), 0
    )
    await reader.readexactly(length)
    return status


Sample = tuple[float, float, int]  # began, ended (perf_counter seconds), status (-1: no HTTP answer)


async def _read_for(
    port: int,
    path: str,
    seconds: float,
    concurrency: int,
    during: Any = None,
    headers: dict[str, str] | None = None,
    spoof: bool = False,
) -> list[Sample]:
    """Every read of ``path`` by ``concurrency`` keep-alive clients for ``seconds``; ``during`` (a blocking
    callable) runs in a thread halfway through; ``spoof``: each request claims a new X-Forwarded-For."""
    samples: list[Sample] = []
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()
    stop = time.perf_counter() + seconds

    async def client() -> None:
        connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        while time.perf_counter() < stop:
            began = time.perf_counter()
            try:
                if connection is None:
                    connection = await asyncio.open_connection("127.0.0.1", port)
                sent = _spoofed(request) if spoof else request
                code = await asyncio.wait_for(_get(*connection, sent), timeout=30)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                code, connection = -1, None
            samples.append((began, time.perf_counter(), code))
        if connection is not None:
            connection[1].close()

    tasks = [asyncio.create_task(client()) for _ in range(concurrency)]
    if during is not None:
        await asyncio.sleep(seconds / 2)
        await asyncio.to_thread(during)
    await asyncio.gather(*tasks)
    return samples


def _spoofed(request: bytes) -> bytes:
    """``request`` claiming to be forwarded for an address picked at random."""
    claimed = f"X-Forwarded-For: 10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(256)}"
    return request.replace(b"\r\n\r\n", f"\r\n{claimed}\r\n\r\n".encode(), 1)


def _statuses(samples: list[Sample]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, _, code in samples:
        counts[str(code)] = counts.get(str(code), 0) + 1
    return dict(sorted(counts.items()))


def _latencies(samples: list[Sample]) -> list[float]:
    return [ended - began for began, ended, code in samples if code == 200]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


async def _in_process_reads(folder: Path, url: str, path: str, count: int = 1000) -> dict[str, Any]:
    """The same reads straight into the ASGI app, one at a time: the app's own cost, without sockets,
    HTTP parsing or a load generator competing for the same cores."""
    from icarus.api import create_app
    from icarus.settings import Settings

    settings = Settings(data_dir=folder, database_url=url, api_rate_anonymous=10_000_000)
    app = create_app(settings, enqueue=lambda _c, _k: None)
    latencies: list[float] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        await client.get(path)
        for _ in range(count):
            began = time.perf_counter()
            answer = await client.get(path)
            latencies.append(time.perf_counter() - began)
            assert answer.status_code == 200
    return {
        "measure": f"report reads in-process, sequential ({count})",
        "requests_per_s": round(count / sum(latencies), 1),
        "p50_ms": round(_percentile(latencies, 0.50) * 1000, 2),
        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 2),
    }


def _terminate_connections(schema: str) -> int:
    admin = create_store_engine(os.environ["ICARUS_DATABASE_URL"])
    with admin.begin() as connection:
        killed = connection.execute(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE application_name = :name AND pid <> pg_backend_pid()"
            ),
            {"name": schema},
        ).scalar_one()
    admin.dispose()
    return int(killed)


async def _submit_for(base: str, token: str, seconds: float, clients: int) -> list[tuple[Sample, str | None]]:
    """Check submissions by ``clients`` clients, one at a time each, for ``seconds``; a 503 is retried
    after its ``Retry-After``, as a client is told to. Each answer with the accepted check id, if any."""
    answers: list[tuple[Sample, str | None]] = []
    stop = time.perf_counter() + seconds
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, timeout=30, headers=headers) as client:

        async def submitter(k: int) -> None:
            n = 0
            while time.perf_counter() < stop:
                n += 1
                began = time.perf_counter()
                try:
                    answer = await client.post("/v1/checks", json={"text": f"Restart claim {k}-{n} is true."})
                    code = answer.status_code
                except httpx.HTTPError:
                    answer, code = None, -1
                accepted = answer.json().get("id") if answer is not None and code == 202 else None
                answers.append(((began, time.perf_counter(), code), accepted))
                if answer is not None and code == 503:
                    await asyncio.sleep(float(answer.headers.get("retry-after", "1")))

        await asyncio.gather(*(submitter(k) for k in range(clients)))
    return answers


async def _load(
    base: str, port: int, token: str, path: str, during: Any
) -> tuple[list[Sample], list[tuple[Sample, str | None]]]:
    reads = _read_for(port, path, READ_SECONDS, READ_CONCURRENCY, during=during)
    submissions = _submit_for(base, token, READ_SECONDS, SUBMITTERS)
    read_samples, submitted = await asyncio.gather(reads, submissions)
    return read_samples, submitted


def _restart_run(down_s: float) -> dict[str, Any]:
    """Reads and submissions against a server on a private cluster that is stopped and started mid-run."""
    with private_cluster() as cluster, tempfile.TemporaryDirectory(prefix="icarus-bench-restart-") as tmp:
        folder = Path(tmp)
        store = Store(cluster.url).open()
        token = TokenStore(store).create("bench", Role.API, datetime.now(UTC), rate_per_minute=10_000_000)
        check_id = _recorded_check(store)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        server = _start_server(folder, cluster.url, port)
        marks: dict[str, float] = {}
        try:
            _wait_ready(base, server)
            path = f"/v1/checks/{check_id}/report"
            asyncio.run(_read_for(port, path, 1.0, READ_CONCURRENCY))  # warm every pooled connection

            def restart() -> None:
                marks["stop"] = time.perf_counter()
                cluster.stop()
                marks["down"] = time.perf_counter()
                time.sleep(down_s)
                cluster.start()
                marks["back"] = time.perf_counter()

            reads, submitted = asyncio.run(_load(base, port, token.secret, path, restart))
            answers_after = httpx.get(f"{base}{path}", timeout=10).status_code
            service = ServiceStore(store)
            stored = {row.check_id for row in service.recent(100_000)}
            first_jobs = {check for check in stored if any(j.run_key == "first" for j in service.jobs(check))}
        finally:
            server.terminate()
            server.wait(timeout=30)
            store.close()
    return _restart_row(down_s, marks, reads, submitted, first_jobs, answers_after)


def _restart_row(
    down_s: float,
    marks: dict[str, float],
    reads: list[Sample],
    submitted: list[tuple[Sample, str | None]],
    stored_with_job: set[str],
    answers_after: int,
) -> dict[str, Any]:
    back = marks["back"]
    everything = reads + [sample for sample, _ in submitted]
    failed = [sample for sample in everything if sample[2] not in (200, 202)]
    ok_after = [ended for began, ended, code in everything if code in (200, 202) and began >= back]
    accepted = {check for _, check in submitted if check}  # lost: not in the database with its first job
    return {
        "measure": f"reads + submissions while a private PostgreSQL restarts (down {down_s:g} s)",
        "database_unreachable_s": round(back - marks["stop"], 2),
        "reads_ok": sum(1 for *_, code in reads if code == 200),
        "reads_failed": sum(1 for *_, code in reads if code != 200),
        "submissions_accepted": len(accepted),
        "submissions_refused": sum(1 for (*_, code), _ in submitted if code != 202),
        "submissions_lost": len(accepted - stored_with_job),
        "failed_answers": _statuses(failed),
        "answers_500": sum(1 for *_, code in everything if code >= 500 and code != 503),
        "failed_after_db_back": sum(1 for began, _, code in failed if began >= back),
        "answering_again_s": round(min(ok_after) - back, 3) if ok_after else None,
        "answers_after": "yes" if answers_after == 200 else f"no ({answers_after})",
    }


def _simulated_restart(base: str, port: int, path: str, schema: str) -> dict[str, Any]:
    """The fallback: every connection of the bench's role on the shared server terminated mid-run."""
    killed: list[int] = []
    samples = asyncio.run(
        _read_for(
            port,
            path,
            READ_SECONDS,
            READ_CONCURRENCY,
            during=lambda: killed.append(_terminate_connections(schema)),
        )
    )
    failures = [began for began, _, code in samples if code != 200]
    return {
        "measure": "SIMULATED restart: reads while pg_terminate_backend drops every connection",
        "connections_dropped": killed[0] if killed else 0,
        "requests_ok": len(_latencies(samples)),
        "failed": len(failures),
        "failure_window_s": round(max(failures) - min(failures), 3) if failures else 0.0,
        "other_answers": {c: n for c, n in _statuses(samples).items() if c != "200"},
        "p99_ms": round(_percentile(_latencies(samples), 0.99) * 1000, 1),
        "answers_after": "yes" if httpx.get(f"{base}{path}").status_code == 200 else "no",
    }


def _recorded_checks(store: Store, count: int) -> list[str]:
    """``count`` checks with a recorded version each (one scoring, recorded under each id)."""
    ledger = load_ledger(LEDGER)
    result = score_ledger(ledger, load_policy("icarus@1.1"))
    service, ids = ServiceStore(store), []
    for _ in range(count):
        now, check_id = datetime.now(UTC), uuid.uuid4().hex
        service.submit(check_id, "text", {"text": "bench"}, policy=None, post_id=None, now=now)
        store.open_check(ledger.subject, check_id)
        store.record_check(ledger.subject, ledger, result, check_id=check_id, run_key="first")
        service.set_state(check_id, RequestState.RECORDED, now)
        ids.append(check_id)
    return ids


def _rate(samples: list[Sample], seconds: float) -> float:
    return round(len(_latencies(samples)) / seconds, 1)


async def _list_latencies(port: int, token: str, count: int) -> list[float]:
    """``GET /v1/checks?limit=200`` one at a time, ``count`` times: seconds each."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = (
        f"GET /v1/checks?limit={LIST_LIMIT} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\n\r\n"
    ).encode()
    latencies = []
    for _ in range(count):
        began = time.perf_counter()
        assert await _get(reader, writer, request) == 200
        latencies.append(time.perf_counter() - began)
    writer.close()
    return latencies


async def _polls_under_page_load(
    port: int, poll_path: str, headers: dict[str, str], spoof: bool
) -> tuple[list[Sample], list[Sample]]:
    """Authenticated polls while ``PAGE_CLIENTS`` anonymous clients load the dashboard, for PAGE_WINDOW_S."""
    return await asyncio.gather(
        _read_for(port, poll_path, PAGE_WINDOW_S, POLL_CONCURRENCY, headers=headers),
        _read_for(port, "/", PAGE_WINDOW_S, PAGE_CLIENTS, spoof=spoof),
    )


def _page_rounds(
    port: int, poll: str, report: str, headers: dict[str, str], rounds: int, spoof: bool
) -> dict[str, list[Any]]:
    """PAGE_ROUNDS rounds of: polls alone, report reads alone, polls under the page load. Alternating
    keeps each comparison within seconds, so other work on the machine shifts both sides alike."""
    found: dict[str, list[Any]] = {"polls": [], "reports": [], "loaded": [], "pages": []}
    for _ in range(rounds):
        found["polls"].append(
            asyncio.run(_read_for(port, poll, PAGE_WINDOW_S, POLL_CONCURRENCY, headers=headers))
        )
        found["reports"].append(
            asyncio.run(_read_for(port, report, PAGE_WINDOW_S, POLL_CONCURRENCY, headers=headers))
        )
        loaded, pages = asyncio.run(_polls_under_page_load(port, poll, headers, spoof))
        found["loaded"].append(loaded)
        found["pages"].append(pages)
    return found


def _pages_run(
    limits: dict[str, str], *, rounds: int = PAGE_ROUNDS, spoof: bool = False, trusted: str = "none"
) -> dict[str, Any]:
    """Pages against the API, on a server with ``LIST_ROWS`` recorded checks and the page ``limits``
    given (``ICARUS_PAGE_RATE_ANONYMOUS`` and ``…_TOTAL``), trusting the proxies ``trusted``: authenticated polls (``GET /v1/checks/{id}``) and report reads alone,
    the polls again while ``PAGE_CLIENTS`` anonymous clients hammer ``/``, and ``GET /v1/checks?limit=200``
    one at a time. Targets: polls keep half their rate under the page load, polls within 2x of report
    reads, the list's p50 under 100 ms."""
    with tempfile.TemporaryDirectory(prefix="icarus-bench-pages-") as tmp:
        folder = Path(tmp)
        url, schema = _database(folder)
        store = Store(url).open()
        token = TokenStore(store).create("bench", Role.API, datetime.now(UTC), rate_per_minute=10_000_000)
        ids = _recorded_checks(store, LIST_ROWS)
        port = _free_port()
        server = _start_server(folder, url, port, limits, trusted)
        headers = {"Authorization": f"Bearer {token.secret}"}
        try:
            _wait_ready(f"http://127.0.0.1:{port}", server)
            poll, report = f"/v1/checks/{ids[0]}", f"/v1/checks/{ids[0]}/report"
            asyncio.run(_read_for(port, poll, 1.0, POLL_CONCURRENCY, headers=headers))  # warm up
            found = _page_rounds(port, poll, report, headers, rounds, spoof)
            listed = asyncio.run(_list_latencies(port, token.secret, LIST_READS))
        finally:
            server.terminate()
            server.wait(timeout=30)
            store.close()
            if schema is not None:
                _drop_schema(schema)
    polls, reports, loaded = (
        [_rate(samples, PAGE_WINDOW_S) for samples in found[name]] for name in ("polls", "reports", "loaded")
    )
    kept = [round(under / alone, 2) if alone else 0.0 for alone, under in zip(polls, loaded, strict=True)]
    ratios = [round(read / alone, 2) if alone else 0.0 for alone, read in zip(polls, reports, strict=True)]
    list_p50_ms = round(_percentile(listed, 0.50) * 1000, 1)
    every_poll = [sample for samples in found["polls"] + found["loaded"] for sample in samples]
    page_limits = "/".join(limits.values())
    return {
        "measure": f"pages against the API: {LIST_ROWS} recorded checks, page limits {page_limits} a minute "
        f"(per address/all anonymous), {POLL_CONCURRENCY} authenticated pollers, {PAGE_CLIENTS} anonymous "
        f"clients on /{' each request from a random X-Forwarded-For' if spoof else ''}, trusted proxies "
        f"{trusted}, {rounds} rounds of {PAGE_WINDOW_S:g} s (medians)",
        "database": "postgresql" if schema else "sqlite",
        "polls_per_s_alone": statistics.median(polls),
        "report_reads_per_s_alone": statistics.median(reports),
        "polls_per_s_under_page_load": statistics.median(loaded),
        "polls_kept_share_by_round": kept,
        "polls_kept_share": statistics.median(kept),
        "reports_per_poll_by_round": ratios,
        "polls_vs_reports": statistics.median(ratios),
        "polls_p99_ms_under_page_load": round(
            _percentile([x for s in found["loaded"] for x in _latencies(s)], 0.99) * 1000, 1
        ),
        "page_answers_under_load": _statuses([sample for samples in found["pages"] for sample in samples]),
        f"list_{LIST_LIMIT}_p50_ms": list_p50_ms,
        f"list_{LIST_LIMIT}_p99_ms": round(_percentile(listed, 0.99) * 1000, 1),
        "targets_met": {
            "polls_keep_half_under_page_load": statistics.median(kept) >= 0.5,
            "polls_keep_80_percent": statistics.median(kept) >= SPOOFED_TARGET if spoof else None,
            "polls_within_2x_of_reports": statistics.median(ratios) <= 2,
            "list_p50_under_100_ms": list_p50_ms < 100,
        },
        "other_poll_answers": {c: n for c, n in _statuses(every_poll).items() if c != "200"},
    }


def _worker_kill_run(checks: int) -> dict[str, Any]:
    """SIGKILL one of two real workers with ``checks`` checks submitted and some in flight (see
    ``bench/worker_kill.py``), on the bench's database and, with ``ICARUS_REDIS_URL``, on Redis."""
    from bench.worker_kill import STRANDED_LIMIT_S, kill_one_of_two_workers
    from icarus.research import LocalCorpus

    redis_url = os.environ.get("ICARUS_REDIS_URL") or None
    with tempfile.TemporaryDirectory(prefix="icarus-bench-kill-") as tmp:
        folder = Path(tmp)
        url, schema = _database(folder)
        corpus = folder / "corpus.db"
        LocalCorpus(corpus).add(sorted((ROOT / "examples" / "sample-corpus").glob("*.html")))
        try:
            outcome = kill_one_of_two_workers(folder, url, corpus, redis_url=redis_url, checks=checks)
        finally:
            if schema is not None:
                _drop_schema(schema)
    return {
        "measure": f"SIGKILL one of two workers, {checks} checks submitted, "
        f"{outcome.running_at_kill} running at the kill (lease 4 s, heartbeat 1 s)",
        "database": "postgresql" if schema else "sqlite",
        "queue": "redis" if redis_url else "sqlite",
        "recorded_exactly_once": f"{outcome.recorded_once}/{outcome.checks}",
        "versions": outcome.versions,
        "killed_workers_checks_handed_out_after_s": outcome.stranded_s,
        "killed_workers_checks_running_again_after_s": outcome.rerun_s,
        f"stranded_{STRANDED_LIMIT_S:.0f}_s_after_kill": outcome.stranded_at_limit,
        "all_recorded_after_s": outcome.all_recorded_s,
    }


def _page_runs() -> list[dict[str, Any]]:
    """The pages run with the default page limits, then with none (the dashboard's own cost)."""
    return [_pages_run(DEFAULT_PAGE_LIMITS), _pages_run(NO_PAGE_LIMITS)]


def _spoofed_runs() -> list[dict[str, Any]]:
    """The spoofed flood, short: against the default (no proxy trusted), then with every claimed address
    believed, where only the budget all anonymous readers share stands between the flood and the polls."""
    return [
        _pages_run(DEFAULT_PAGE_LIMITS, rounds=SPOOFED_ROUNDS, spoof=True, trusted=trusted)
        for trusted in ("none", "127.0.0.1")
    ]


def main(argv: list[str]) -> dict[str, Any]:
    if "--pages-only" in argv:
        return {"runs": _page_runs()}
    if "--spoofed-flood" in argv:
        return {"runs": _spoofed_runs()}
    count = SUBMISSIONS
    if "--submissions" in argv:
        count = int(argv[argv.index("--submissions") + 1])
    down_s = DB_DOWN_S
    if "--db-down-s" in argv:
        down_s = float(argv[argv.index("--db-down-s") + 1])
    runs: list[dict[str, Any]] = []
    notes: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="icarus-bench-service-") as tmp:
        folder = Path(tmp)
        url, schema = _database(folder)
        store = Store(url).open()
        tokens = TokenStore(store)
        api_token = tokens.create("bench", Role.API, datetime.now(UTC), rate_per_minute=10_000_000).secret
        check_id = _recorded_check(store)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        server = _start_server(folder, url, port)
        try:
            _wait_ready(base, server)
            ids, codes, elapsed = asyncio.run(_submit_all(base, api_token, count))
            service = ServiceStore(store)
            stored = {row.check_id for row in service.recent(count + 10)}
            jobs = sum(1 for check in ids if service.job(check, "first").run_key == "first")
            lost = count - len(set(ids) & stored)
            runs.append(
                {
                    "measure": f"{count} concurrent submissions",
                    "accepted_202": codes.count(202),
                    "in_database": len(set(ids) & stored),
                    "first_jobs": jobs,
                    "lost": lost,
                    "seconds": round(elapsed, 2),
                    "per_second": round(count / elapsed, 1),
                }
            )
            path = f"/v1/checks/{check_id}/report"
            samples = asyncio.run(_read_for(port, path, READ_SECONDS, READ_CONCURRENCY))
            latencies = _latencies(samples)
            rate = len(latencies) / READ_SECONDS
            runs.append(
                {
                    "measure": f"report reads ({READ_CONCURRENCY} concurrent, {READ_SECONDS:.0f} s)",
                    "requests_per_s": round(rate, 1),
                    "p50_ms": round(_percentile(latencies, 0.50) * 1000, 1),
                    "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
                    "non_200": len(samples) - len(latencies),
                    "other_answers": {c: n for c, n in _statuses(samples).items() if c != "200"},
                    "target_per_s": TARGET_READS_PER_S,
                }
            )
            runs.append(asyncio.run(_in_process_reads(folder, url, path)))
            try:
                runs.append(_restart_run(down_s))
            except ClusterUnavailable as exc:
                notes["database_restart"] = f"no private PostgreSQL cluster ({exc})"
                if schema is not None:
                    runs.append(_simulated_restart(base, port, path, schema))
                else:
                    notes["database_fault"] = (
                        "skipped: no cluster to restart and ICARUS_DATABASE_URL is not set"
                    )
        finally:
            server.terminate()
            server.wait(timeout=30)
            store.close()
            if schema is not None:
                _drop_schema(schema)
    runs.extend(_page_runs() + _spoofed_runs())
    if "--skip-worker-kill" not in argv:
        kills = WORKER_KILL_CHECKS
        if "--kill-checks" in argv:
            kills = int(argv[argv.index("--kill-checks") + 1])
        runs.append(_worker_kill_run(kills))
    notes["database"] = "postgresql" if schema else "sqlite"
    return {"runs": runs, **notes}


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(main(sys.argv[1:]), indent=2))
