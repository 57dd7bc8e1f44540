"""`icarus serve --trusted-proxies`: which peers may name the client in X-Forwarded-For (none by default)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from icarus.api.cli import DEFAULT_TRUSTED_PROXIES, proxy_options
from icarus.cli import app


def test_proxy_options() -> None:
    assert proxy_options("none") == {"proxy_headers": False}
    assert proxy_options("*") == {"proxy_headers": True, "forwarded_allow_ips": "*"}
    assert proxy_options(" 10.0.0.1, 192.168.0.0/16 ") == {
        "proxy_headers": True,
        "forwarded_allow_ips": ["10.0.0.1", "192.168.0.0/16"],
    }
    with pytest.raises(ValueError, match="not an IP address or network"):
        proxy_options("proxy.internal")


async def _client_seen(options: dict[str, Any], peer: str, forwarded: str) -> str:
    seen: dict[str, Any] = {}

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        seen["client"] = scope["client"][0]

    wrapped: Any = (
        ProxyHeadersMiddleware(asgi, trusted_hosts=options["forwarded_allow_ips"])
        if options["proxy_headers"]
        else asgi
    )
    scope = {
        "type": "http",
        "client": (peer, 5000),
        "scheme": "http",
        "headers": [(b"x-forwarded-for", forwarded.encode())],
    }
    await wrapped(scope, None, None)
    return str(seen["client"])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("trusted", "peer", "client"),
    [
        ("10.0.0.0/8", "10.1.2.3", "203.0.113.9"),  # a trusted proxy names the client
        ("10.0.0.0/8", "198.51.100.7", "198.51.100.7"),  # anyone else cannot
        ("none", "127.0.0.1", "127.0.0.1"),
        (DEFAULT_TRUSTED_PROXIES, "127.0.0.1", "127.0.0.1"),  # the default: no header is believed
    ],
)
async def test_only_trusted_proxies_name_the_client(trusted: str, peer: str, client: str) -> None:
    assert await _client_seen(proxy_options(trusted), peer, "203.0.113.9") == client


def test_serve_hands_the_option_to_uvicorn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    ran: dict[str, Any] = {}
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(uvicorn, "run", lambda _app, **kwargs: ran.update(kwargs))
    monkeypatch.setattr("signal.signal", lambda *_: None)  # serve's SIGTERM handler stays out of pytest
    by_default = CliRunner().invoke(app, ["serve", "--no-worker"])
    assert by_default.exit_code == 0, by_default.output
    assert ran == {"host": "127.0.0.1", "port": 8000, "log_level": "info", "proxy_headers": False}
    result = CliRunner().invoke(app, ["serve", "--no-worker", "--trusted-proxies", "10.0.0.0/8"])
    assert result.exit_code == 0, result.output
    assert ran["proxy_headers"] is True and ran["forwarded_allow_ips"] == ["10.0.0.0/8"]
    refused = CliRunner().invoke(app, ["serve", "--no-worker", "--trusted-proxies", "proxy.internal"])
    assert refused.exit_code == 2 and "not an IP address or network" in refused.output
