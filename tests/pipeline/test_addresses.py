"""A web address in any letter case is an address; a single address of another scheme is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.jobs.inputs import CheckInput
from icarus.pipeline.addresses import foreign_scheme, web_address


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("HTTP://Example.org/A", "http://Example.org/A"),
        ("Https://example.org", "https://example.org"),
        ("https://example.org/x", "https://example.org/x"),
        ("see https://example.org", None),  # text around a link is text
        ("gopher://example.org/1", None),
        ("httpx://example.org", None),
        ("The rate: 5%", None),
    ],
)
def test_web_address(text: str, address: str | None) -> None:
    assert web_address(text) == address


@pytest.mark.parametrize(
    ("text", "scheme"),
    [
        ("gopher://example.org/1", "gopher"),
        ("  FTP://example.org/file  ", "ftp"),
        ("file:///etc/passwd", "file"),
        ("HTTP://example.org", None),
        ("Turnout rose, says gopher://example.org", None),
        ("Ratio 3:1 in 2024", None),
    ],
)
def test_foreign_scheme(text: str, scheme: str | None) -> None:
    assert foreign_scheme(text) == scheme


def test_an_uppercase_scheme_is_accepted_at_submit() -> None:
    assert CheckInput(url="HTTP://example.org/page").url == "http://example.org/page"
    with pytest.raises(ValueError, match="http:// or https://"):
        CheckInput(url="gopher://example.org/1")


def test_icarus_check_refuses_a_gopher_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["check", "gopher://example.org/1"])
    assert result.exit_code == 2
    assert "gopher:// addresses cannot be checked" in result.output
