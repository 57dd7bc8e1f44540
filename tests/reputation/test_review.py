"""The H4 review queue: an estimate that decides the label is queued, reviewed, and filed as a manual version."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.ledger import Directness, Ledger, ReputationMethod, SourceTier
from icarus.reputation.cli import registry_app
from icarus.reputation.registry import load_registry
from icarus.reputation.review import (
    ReviewError,
    accept,
    enqueue_from_result,
    history_path,
    override,
    pending,
    read_queue,
)
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from tests.builders import item, ledger
from tests.reputation.test_versions import fill_up_disk, folder_state

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def deciding_ledger() -> Ledger:
    estimated = item(
        "e",
        domain="estimated-news.example",
        score="0.75",
        method=ReputationMethod.HEURISTIC,
        directness=Directness.PRIMARY_DOCUMENT,
        confidence="1.00",
    )
    return ledger([estimated, item("a")])


def queued(tmp_path: Path) -> tuple[Path, Ledger]:
    led = deciding_ledger()
    result = score_ledger(led, load_policy("icarus@1.1"))
    queue = tmp_path / "review-queue.jsonl"
    added = enqueue_from_result(result, led, queue, now=NOW)
    assert [i.evidence_id for i in added] == ["e"]
    return queue, led


def test_enqueue_lists_the_estimate_that_decides_the_label(tmp_path: Path) -> None:
    queue, led = queued(tmp_path)
    [entry] = pending(queue)
    assert entry.domain == "estimated-news.example"
    assert entry.ledger_id == led.ledger_id and entry.claim_id == "c1"
    assert entry.estimate.method is ReputationMethod.HEURISTIC and entry.estimate.score == Decimal("0.75")
    assert entry.queued_at == NOW
    # the same request again is not queued twice
    assert enqueue_from_result(score_ledger(led, load_policy("icarus@1.1")), led, queue) == []
    assert len(pending(queue)) == 1


def test_nothing_is_queued_under_1_0(tmp_path: Path) -> None:
    led = deciding_ledger()
    queue = tmp_path / "q.jsonl"
    assert enqueue_from_result(score_ledger(led, load_policy("icarus@1.0")), led, queue) == []
    assert not queue.exists()


def test_accept_writes_manual_versions_and_resolves(tmp_path: Path) -> None:
    queue, led = queued(tmp_path)
    out = tmp_path / "registry.json"
    first = accept(queue, "estimated-news.example", None, SourceTier.REGIONAL_NEWS, "editor", out, now=NOW)
    assert first.record.version == "1" and first.record.method is ReputationMethod.MANUAL
    assert first.record.produced_by == "reviewer:editor" and first.record.score == Decimal("0.75")
    on_file = load_registry(out).entries["estimated-news.example"].record
    assert on_file.version == "1" and on_file.tier is SourceTier.REGIONAL_NEWS
    state = read_queue(queue)
    assert state.pending == [] and len(state.resolved) == 1
    assert state.resolved[0][1]["action"] == "accept"

    # queued again by a later check, accepted again: version 2, version 1 kept in the history
    enqueue_from_result(score_ledger(led, load_policy("icarus@1.1")), led, queue, now=NOW)
    second = accept(queue, "https://www.estimated-news.example/x", None, None, "editor", out, now=NOW)
    assert second.record.version == "2"
    assert load_registry(out).entries["estimated-news.example"].record.version == "2"
    history = [json.loads(line) for line in history_path(out).read_text().splitlines()]
    assert [h["record"]["version"] for h in history] == ["1"]
    assert read_queue(queue).pending == [] and len(read_queue(queue).resolved) == 2


def test_override_needs_a_different_score(tmp_path: Path) -> None:
    queue, _ = queued(tmp_path)
    out = tmp_path / "registry.json"
    with pytest.raises(ReviewError, match="use accept"):
        override(queue, "estimated-news.example", Decimal("0.75"), None, "editor", out)
    with pytest.raises(ReviewError, match="use override"):
        accept(queue, "estimated-news.example", Decimal("0.40"), None, "editor", out)
    entry = override(queue, "estimated-news.example", Decimal("0.40"), None, "editor", out, now=NOW)
    assert entry.record.score == Decimal("0.40") and entry.record.version == "1"
    assert read_queue(queue).resolved[0][1]["action"] == "override"
    queue2, _ = queued(tmp_path / "again")
    with pytest.raises(ReviewError, match="invalid review"):
        override(queue2, "estimated-news.example", Decimal("1.5"), None, "editor", out)


def test_unknown_domain_is_a_clear_error(tmp_path: Path) -> None:
    queue, _ = queued(tmp_path)
    with pytest.raises(ReviewError, match=re.escape("no pending review for domain 'nowhere.example'")):
        accept(queue, "nowhere.example", None, None, "editor", tmp_path / "r.json")
    with pytest.raises(ReviewError, match="reviewer role"):
        accept(queue, "estimated-news.example", None, None, "  ", tmp_path / "r.json")


def test_malformed_lines_are_reported_not_fatal(tmp_path: Path) -> None:
    queue, _ = queued(tmp_path)
    with queue.open("a") as handle:
        handle.write("{not json\n")
        handle.write('{"kind": "request", "domain": "x.example"}\n')
        handle.write('{"kind": "mystery"}\n')
    state = read_queue(queue)
    assert len(state.pending) == 1
    assert len(state.problems) == 3
    assert all("malformed queue line skipped" in p for p in state.problems)
    assert ":2:" in state.problems[0]


def test_queue_lines_nested_too_deeply_or_with_over_long_integers_are_reported_not_fatal(
    tmp_path: Path,
) -> None:
    queue, _ = queued(tmp_path)
    with queue.open("a") as handle:
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")
        handle.write('{"kind": "request", "n": ' + "9" * 5000 + "}\n")
    state = read_queue(queue)
    assert len(state.pending) == 1
    assert len(state.problems) == 2 and all("malformed queue line skipped" in p for p in state.problems)


def test_a_review_whose_registry_write_fails_leaves_the_registry_and_its_history_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue, led = queued(tmp_path)
    out = tmp_path / "registry" / "reg.json"
    accept(queue, "estimated-news.example", None, None, "editor", out, now=NOW)
    enqueue_from_result(score_ledger(led, load_policy("icarus@1.1")), led, queue, now=NOW)
    before = folder_state(out.parent)
    fill_up_disk(monkeypatch, lambda p: p.parent == out.parent and p != history_path(out))
    base = ["--queue", str(queue), "--reviewer", "editor", "--out", str(out)]
    failed = CliRunner().invoke(
        registry_app, ["review", "override", "estimated-news.example", "--score", "0.5", *base]
    )
    assert failed.exit_code == 2 and f"error: cannot write {out}: No space left on device" in failed.output
    assert folder_state(out.parent) == before  # the replaced version 1 is not in the history yet
    assert [i.domain for i in pending(queue)] == ["estimated-news.example"]  # still waiting for review


@pytest.mark.parametrize("action", ["accept", "override"])
def test_a_review_rerun_after_the_queue_write_failed_files_no_second_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    queue, _ = queued(tmp_path)
    out = tmp_path / "registry" / "reg.json"
    args = ["review", action, "estimated-news.example", "--queue", str(queue), "--reviewer", "editor"]
    args += ["--out", str(out), *(["--score", "0.5"] if action == "override" else [])]
    fill_up_disk(monkeypatch, lambda p: p == queue)  # the registry is written, the resolution line is not
    failed = CliRunner().invoke(registry_app, args)
    assert failed.exit_code == 2 and "No space left on device" in failed.output, failed.output
    assert load_registry(out).entries["estimated-news.example"].record.version == "1"
    assert [i.domain for i in pending(queue)] == ["estimated-news.example"]
    monkeypatch.undo()
    again = CliRunner().invoke(registry_app, args)  # the reviewer runs the same review again
    assert again.exit_code == 0 and "manual version 1" in again.output, again.output
    assert load_registry(out).entries["estimated-news.example"].record.version == "1"
    assert not history_path(out).exists()  # version 1 was not replaced by a copy of itself
    state = read_queue(queue)
    assert state.pending == [] and state.problems == []  # no half-written line left in the queue
    assert [resolution["version"] for _, resolution in state.resolved] == ["1"]


def test_cli_list_accept_override(tmp_path: Path) -> None:
    queue, _ = queued(tmp_path)
    with queue.open("a") as handle:
        handle.write("garbage\n")
    runner = CliRunner()
    listed = runner.invoke(registry_app, ["review", "list", "--queue", str(queue)])
    assert listed.exit_code == 0, listed.output
    assert "estimated-news.example" in listed.output and "pending: 1" in listed.output
    assert "malformed queue line" in listed.output

    out = tmp_path / "reg.json"
    base = ["--queue", str(queue), "--reviewer", "editor", "--out", str(out)]
    unknown = runner.invoke(registry_app, ["review", "accept", "nowhere.example", *base])
    assert unknown.exit_code == 2 and "no pending review" in unknown.output
    bad_tier = runner.invoke(
        registry_app, ["review", "override", "estimated-news.example", "--tier", "x", *base]
    )
    assert bad_tier.exit_code == 2 and "--tier" in bad_tier.output
    done = runner.invoke(
        registry_app,
        ["review", "override", "estimated-news.example", "--score", "0.5", "--tier", "other", *base],
    )
    assert done.exit_code == 0, done.output
    assert "manual version 1" in done.output
    assert load_registry(out).entries["estimated-news.example"].record.score == Decimal("0.5")
    after = runner.invoke(registry_app, ["review", "list", "--queue", str(queue)])
    assert "pending: 0   resolved: 1" in after.output


def test_enqueue_reads_only_what_was_appended_and_agrees_with_a_full_replay(tmp_path: Path) -> None:
    from icarus.reputation.review import _pending_domains, _read_so_far

    queue, led = queued(tmp_path)
    result = score_ledger(led, load_policy("icarus@1.1"))
    offset = _read_so_far[queue.resolve()].offset if queue.resolve() in _read_so_far else 0
    # another process resolves the domain and appends junk: only those bytes are read, as read_queue reads them
    accept(queue, "estimated-news.example", None, None, "editor", tmp_path / "registry.json", now=NOW)
    with queue.open("a") as handle:
        handle.write('{not json\n{"kind": "request", "domain": "x.example"}\n')
    assert set(_pending_domains(queue)) == {i.domain for i in pending(queue)} == set()
    assert _read_so_far[queue.resolve()].offset == queue.stat().st_size > offset
    # so the domain may be queued again, once
    assert [i.domain for i in enqueue_from_result(result, led, queue, now=NOW)] == ["estimated-news.example"]
    assert enqueue_from_result(result, led, queue, now=NOW) == []
    assert set(_pending_domains(queue)) == {i.domain for i in pending(queue)} == {"estimated-news.example"}


def test_a_queue_file_replaced_under_the_same_name_is_read_again_whole(tmp_path: Path) -> None:
    from icarus.reputation.review import _pending_domains

    queue, led = queued(tmp_path)
    result = score_ledger(led, load_policy("icarus@1.1"))
    assert set(_pending_domains(queue)) == {"estimated-news.example"}
    queue.unlink()  # a new, empty queue (an operator archived the old one)
    assert [i.domain for i in enqueue_from_result(result, led, queue, now=NOW)] == ["estimated-news.example"]
    replacement = tmp_path / "other.jsonl"
    replacement.write_text("")
    replacement.replace(queue)  # same name, another file, shorter than what was read
    assert _pending_domains(queue) == {}
    assert len(enqueue_from_result(result, led, queue, now=NOW)) == 1
