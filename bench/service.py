"""The service under load, over loopback against a real `icarus serve --no-worker` process.

1. Submissions: 500 check submissions sent at once; every one must come back 202 and be in the database
   with its first job (none lost). Run with ``--submissions N`` to change the count.
2. Report reads: concurrent GETs of one recorded report for a fixed time; requests per second, p50 and p99;
   then the same reads sent straight into the ASGI app one at a time (the app's own cost, without sockets
   and without the load generator sharing the cores).
3. Database fault (PostgreSQL only, when ``ICARUS_DATABASE_URL`` is a PostgreSQL URL): in the middle of a
   read run every server connection of the bench's database role is terminated with
   ``pg_terminate_backend``, which is what clients see when the database restarts. A restart of the shared
   local PostgreSQL itself is not done (other work uses it); the bench reports the failed requests and
   how long the service took to answer again. With SQLite there is no server to drop and the part is
   skipped.

The bench uses SQLite and the SQLite queue in a temporary folder unless ``ICARUS_DATABASE_URL`` is set.
"""

from __future__ import annotations

import asyncio
import os
import socket
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

from icarus.ledger import load_ledger
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.store import Store
from icarus.store.engine import create_store_engine, normalise_url
from icarus.store.service import ServiceStore
from icarus.store.tables import RequestState
from icarus.store.tokens import Role, TokenStore

ROOT = Path(__file__).parents[1]
LEDGER = ROOT / "tests" / "fixtures" / "two-independent-wires.json"
SUBMISSIONS = 500
READ_SECONDS = 10.0
READ_CONCURRENCY = 32
SERVER_START_S = 180.0
TARGET_READS_PER_S = 200


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


def _start_server(folder: Path, url: str, port: int) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ICARUS_")} | {
        "ICARUS_DATA_DIR": str(folder),
        "ICARUS_DATABASE_URL": url,
        "ICARUS_QUEUE_NAME": f"bench-{uuid.uuid4().hex[:8]}",
        "ICARUS_API_RATE_ANONYMOUS": "10000000",
        "ICARUS_API_RATE_API": "10000000",
    }
    log = (folder / "server.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "icarus.cli", "serve", "--no-worker", "--port", str(port)],
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


async def _read_for(
    port: int, path: str, seconds: float, concurrency: int, during: Any = None
) -> tuple[list[float], dict[int, int], list[float]]:
    """Latencies of successful reads, status counts, and the times (from start) of failed ones."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    failures: list[float] = []
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    start = time.perf_counter()
    stop = start + seconds

    async def client() -> None:
        connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        while time.perf_counter() < stop:
            began = time.perf_counter()
            try:
                if connection is None:
                    connection = await asyncio.open_connection("127.0.0.1", port)
                code = await asyncio.wait_for(_get(*connection, request), timeout=30)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                code, connection = -1, None
            statuses[code] = statuses.get(code, 0) + 1
            if code == 200:
                latencies.append(time.perf_counter() - began)
            else:
                failures.append(began - start)
        if connection is not None:
            connection[1].close()

    tasks = [asyncio.create_task(client()) for _ in range(concurrency)]
    if during is not None:
        await asyncio.sleep(seconds / 2)
        await asyncio.to_thread(during)
    await asyncio.gather(*tasks)
    return latencies, statuses, failures


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


def main(argv: list[str]) -> dict[str, Any]:
    count = SUBMISSIONS
    if "--submissions" in argv:
        count = int(argv[argv.index("--submissions") + 1])
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
            latencies, statuses, _ = asyncio.run(_read_for(port, path, READ_SECONDS, READ_CONCURRENCY))
            rate = len(latencies) / READ_SECONDS
            runs.append(
                {
                    "measure": f"report reads ({READ_CONCURRENCY} concurrent, {READ_SECONDS:.0f} s)",
                    "requests_per_s": round(rate, 1),
                    "p50_ms": round(_percentile(latencies, 0.50) * 1000, 1),
                    "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
                    "non_200": sum(n for code, n in statuses.items() if code != 200),
                    "other_answers": {str(code): n for code, n in sorted(statuses.items()) if code != 200},
                    "target_per_s": TARGET_READS_PER_S,
                }
            )
            runs.append(asyncio.run(_in_process_reads(folder, url, path)))
            if schema is not None:
                killed: list[int] = []
                latencies, statuses, failures = asyncio.run(
                    _read_for(
                        port,
                        path,
                        READ_SECONDS,
                        READ_CONCURRENCY,
                        during=lambda: killed.append(_terminate_connections(schema)),
                    )
                )
                runs.append(
                    {
                        "measure": "reads while every database connection is dropped",
                        "connections_dropped": killed[0] if killed else 0,
                        "requests_ok": len(latencies),
                        "failed": len(failures),
                        "failure_window_s": round(max(failures) - min(failures), 3) if failures else 0.0,
                        "other_answers": {str(c): n for c, n in sorted(statuses.items()) if c != 200},
                        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
                        "answers_after": "yes" if httpx.get(f"{base}{path}").status_code == 200 else "no",
                    }
                )
            else:
                notes["database_fault"] = "skipped: SQLite has no server to drop (set ICARUS_DATABASE_URL)"
        finally:
            server.terminate()
            server.wait(timeout=30)
            store.close()
            if schema is not None:
                _drop_schema(schema)
    notes["database"] = "postgresql" if schema else "sqlite"
    return {"runs": runs, **notes}


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(main(sys.argv[1:]), indent=2))
