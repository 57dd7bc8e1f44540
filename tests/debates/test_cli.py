"""``icarus debate``: the operator's commands from a transcript file to claim answers, and the folder watch."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.debates import cli
from icarus.debates.model import ResearchMode
from icarus.debates.service import DebatePipeline
from icarus.settings import Settings
from tests.debates.store_fixtures import ScriptedResearch, sentence_claims

TRANSCRIPT = "SPEAKER_1: Unemployment fell to 3.9 percent in 2023.\nSPEAKER_2: Crime fell 10 percent.\n"
runner = CliRunner()


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    research = ScriptedResearch()

    def scripted(cls: type[DebatePipeline], settings: Settings) -> DebatePipeline:
        return DebatePipeline(detect=sentence_claims, research=research)

    monkeypatch.setattr(DebatePipeline, "from_settings", classmethod(scripted))
    return tmp_path


def run(*args: str) -> object:
    result = runner.invoke(cli.app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.output) if result.output.lstrip().startswith(("{", "[")) else result.output


def test_a_file_through_the_speaker_gate_to_answers(tmp_path: Path) -> None:
    transcript = tmp_path / "debate.txt"
    transcript.write_text(TRANSCRIPT)
    debate = run("create", "--title", "Town hall", "-m", "two_step,decompose", "--speaker-gate")
    assert isinstance(debate, dict) and debate["settings"]["research_modes"] == ["two_step", "decompose"]
    ingested = run("ingest", debate["id"], str(transcript))
    assert isinstance(ingested, dict) and ingested["detection"] == "deferred"
    refused = runner.invoke(cli.app, ["detect", debate["id"]])
    assert refused.exit_code == 1 and "SPEAKER_1" in refused.output
    waiting = run("speakers", debate["id"])
    assert isinstance(waiting, dict) and waiting["waiting"] == ["SPEAKER_1", "SPEAKER_2"]
    named = run("speakers", debate["id"], "SPEAKER_1=Ana", "SPEAKER_2=Ben")
    assert isinstance(named, dict) and named["waiting"] == [] and named["detection"] == "done"
    claims = run("claims", debate["id"], "--json")
    assert isinstance(claims, list) and [c["speaker_name"] for c in claims] == ["Ana", "Ben"]
    results = run("results", str(claims[0]["claim_id"]), "--debate", debate["id"])
    assert isinstance(results, dict) and results["claim_verdict"]["verdict"] == "true"
    assert results["best"] == results["claim_verdict"] and results["conflict"] is False
    assert [p["research_mode"] for p in results["panels"]] == ["two_step", "decompose"]
    table = runner.invoke(cli.app, ["claims", debate["id"]])
    assert "Unemployment" in table.output and "agreement" in table.output


def test_no_wait_leaves_research_to_the_worker_and_run_does_it(tmp_path: Path) -> None:
    transcript = tmp_path / "debate.txt"
    transcript.write_text(TRANSCRIPT)
    debate = run("create", "-m", "two_step")
    assert isinstance(debate, dict)
    run("ingest", debate["id"], str(transcript), "--no-wait")
    assert run("claims", debate["id"], "--json") == []
    ran = run("run")
    assert isinstance(ran, dict) and ran["ran"] >= 1
    claims = run("claims", debate["id"], "--json")
    assert isinstance(claims, list) and all(c["claim_verdict"] for c in claims)


def test_errors_are_reported_not_raised(tmp_path: Path) -> None:
    bad = tmp_path / "bad.srt"
    bad.write_text("1\n00:00:01,000 --> banana\nhello\n")
    debate = run("create", "--no-research")
    assert isinstance(debate, dict)
    broken = runner.invoke(cli.app, ["ingest", debate["id"], str(bad)])
    assert broken.exit_code == 1 and "line" in broken.output
    missing = runner.invoke(cli.app, ["claims", "no-such-debate"])
    assert missing.exit_code == 1 and "no debate" in missing.output
    unknown = runner.invoke(cli.app, ["create", "-m", "telepathy"])
    assert unknown.exit_code == 2


def test_watch_turns_each_new_caption_file_into_a_debate_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCH_RESEARCH_MODE", "local")
    folder = tmp_path / "captions"
    folder.mkdir()
    caption = folder / "evening.txt"
    caption.write_text(TRANSCRIPT)
    import os

    os.utime(caption, (1, 1))  # long settled
    first = runner.invoke(cli.app, ["watch", str(folder), "--once"])
    assert first.exit_code == 0, first.output
    made = json.loads(first.output)
    assert made["file"] == "evening.txt" and made["segments"] == 2
    assert runner.invoke(cli.app, ["watch", str(folder), "--once"]).output == ""  # seen: nothing new
    claims = run("claims", made["debate_id"], "--json")
    assert isinstance(claims, list) and len(claims) == 2
    results = run("results", str(claims[0]["claim_id"]))
    assert isinstance(results, dict) and [p["research_mode"] for p in results["panels"]] == [
        ResearchMode.LOCAL.value
    ]


def test_watch_reports_an_unreadable_caption_file_once_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.setenv("WATCH_RESEARCH_MODE", "none")
    folder = tmp_path / "captions"
    folder.mkdir()
    (folder / "a-broken.srt").write_text("1\n00:00:01,000 --> nonsense\nSPEAKER_1: Taxes rose 5 percent.\n")
    (folder / "b-evening.txt").write_text(TRANSCRIPT)
    for name in ("a-broken.srt", "b-evening.txt"):
        os.utime(folder / name, (1, 1))
    first = runner.invoke(cli.app, ["watch", str(folder), "--once"])
    assert first.exit_code == 0, first.output
    assert "a-broken.srt" in first.stderr and "line" in first.stderr
    assert json.loads(first.stdout)["file"] == "b-evening.txt"
    again = runner.invoke(cli.app, ["watch", str(folder), "--once"])
    assert (again.exit_code, again.output) == (0, "")  # its hash is seen: not read again until it changes
    (folder / "a-broken.srt").write_text(
        "1\n00:00:01,000 --> 00:00:04,000\nSPEAKER_1: Taxes rose 5 percent.\n"
    )
    os.utime(folder / "a-broken.srt", (1, 1))
    fixed = runner.invoke(cli.app, ["watch", str(folder), "--once"])
    assert fixed.exit_code == 0 and json.loads(fixed.stdout)["file"] == "a-broken.srt"


def test_export_prints_each_claim_with_its_final_answer(tmp_path: Path) -> None:
    transcript = tmp_path / "debate.txt"
    transcript.write_text(TRANSCRIPT)
    debate = run("create", "-m", "two_step")
    assert isinstance(debate, dict)
    run("ingest", debate["id"], str(transcript))
    exported = run("export", debate["id"])
    assert isinstance(exported, dict) and [c["verdict"] for c in exported["claims"]] == ["true", "true"]
    as_csv = run("export", debate["id"], "--format", "csv")
    assert isinstance(as_csv, str) and len(as_csv.splitlines()) == 3 and as_csv.startswith("claim_id,")
    digest = run("digest", debate["id"], "--since", "2000-01-01T00:00:00")
    assert isinstance(digest, dict) and digest["alerts"] == []  # true answers do not alert
    assert runner.invoke(cli.app, ["export", debate["id"], "--format", "xml"]).exit_code == 2


def test_rebuild_builds_the_answers_again_and_counts_what_changed(tmp_path: Path) -> None:
    transcript = tmp_path / "debate.txt"
    transcript.write_text(TRANSCRIPT)
    debate = run("create", "-m", "two_step")
    assert isinstance(debate, dict)
    run("ingest", debate["id"], str(transcript))
    assert run("rebuild", debate["id"]) == {"changed": 0}  # the answers stand as they were built
    from sqlalchemy import update

    from icarus.store import Store
    from icarus.store.debate_tables import ClaimVerdictRecord

    store = Store(Settings().resolved_database_url).open()
    store.transaction(lambda s: s.execute(update(ClaimVerdictRecord).values(verdict_json=None)))
    store.close()
    assert run("rebuild") == {"changed": 2}  # lost answers built again from the panels
    claims = run("claims", debate["id"], "--json")
    assert isinstance(claims, list) and all(c["claim_verdict"]["verdict"] == "true" for c in claims)
    assert runner.invoke(cli.app, ["rebuild", "nosuchdebate"]).exit_code == 1


def test_watch_refuses_an_unknown_research_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCH_RESEARCH_MODE", "telepathy")
    result = runner.invoke(cli.app, ["watch", str(tmp_path), "--once"])
    assert result.exit_code == 2 and "telepathy" in result.output


def test_plans_organisations_and_token_membership() -> None:
    from icarus.store import Store
    from icarus.store.tokens import Role, TokenStore

    settings = Settings()
    store = Store(settings.resolved_database_url).open()
    token = TokenStore(store).create("desk", Role.API, datetime.now(UTC))
    store.close()
    plan = run("plan-create", "starter", "-m", "two_step", "--claim-quota", "100", "--spend-limit", "25")
    assert isinstance(plan, dict) and plan["methods"] == ["two_step"] and plan["claim_quota"] == 100
    org = run("org-create", "Norvale Herald", "--plan", str(plan["id"]))
    assert isinstance(org, dict) and org["plan"]["name"] == "starter"
    run("org-add-token", str(org["id"]), str(token.info.id))
    listed = run("orgs")
    assert isinstance(listed, list) and listed[0]["usage"]["claims"] == 0
    missing = runner.invoke(cli.app, ["org-add-token", str(org["id"]), "999"])
    assert missing.exit_code == 1 and "no token" in missing.output


def test_create_takes_the_date_the_debate_took_place() -> None:
    debate = run("create", "--held-at", "2020-10-22", "--no-research")
    assert isinstance(debate, dict) and debate["held_at"].startswith("2020-10-22 00:00:00")
    for bad in ("2020-13-01", "2999-01-01"):
        refused = runner.invoke(cli.app, ["create", "--held-at", bad])
        assert refused.exit_code == 1 and "held_at" in refused.output, refused.output
