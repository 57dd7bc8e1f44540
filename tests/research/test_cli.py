"""The ``corpus`` sub-app, driven directly with typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.research.cli import corpus_app
from tests.research.corpus_files import jsonl

runner = CliRunner()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "harbour.txt").write_text(
        "Harbour dredging\n\nThe port authority began dredging the harbour channel."
    )
    (root / "records.jsonl").write_bytes(
        jsonl(
            [
                {
                    "url": "https://news.example.org/bridge",
                    "title": "Bridge reopens",
                    "text": "The bridge reopened.",
                },
                "{broken",
            ]
        )
    )
    (root / "image.png").write_bytes(b"\x89PNG")
    return root


def test_add_then_search(tmp_path: Path, folder: Path) -> None:
    db = tmp_path / "corpus.db"
    added = runner.invoke(corpus_app, ["add", str(folder), "--corpus", str(db)])
    assert added.exit_code == 0, added.output
    assert "2 new documents from 2 files (0 already indexed, 2 skipped); 2 documents in" in added.stdout
    assert "image.png: unsupported file type" in added.stderr
    assert "records.jsonl: line 2: not a JSON object" in added.stderr

    again = runner.invoke(corpus_app, ["add", str(folder), "--corpus", str(db)])
    assert "0 new documents from 2 files (2 already indexed" in again.stdout

    found = runner.invoke(corpus_app, ["search", "harbour dredging", "--corpus", str(db)])
    assert found.exit_code == 0
    assert "Harbour dredging" in found.stdout

    as_json = runner.invoke(corpus_app, ["search", "bridge", "--corpus", str(db), "--json", "--limit", "1"])
    payload = json.loads(as_json.stdout)
    assert payload["query"] == "bridge" and len(payload["hits"]) == 1
    hit = payload["hits"][0]
    assert hit["url"] == "https://news.example.org/bridge" and hit["domain"] == "example.org"
    assert "text" not in hit and hit["snippet"] == "The bridge reopened."


def test_search_without_matches_and_hostile_query(tmp_path: Path, folder: Path) -> None:
    db = tmp_path / "corpus.db"
    runner.invoke(corpus_app, ["add", str(folder), "--corpus", str(db)])
    none = runner.invoke(corpus_app, ["search", "zeppelin", "--corpus", str(db)])
    assert (none.exit_code, none.stdout) == (0, "No matches.\n")
    hostile = runner.invoke(
        corpus_app, ["search", '"AND OR NEAR( * [red]x[/red]', "--corpus", str(db), "--json"]
    )
    assert hostile.exit_code == 0 and json.loads(hostile.stdout)["hits"] == []


def test_default_corpus_path_comes_from_settings(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_CORPUS_PATH", raising=False)
    assert runner.invoke(corpus_app, ["add", str(folder / "harbour.txt")]).exit_code == 0
    assert (tmp_path / "data" / "corpus.db").is_file()
    monkeypatch.setenv("ICARUS_CORPUS_PATH", str(tmp_path / "elsewhere.db"))
    missing = runner.invoke(corpus_app, ["search", "harbour"])
    assert missing.exit_code == 2
    assert "no corpus at" in missing.stderr and "elsewhere.db" in missing.stderr


def test_errors_are_one_line_and_exit_nonzero(tmp_path: Path) -> None:
    nothing = runner.invoke(corpus_app, ["add", str(tmp_path / "nope"), "--corpus", str(tmp_path / "c.db")])
    assert nothing.exit_code == 1 and "no such file or folder" in nothing.stderr
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite" * 200)
    refused = runner.invoke(corpus_app, ["search", "x", "--corpus", str(junk)])
    assert refused.exit_code == 2 and refused.stderr.startswith("error: cannot open corpus")
    bad_limit = runner.invoke(corpus_app, ["search", "x", "--corpus", str(junk), "--limit", "0"])
    assert bad_limit.exit_code == 2
