"""H4 from the command line: `icarus check` queues where the settings say, scored with the registry the
settings and --reputation name; `icarus score` queues only when asked (--review-queue)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.reputation.review import pending
from tests.pipeline.conftest import EXAMPLES, SAMPLE_RECORDS, UNREVIEWED, registry_without

runner = CliRunner()
SAMPLE_POST = "1860000000000000001"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    for name in ("ICARUS_DATABASE_URL", "ICARUS_REVIEW_QUEUE_PATH", "ICARUS_REPUTATION_FILES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    monkeypatch.setenv("ICARUS_FETCH_CITED_LINKS", "false")
    added = runner.invoke(
        app, ["corpus", "add", *map(str, sorted((EXAMPLES / "sample-corpus").glob("*.html")))]
    )
    assert added.exit_code == 0, added.output
    return tmp_path / "data"


def check(*args: str) -> dict:
    checked = runner.invoke(app, ["check", "--post", str(EXAMPLES / "sample-post.json"), "--json", *args])
    assert checked.exit_code == 0, checked.output
    return json.loads(checked.stdout)


def test_check_queues_in_the_queue_the_setting_names(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = tmp_path / "shared" / "h4.jsonl"
    monkeypatch.setenv("ICARUS_REVIEW_QUEUE_PATH", str(queue))
    check("--reputation", str(registry_without(UNREVIEWED, tmp_path / "partial.json")))
    assert [i.domain for i in pending(queue)] == [UNREVIEWED]
    assert not (data_dir / "review-queue.jsonl").exists()
    listed = runner.invoke(app, ["registry", "review", "list"])  # the reviewer's default is the same file
    assert listed.exit_code == 0 and UNREVIEWED in listed.output, listed.output


def test_check_scores_with_the_reputation_files_setting(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_REPUTATION_FILES", str(registry_without(UNREVIEWED, tmp_path / "p.json")))
    first = check()
    assert first["overall"]["label"] == "unverifiable" and first["claims"][0]["review_requests"]
    assert [i.domain for i in pending(data_dir / "review-queue.jsonl")] == [UNREVIEWED]
    # a --reputation file comes after the setting's files: the origin is on file, nothing more is queued
    second = check("--reputation", str(SAMPLE_RECORDS))
    assert second["overall"]["label"] == "supported" and second["claims"][0]["review_requests"] == []
    assert len((data_dir / "review-queue.jsonl").read_text().splitlines()) == 1


def test_check_with_a_queue_it_cannot_write_still_reports(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    monkeypatch.setenv("ICARUS_REVIEW_QUEUE_PATH", str(blocked))  # a folder, not a file
    partial = registry_without(UNREVIEWED, tmp_path / "partial.json")
    checked = runner.invoke(
        app, ["check", "--post", str(EXAMPLES / "sample-post.json"), "--json", "--reputation", str(partial)]
    )
    assert checked.exit_code == 0, checked.output
    assert "review queue" in checked.stderr and "not written" in checked.stderr
    assert json.loads(checked.stdout)["claims"][0]["review_requests"]


@pytest.fixture
def estimated_ledger(data_dir: Path, tmp_path: Path) -> Path:
    """The recorded ledger of a check whose unreviewed origin could change its label; the queue emptied."""
    from icarus.store import Store

    check("--reputation", str(registry_without(UNREVIEWED, tmp_path / "partial.json")))
    (data_dir / "review-queue.jsonl").unlink()
    store = Store(f"sqlite:///{data_dir / 'icarus.db'}").open()
    try:
        [recorded] = store.find_checks("x_post", SAMPLE_POST)
        ledger = store.latest(recorded.check_id).ledger()
    finally:
        store.close()
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(ledger))
    return path


def test_score_queues_nothing_unless_asked(estimated_ledger: Path, data_dir: Path, tmp_path: Path) -> None:
    scored = runner.invoke(app, ["score", str(estimated_ledger), "--json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["claims"][0]["review_requests"]
    assert not (data_dir / "review-queue.jsonl").exists()
    queue = tmp_path / "audit" / "h4.jsonl"
    asked = runner.invoke(app, ["score", str(estimated_ledger), "--json", "--review-queue", str(queue)])
    assert asked.exit_code == 0, asked.output
    assert json.loads(asked.stdout) == json.loads(scored.stdout)  # the result does not change
    assert [i.domain for i in pending(queue)] == [UNREVIEWED]
    assert "1 estimated reputation(s) queued for review" in asked.stderr


def test_score_refuses_a_review_queue_for_models_that_make_no_requests(
    estimated_ledger: Path, tmp_path: Path
) -> None:
    queue = tmp_path / "h4.jsonl"
    refused = runner.invoke(
        app, ["score", str(estimated_ledger), "--model", "ledger-default@0.1.0", "--review-queue", str(queue)]
    )
    assert refused.exit_code == 2 and "--review-queue" in refused.output
    assert not queue.exists()
