"""Address pinning over TLS: the connection goes to the checked IP, while SNI and certificate checks use
the host name. Needs the ``openssl`` command to make a throwaway certificate; skipped without it."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from icarus.fetching import ConnectFailed, GuardPolicy, SafeFetcher
from tests.fetching.conftest import TEST_LIMITS, FakeServer, FakeTime, static_resolver

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[FakeServer, Path, list[str]]]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert),
            "-subj", "/CN=secure.test", "-addext", "subjectAltName=DNS:secure.test",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    names: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name or "")
    fake = FakeServer()
    fake.httpd.socket = context.wrap_socket(fake.httpd.socket, server_side=True)
    fake.thread.start()
    yield fake, cert, names
    fake.httpd.shutdown()
    fake.httpd.server_close()


def tls_fetcher(cert: Path, make_fetcher: Callable[..., SafeFetcher]) -> SafeFetcher:
    return make_fetcher(
        limits=TEST_LIMITS,
        policy=GuardPolicy(allowed_hosts=frozenset({"secure.test", "other.test"})),
        resolver=static_resolver({"secure.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]}),
        allow_loopback_for_tests=False,
        verify=ssl.create_default_context(cafile=str(cert)),
    )


def test_https_connects_to_the_pinned_ip_and_verifies_the_name(
    tls_server: tuple[FakeServer, Path, list[str]], make_fetcher: Callable[..., SafeFetcher]
) -> None:
    server, cert, names = tls_server
    server.html("/", "<p>secure</p>")
    result = tls_fetcher(cert, make_fetcher).fetch(f"https://secure.test:{server.port}/")
    assert result.body == b"<p>secure</p>"
    assert result.address == "127.0.0.1"
    assert names == ["secure.test"]
    assert server.requests[-1].headers["host"] == f"secure.test:{server.port}"


def test_a_certificate_for_another_name_is_refused_without_retrying(
    tls_server: tuple[FakeServer, Path, list[str]],
    make_fetcher: Callable[..., SafeFetcher],
    fake_time: FakeTime,
) -> None:
    server, cert, names = tls_server
    server.html("/", "<p>secure</p>")
    with pytest.raises(ConnectFailed, match=r"TLS handshake .* certificate"):
        tls_fetcher(cert, make_fetcher).fetch(f"https://other.test:{server.port}/")
    assert names == ["other.test"]
    assert fake_time.sleeps == []
    assert server.requests == []
