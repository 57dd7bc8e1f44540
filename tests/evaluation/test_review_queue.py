"""H4 from `icarus eval`: off by default (an evaluation does not flood the queue), and with --review-queue
each scored claim's review requests are queued, estimated from the registry the evaluation scored with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.evaluation import averitec
from icarus.reputation.review import pending

runner = CliRunner()
ON_FILE = "wire-on-file.example"
CLAIMS = 3


@pytest.fixture
def averitec_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claims each answered by a wire on file and by a site with no record; the data folder isolated."""
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_REVIEW_QUEUE_PATH", raising=False)
    claims = []
    for n in range(CLAIMS):
        said = f"The port of Haldenport moved {n + 2} million containers in 2025."
        answers = [
            {"answer": said, "answer_type": "Extractive", "source_url": f"https://www.{ON_FILE}/a"},
            {
                "answer": f"Haldenport moved {n + 2} million containers in 2025, the port said.",
                "answer_type": "Extractive",
                "source_url": f"https://unknown-{n}.example/b",
            },
        ]
        question = {"question": "How many containers did Haldenport move in 2025?", "answers": answers}
        claims.append({"claim": said, "label": "Supported", "questions": [question]})
    folder = tmp_path / "averitec"
    folder.mkdir()
    (folder / averitec.FILE).write_text(json.dumps(claims), encoding="utf-8")
    record = {
        "domain": ON_FILE,
        "score": "0.95",
        "tier": "wire",
        "method": "manual",
        "version": "1",
        "produced_by": "test-review",
    }
    (tmp_path / "records.json").write_text(json.dumps([{"record": record, "source_class": "wire"}]))
    return folder


def evaluate(folder: Path, *extra: str) -> None:
    records = folder.parent / "records.json"
    args = ["eval", "averitec", "--data", str(folder), "--judge", "gold-labels@1"]
    done = runner.invoke(app, [*args, "--reputation", str(records), "--json", *extra])
    assert done.exit_code == 0, done.output


def test_an_evaluation_queues_nothing_by_default(averitec_dir: Path, tmp_path: Path) -> None:
    evaluate(averitec_dir)
    assert not (tmp_path / "data" / "review-queue.jsonl").exists()
    assert not list(tmp_path.rglob("*.jsonl"))


def test_review_queue_queues_the_estimates_that_could_change_a_label(
    averitec_dir: Path, tmp_path: Path
) -> None:
    queue = tmp_path / "eval-queue.jsonl"
    evaluate(averitec_dir, "--review-queue", str(queue))
    queued = pending(queue)
    assert sorted(i.domain for i in queued) == [f"unknown-{n}.example" for n in range(CLAIMS)]
    assert all(i.estimate.method.value == "heuristic" for i in queued)  # the wire on file is never queued
    evaluate(averitec_dir, "--review-queue", str(queue))  # a second run asks again: nothing new
    assert len(queue.read_text().splitlines()) == CLAIMS


def test_a_review_queue_that_cannot_be_written_is_an_error_before_the_evaluation(
    averitec_dir: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    records = tmp_path / "records.json"
    args = ["eval", "averitec", "--data", str(averitec_dir), "--judge", "gold-labels@1"]
    failed = runner.invoke(app, [*args, "--reputation", str(records), "--review-queue", str(blocked)])
    assert failed.exit_code == 2 and "cannot write the review queue" in failed.output, failed.output
