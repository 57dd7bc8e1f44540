"""``icarus serve`` (the API, the pages and an in-process worker) and ``icarus token`` (API tokens)."""

from __future__ import annotations

import ipaddress
import signal
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Final

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from icarus.jobs.supervisor import WorkerSupervisor
from icarus.settings import Settings
from icarus.store.tables import INTEGER_MAX
from icarus.store.tokens import TokenStore

__all__ = ["proxy_options", "serve_command", "token_app"]

# No forwarding header is believed unless the deployment names its proxies: otherwise any client could
# claim a fresh address on every request and pass the per-address limits.
DEFAULT_TRUSTED_PROXIES: Final = "none"

token_app = typer.Typer(no_args_is_help=True, help="API tokens: create, list, revoke.")
err = Console(stderr=True)


def _fail(message: str) -> None:
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")] = 8000,
    worker: Annotated[
        bool, typer.Option("--worker/--no-worker", help="Also run a worker process (the embedded default).")
    ] = True,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads", min=1, max=64, help="Threads of that worker (default ICARUS_WORKER_THREADS)."
        ),
    ] = None,
    trusted_proxies: Annotated[
        str,
        typer.Option(
            "--trusted-proxies",
            help="Comma-separated addresses or networks of the proxies whose X-Forwarded-For (and "
            "X-Forwarded-Proto) name the client, as rate limits see it; '*' trusts any, 'none' (the "
            "default) no proxy.",
        ),
    ] = DEFAULT_TRUSTED_PROXIES,
) -> None:
    """Serve the API under /v1, the pages at /, and (unless --no-worker) run a worker beside it."""
    import uvicorn

    from icarus.api.app import create_app

    try:
        proxies = proxy_options(trusted_proxies)
    except ValueError as exc:
        _fail(f"--trusted-proxies: {exc}")
        return
    settings = Settings()
    app = create_app(settings)  # opens (and migrates) the store before the worker starts
    supervisor = None
    if worker:
        # A separate process: the queue consumer needs the main thread for its signal handlers. It is
        # restarted (and the restart logged) whenever it dies; stopping it is graceful (SIGTERM).
        command = [sys.executable, "-m", "icarus.cli", "worker"]
        if threads:
            command += ["--threads", str(threads)]
        supervisor = WorkerSupervisor(command, grace_s=settings.worker_grace_s, spawn=_spawn_worker)
        supervisor.start()
    # uvicorn shuts down on SIGTERM and then raises the signal again under the handler it found; with
    # this one that is SystemExit, so the worker below is stopped instead of left running on its own.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        uvicorn.run(app, host=host, port=port, log_level="info", **proxies)
    finally:
        if supervisor is not None:
            supervisor.stop()


def proxy_options(trusted: str) -> dict[str, Any]:
    """uvicorn's options for ``--trusted-proxies``: 'none' turns forwarded headers off, '*' trusts any
    peer, else each comma-separated part must be an IP address or network."""
    value = trusted.strip()
    if value.lower() == "none" or not value:
        return {"proxy_headers": False}
    if value == "*":
        return {"proxy_headers": True, "forwarded_allow_ips": "*"}
    parts = [part.strip() for part in value.split(",") if part.strip()]
    for part in parts:
        try:
            ipaddress.ip_network(part, strict=False)
        except ValueError:
            raise ValueError(f"{part!r} is not an IP address or network") from None
    return {"proxy_headers": True, "forwarded_allow_ips": parts}


def _spawn_worker(command: Sequence[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(list(command), preexec_fn=_die_with_parent)


def _die_with_parent() -> None:
    """In the worker child, before it starts: on Linux, get SIGTERM if `icarus serve` dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        import ctypes

        set_parent_death_signal = 1  # PR_SET_PDEATHSIG
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(set_parent_death_signal, signal.SIGTERM)


def _tokens() -> TokenStore:
    from icarus.store import Store

    return TokenStore(Store(Settings().resolved_database_url).open())


@token_app.command("create")
def token_create(
    role: Annotated[str, typer.Option("--role", help="reader, api, reviewer or admin.")],
    name: Annotated[str, typer.Option("--name", help="What the token is for (shown in listings).")] = "",
    rate: Annotated[
        int | None, typer.Option("--rate", min=1, help="Requests per minute (default: the role's limit).")
    ] = None,
) -> None:
    """Create a token and print it once; only its hash is stored."""
    from icarus.store.tokens import Role

    try:
        chosen = Role(role)
    except ValueError:
        _fail(f"--role must be one of {', '.join(r.value for r in Role)}, not {role!r}")
        return
    issued = _tokens().create(name or f"{chosen.value} token", chosen, datetime.now(UTC), rate)
    err.print(f"token {issued.info.id} ({chosen.value}); store it now, it is not shown again:")
    sys.stdout.write(issued.secret + "\n")


@token_app.command("list")
def token_list() -> None:
    """List tokens (id, name, role, prefix, limit, created, revoked); never the tokens themselves."""
    table = Table("id", "name", "role", "prefix", "per minute", "created", "revoked")
    for info in _tokens().list():
        table.add_row(
            str(info.id),
            escape(info.name),
            info.role.value,
            info.prefix + "…",
            str(info.rate_per_minute or "role default"),
            info.created_at.isoformat(timespec="seconds"),
            info.revoked_at.isoformat(timespec="seconds") if info.revoked_at else "",
        )
    Console().print(table)


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[int, typer.Argument(help="The token's id (see icarus token list).")],
) -> None:
    """Revoke a token; requests with it are refused from then on."""
    from icarus.store import NotFound

    if not 1 <= token_id <= INTEGER_MAX:  # no such row, and the id column could not even hold it
        _fail(f"no token {token_id}")
    try:
        info = _tokens().revoke(token_id, datetime.now(UTC))
    except NotFound as exc:
        _fail(str(exc))
        return
    err.print(f"token {info.id} ({info.name}) revoked")
