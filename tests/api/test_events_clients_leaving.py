"""Clients that leave an event stream mid-batch do not flood the server's log, and a recheck of a check
still queued says it has no version yet (a real server process).

``icarus serve`` runs on 127.0.0.1 on a free port, over a database holding a full batch of events (500,
what one read of the feed returns). Clients ask for ``/v1/events?once=true`` and leave at once, resetting
the connection, so the server finds the client gone on its first write. asyncio logs
``socket.send() raised exception.`` for every write to a lost connection from the fifth on; the stream
used to write each event on its own, so each client that left cost about 500 log lines (1,276 in the
audit). It now writes a batch in one chunk, so a client that leaves costs a handful of writes and no line.
The seeded check never ran, so asking for its recheck answers that it has no version yet, not "no check".
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import httpx
import pytest

from icarus.settings import Settings
from icarus.store import Store
from icarus.store.service import ServiceStore
from icarus.store.tokens import Role, TokenStore

BATCH: Final = 500  # events one read of the feed returns, all written at once
CLIENTS: Final = 20
FLOOD_LINE: Final = "socket.send() raised exception."
START_TIMEOUT_S: Final = 60.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _seed(data_dir: Path) -> str:
    """The events of one queued check; the secret of an api token."""
    # the SQLite database of data_dir, which the server (started without a database URL) opens too
    store = Store(Settings(data_dir=data_dir, database_url=None).resolved_database_url).open()
    try:
        service = ServiceStore(store)
        now = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
        service.submit(
            "flood-check",
            "text",
            {"text": "Ports handled 4% more cargo."},
            policy=None,
            post_id=None,
            now=now,
        )
        for step in range(BATCH - 1):
            service.add_event("flood-check", "progress", {"message": f"step {step} " + "x" * 200}, now)
        return TokenStore(store).create("flood test", Role.API, now, None).secret
    finally:
        store.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path, str]]:
    secret = _seed(tmp_path)
    port = _free_port()
    log = tmp_path / "server.log"
    env = {**os.environ, "ICARUS_DATA_DIR": str(tmp_path)}
    env.pop("ICARUS_DATABASE_URL", None)
    env.pop("ICARUS_REDIS_URL", None)
    command = [
        sys.executable,
        "-m",
        "icarus.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-worker",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert process.poll() is None, log.read_text(encoding="utf-8", errors="replace")
            try:
                if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield base, log, secret
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _leave_at_once(port: int) -> None:
    """Ask for the whole feed, then reset the connection without reading a byte of the answer."""
    client = socket.create_connection(("127.0.0.1", port))
    client.sendall(f"GET /v1/events?once=true HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    time.sleep(0.05)  # long enough for the server to read the request, not to write the answer
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = reset
    client.close()


def test_clients_leaving_mid_batch_write_no_log_flood(server: tuple[str, Path, str]) -> None:
    base, log, _secret = server
    whole = httpx.get(f"{base}/v1/events", params={"once": "true"}, timeout=30.0)
    assert (
        whole.status_code == 200 and whole.text.count("\nevent: ") + whole.text.startswith("event: ") >= BATCH
    )
    port = int(base.rsplit(":", 1)[1])
    for _ in range(CLIENTS):
        _leave_at_once(port)
    time.sleep(1.0)  # the server's last writes to the lost connections
    assert httpx.get(f"{base}/healthz", timeout=5.0).status_code == 200  # it still serves
    flood = log.read_text(encoding="utf-8", errors="replace").count(FLOOD_LINE)
    assert flood == 0, f"{flood} lines of {FLOOD_LINE!r} after {CLIENTS} clients left"


def test_a_recheck_of_a_queued_check_says_it_has_no_version_yet(server: tuple[str, Path, str]) -> None:
    base, _log, secret = server
    answer = httpx.post(
        f"{base}/v1/checks/flood-check/rechecks", json={}, headers={"Authorization": f"Bearer {secret}"}
    )
    assert answer.status_code == 404
    assert answer.json()["detail"] == "check 'flood-check' has no version yet (it is queued)"
