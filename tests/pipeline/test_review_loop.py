"""H4 end to end through the CLI: a check queues an estimate that could move its label, a person overrides it,
and the next check scores the reviewed record instead of the estimate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app

EXAMPLES = Path(__file__).parents[2] / "examples"
runner = CliRunner()
UNREVIEWED = "shiptrack.example"  # one of the sample post's two independent origins


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    # the outcomes below are the lexical judge's; the default trained judge is measured in tests/judges
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    added = runner.invoke(
        app, ["corpus", "add", *map(str, sorted((EXAMPLES / "sample-corpus").glob("*.html")))]
    )
    assert added.exit_code == 0, added.output
    return tmp_path / "data"


def _check(*reputation: Path) -> dict:
    args = ["check", "--post", str(EXAMPLES / "sample-post.json"), "--json"]
    for path in reputation:
        args += ["--reputation", str(path)]
    checked = runner.invoke(app, args)
    assert checked.exit_code == 0, checked.output
    return json.loads(checked.stdout)


def test_a_queued_estimate_reviewed_by_a_person_changes_the_next_check(
    data_dir: Path, tmp_path: Path
) -> None:
    on_file = json.loads((EXAMPLES / "sample-corpus" / "reputation.json").read_text())
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps([e for e in on_file if e["record"]["domain"] != UNREVIEWED]))

    first = _check(partial)
    assert first["overall"]["label"] == "unverifiable"  # one origin on file, the other only estimated
    assert first["claims"][0]["review_requests"]

    listed = runner.invoke(app, ["registry", "review", "list"])
    assert listed.exit_code == 0, listed.output
    assert UNREVIEWED in listed.output and "pending: 1" in listed.output

    reviewed = tmp_path / "reviewed.json"
    review = ["registry", "review", "override", UNREVIEWED, "--score", "0.85", "--reviewer", "editor"]
    overridden = runner.invoke(app, [*review, "--out", str(reviewed)])
    assert overridden.exit_code == 0, overridden.output
    assert "pending: 0" in runner.invoke(app, ["registry", "review", "list"]).output

    second = _check(partial, reviewed)
    assert second["overall"]["label"] == "supported"
    assert second["claims"][0]["review_requests"] == []
    records = {e["reputation"]["domain"]: e["reputation"] for e in second["evidence"]}
    assert records[UNREVIEWED]["method"] == "manual" and records[UNREVIEWED]["version"] == "1"


def test_the_same_check_twice_queues_the_estimate_once(data_dir: Path, tmp_path: Path) -> None:
    on_file = json.loads((EXAMPLES / "sample-corpus" / "reputation.json").read_text())
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps([e for e in on_file if e["record"]["domain"] != UNREVIEWED]))
    _check(partial)
    _check(partial)
    queue = (data_dir / "review-queue.jsonl").read_text().splitlines()
    assert len(queue) == 1, queue
