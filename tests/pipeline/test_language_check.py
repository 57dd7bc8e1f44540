"""`icarus check "…"` on French and English text: G0's English-only rule acts on the identified language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app

FRENCH = "Le taux de chômage est tombé à 7,3 % au deuxième trimestre, son plus bas niveau depuis 2008."
ENGLISH = "The unemployment rate fell to 3.5 percent in May, the lowest level since 1969."
runner = CliRunner()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    return tmp_path / "data"


def check(text: str) -> dict[str, object]:
    checked = runner.invoke(app, ["check", text, "--json"])
    assert checked.exit_code == 0, checked.output
    result: dict[str, object] = json.loads(checked.stdout)
    return result


def test_french_text_gets_no_verdict(data_dir: Path) -> None:
    result = check(FRENCH)
    assert result["claims"] == []
    assert [(c["text"], c["reason"]) for c in result["not_assessed"]] == [  # type: ignore[union-attr, index]
        (FRENCH.rstrip("."), "scope")
    ]
    assert result["overall"]["label"] == "unverifiable"  # type: ignore[index]


def test_english_text_is_assessed(data_dir: Path) -> None:
    result = check(ENGLISH)
    assert [c["text"] for c in result["claims"]] == [ENGLISH.rstrip(".")]  # type: ignore[union-attr, index]
    assert all(c["reason"] != "scope" for c in result["not_assessed"])  # type: ignore[union-attr, index]
