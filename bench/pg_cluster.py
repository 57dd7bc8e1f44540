"""A private, throwaway PostgreSQL cluster that a bench or a test may stop, start and restart at will.

The shared PostgreSQL other work uses must never be restarted; this one lives in a temporary folder, listens
on a free loopback port with trust authentication, and is deleted afterwards. It needs the server binaries
(``initdb``, ``pg_ctl``); they refuse to run as root, so as root they run as the ``postgres`` user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["ClusterUnavailable", "PrivateCluster", "private_cluster"]

BIN_GLOB: Final = "/usr/lib/postgresql/*/bin"
SERVER_USER: Final = "postgres"
PG_CTL_TIMEOUT_S: Final = 30
# Durability does not matter for a throwaway cluster; skipping fsync keeps start and stop fast.
SERVER_OPTIONS: Final = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"


class ClusterUnavailable(RuntimeError):
    """No private cluster on this machine: the binaries are missing or cannot run here."""


def _bin_dir() -> Path:
    found = os.environ.get("ICARUS_PG_BIN")
    if found:
        candidates = [Path(found)]
    else:
        on_path = shutil.which("pg_ctl")
        candidates = [Path(on_path).parent] if on_path else []
        candidates += sorted(Path("/").glob(BIN_GLOB.lstrip("/")), reverse=True)  # newest version first
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    raise ClusterUnavailable("no PostgreSQL server binaries (initdb, pg_ctl) found; set ICARUS_PG_BIN")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PrivateCluster:
    """One started cluster; ``url`` reaches its ``postgres`` database."""

    bin_dir: Path
    folder: Path
    port: int
    as_user: str | None
    host: str = "127.0.0.1"  # the address it listens on (another one than loopback for other hosts)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@{self.host}:{self.port}/postgres"

    @property
    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def _run(self, *args: str) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self.as_user is not None:
            command = ["runuser", "-u", self.as_user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=PG_CTL_TIMEOUT_S + 30)
        if done.returncode != 0:
            raise ClusterUnavailable(f"{args[0]} failed: {(done.stderr or done.stdout).strip()[-500:]}")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses={self.host} {SERVER_OPTIONS}"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w",
            "-t", str(PG_CTL_TIMEOUT_S), "-o", options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        """A fast shutdown: open transactions are rolled back and every client is disconnected."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", str(PG_CTL_TIMEOUT_S), "-m", "fast", "stop")

    def restart(self, down_s: float = 0.0) -> None:
        """Stop, stay down for ``down_s`` seconds, start again."""
        self.stop()
        time.sleep(down_s)
        self.start()

    def log(self) -> str:
        path = self.folder / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""


@contextmanager
def private_cluster(host: str = "127.0.0.1", trusted: str | None = None) -> Iterator[PrivateCluster]:
    """Create, start and finally stop and delete a cluster listening on ``host``. ``trusted`` (a network such
    as ``10.1.2.0/24``) may connect too, without a password. Raises ``ClusterUnavailable``."""
    bin_dir = _bin_dir()
    as_user = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam(SERVER_USER)
        except KeyError as exc:
            raise ClusterUnavailable(f"running as root and there is no {SERVER_USER!r} user") from exc
        if shutil.which("runuser") is None:
            raise ClusterUnavailable("running as root and `runuser` is missing")
        as_user = SERVER_USER
    folder = Path(tempfile.mkdtemp(prefix="icarus-pg-"))
    if as_user is not None:
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = PrivateCluster(bin_dir, folder, _free_port(), as_user, host)
    started = False
    try:
        cluster._run(
            "initdb", "-D", str(cluster.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"
        )
        if trusted is not None:
            with (cluster.data / "pg_hba.conf").open("a") as hba:
                hba.write(f"host all all {trusted} trust\n")
        cluster.start()
        started = True
        yield cluster
    finally:
        if started and cluster.running:
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
