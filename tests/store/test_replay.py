"""Replay: a stored version re-scores to the same trace bytes; any tampering shows up as a diff."""

from __future__ import annotations

import re
from typing import Any

import pytest
from typer.testing import CliRunner

from icarus.reports.replay import MAX_DIFF_LINES, ReplayError, _bounded, replay
from icarus.reports.replay_cli import EXIT_DIFFERENT, EXIT_IDENTICAL, EXIT_NOT_FOUND, app, parse_ref
from icarus.store import NotFound, Store
from tests.store.conftest import Scored
from tests.store.helpers import rewrite, tamper

runner = CliRunner()


def _edit_first_claim_score(result: dict[str, Any]) -> dict[str, Any]:
    result["trace"]["claims"][0]["confidence"]["score"] = "0.999"
    return result


def test_a_stored_version_replays_identically(store: Store, first: Scored, later: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    store.record_check(later[0].subject, *later, "recheck", check_id=ref.check_id)
    for version, scored in ((1, first), (None, later)):
        outcome = replay(store, ref.check_id, version)
        assert outcome.identical, outcome.diff
        assert outcome.diff == [] and outcome.problems == []
        assert outcome.stored_trace_hash == outcome.new_trace_hash == scored[1]["trace_hash"]
    assert replay(store, ref.check_id).version == 2


def test_a_tampered_trace_is_reported_with_a_diff(store: Store, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    tamper(store, ref.check_id, 1, "result_json", _edit_first_claim_score)
    outcome = replay(store, ref.check_id, 1)
    assert not outcome.identical
    assert outcome.stored_trace_hash == first[1]["trace_hash"] == outcome.new_trace_hash
    assert any("stored trace hashes to" in p for p in outcome.problems)
    assert outcome.diff[0].startswith("--- stored trace /checks/")
    assert any(line.startswith("-") and '"0.999"' in line for line in outcome.diff)
    assert any(line.startswith("+") and '"score"' in line for line in outcome.diff)


def test_a_tampered_published_label_is_reported(store: Store, first: Scored) -> None:
    def relabel(result: dict[str, Any]) -> dict[str, Any]:
        result["overall"]["label"] = "not_supported"
        return result

    ref = store.record_check(first[0].subject, *first)
    tamper(store, ref.check_id, 1, "result_json", relabel)
    outcome = replay(store, ref.check_id, 1)
    assert not outcome.identical and outcome.problems == []  # the trace itself still matches
    assert any('"not_supported"' in line and line.startswith("-") for line in outcome.diff)


def test_a_replay_compares_the_blockers_published_outside_the_trace(store: Store, first: Scored) -> None:
    def edit_blockers(result: dict[str, Any]) -> dict[str, Any]:
        result["claims"][0]["blockers"] = [{"code": "not_on_file", "message": "edited"}]
        return result

    assert first[1]["claims"][0]["blockers"]  # two-independent-wires is decided below high
    ref = store.record_check(first[0].subject, *first)
    assert replay(store, ref.check_id, 1).identical
    tamper(store, ref.check_id, 1, "result_json", edit_blockers)
    outcome = replay(store, ref.check_id, 1)
    assert not outcome.identical and outcome.problems == []  # the trace itself still matches
    assert any(line.startswith("-") and '"edited"' in line for line in outcome.diff)


def test_a_tampered_ledger_is_reported(store: Store, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    # Same content, different bytes (canonical key order): the recorded ledger hash no longer holds.
    tamper(store, ref.check_id, 1, "ledger_json", lambda ledger: ledger)
    outcome = replay(store, ref.check_id, 1)
    assert not outcome.identical
    assert any("stored ledger hashes to" in p for p in outcome.problems)


def test_unknown_ids_cannot_be_replayed(store: Store, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    with pytest.raises(NotFound):
        replay(store, "nope")
    with pytest.raises(NotFound):
        replay(store, ref.check_id, 2)


def test_an_unknown_policy_cannot_be_replayed(store: Store, db_url: str, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    rewrite(store, ref.check_id, 1, policy="icarus@9.9")
    with pytest.raises(ReplayError, match=re.escape("unknown policy 'icarus@9.9'")):
        replay(store, ref.check_id, 1)
    result = runner.invoke(app, [ref.check_id, "--database-url", db_url])
    assert result.exit_code == EXIT_NOT_FOUND
    assert "unknown policy" in result.stderr


def test_long_diffs_are_cut_with_a_note() -> None:
    lines = [f"+{n}" for n in range(MAX_DIFF_LINES + 25)]
    cut = _bounded(lines)
    assert len(cut) == MAX_DIFF_LINES + 1
    assert cut[-1] == "... 25 more diff lines not shown"
    assert _bounded(lines[:3]) == lines[:3]


# --- the command line ----------------------------------------------------------------------------------


def test_cli_identical_exits_0(store: Store, db_url: str, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    for target in (f"{ref.check_id}/1", ref.check_id):
        result = runner.invoke(app, [target, "--database-url", db_url])
        assert result.exit_code == EXIT_IDENTICAL, result.output
        assert result.stdout.startswith(f"identical: {ref.check_id}/1 sha256:")


def test_cli_different_exits_1_with_the_diff(store: Store, db_url: str, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    tamper(store, ref.check_id, 1, "result_json", _edit_first_claim_score)
    result = runner.invoke(app, [f"{ref.check_id}/1", "--database-url", db_url])
    assert result.exit_code == EXIT_DIFFERENT, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"different: {ref.check_id}/1 stored sha256:")
    assert any(line.startswith("problem: stored trace hashes to") for line in lines)
    assert any('"0.999"' in line for line in lines)


@pytest.mark.parametrize(
    "target",
    [
        "nope",
        "nope/1",
        "{check}/7",
        "{check}/x",
        "{check}/0",
        "",
        "a/1/2",
        "{check}/2147483648",
        "{check}/" + "9" * 30,
    ],
)
def test_cli_not_found_or_bad_ref_exits_2(store: Store, db_url: str, first: Scored, target: str) -> None:
    ref = store.record_check(first[0].subject, *first)
    result = runner.invoke(app, [target.format(check=ref.check_id), "--database-url", db_url])
    assert result.exit_code == EXIT_NOT_FOUND, result.output
    assert result.stderr.startswith("error: ")


def test_cli_unusable_database_exits_2(tmp_path: Any) -> None:
    for url in ("not a url", "postgresql://nobody:secret@127.0.0.1:1/none"):
        result = runner.invoke(app, ["abc/1", "--database-url", url])
        assert result.exit_code == EXIT_NOT_FOUND, result.output
        assert result.stderr.startswith("error: ") and "secret" not in result.stderr


def test_cli_reads_the_database_url_from_settings(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, first: Scored
) -> None:
    url = f"sqlite:///{tmp_path / 'settings.db'}"
    with Store(url) as store:
        ref = store.record_check(first[0].subject, *first)
    monkeypatch.setenv("ICARUS_DATABASE_URL", url)
    result = runner.invoke(app, [ref.check_id])
    assert result.exit_code == EXIT_IDENTICAL, result.output


def test_parse_ref() -> None:
    assert parse_ref("abc/3") == ("abc", 3)
    assert parse_ref("abc") == ("abc", None)
    assert parse_ref(" abc/ ") == ("abc", None)
    for bad in ("", "/", "abc/x", "abc/0", "a/b/c", "abc/-1"):
        with pytest.raises(ValueError):
            parse_ref(bad)
