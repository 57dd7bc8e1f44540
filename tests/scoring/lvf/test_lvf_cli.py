"""``icarus lvf``: score, record, show, methodology and the challenge commands; bad input exits 2."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.lvf.cli import lvf_app
from icarus.scoring.lvf.config import load_lvf_config
from icarus.scoring.lvf.methodology import render_lvf_methodology

LEDGER = str(Path(__file__).parents[3] / "examples" / "ledgers" / "two-independent-wires.json")
runner = CliRunner()


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ICARUS_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("ICARUS_LLM_MODEL", raising=False)


def test_lvf_ledger_is_short_for_lvf_score() -> None:
    short = runner.invoke(lvf_app, [LEDGER, "--json"])
    long = runner.invoke(lvf_app, ["score", LEDGER, "--json"])
    assert short.exit_code == 0, short.output
    assert short.output == long.output
    (run,) = json.loads(short.output)
    assert run["methodology"] == "lvf@3.0" and run["status"] == "scored"  # both offline assessors agree


def test_record_show_and_challenge_flow(tmp_path: Path) -> None:
    db = str(tmp_path / "lvf.db")
    recorded = runner.invoke(lvf_app, ["score", LEDGER, "--record", "--db", db, "--version", "lvf@2.0"])
    assert recorded.exit_code == 0 and "Stored as run 1" in recorded.output
    shown = runner.invoke(lvf_app, ["show", "1", "--db", db])
    assert "under lvf@2.0" in shown.output and "50 %" in shown.output
    public = json.loads(runner.invoke(lvf_app, ["show", "1", "--public", "--db", db]).output)
    assert public["methodology"] == "lvf@2.0" and "assessors" in public
    assert json.loads(runner.invoke(lvf_app, ["show", "1", "--json", "--db", db]).output)["run_format"]
    assert runner.invoke(lvf_app, ["runs", "--db", db]).output.startswith("1\tlvf@2.0")

    submission = tmp_path / "challenge.json"
    submission.write_text(
        json.dumps(
            {
                "run_id": 1,
                "submitter": "sub-1",
                "reason": "Newer figures exist.",
                "evidence": [{"url": "https://port.example/r", "excerpt": "9%", "stance": "refutes"}],
            }
        )
    )
    submitted = runner.invoke(lvf_app, ["challenge", "submit", str(submission), "--db", db])
    assert submitted.exit_code == 0, submitted.output
    challenge = submitted.output.split()[0]
    assert (
        "counted"
        in runner.invoke(lvf_app, ["challenge", "vote", challenge, "--voter", "v", "--db", db]).output
    )
    queue = json.loads(runner.invoke(lvf_app, ["challenge", "queue", "--json", "--db", db]).output)
    assert queue[0]["challenge_id"] == challenge and queue[0]["votes"] == 1
    assert "1 vote(s)" in runner.invoke(lvf_app, ["challenge", "queue", "--db", db]).output
    asked = runner.invoke(
        lvf_app,
        [
            "challenge",
            "review",
            challenge,
            "--action",
            "request-more-info",
            "--reviewer",
            "r",
            "--note",
            "n",
            "--db",
            db,
        ],
    )
    assert asked.output.strip().endswith("awaiting_submitter")
    responded = runner.invoke(lvf_app, ["challenge", "respond", challenge, str(submission), "--db", db])
    assert responded.output.strip().endswith("queued")
    accepted = runner.invoke(
        lvf_app, ["challenge", "review", challenge, "--action", "accept", "--reviewer", "r", "--db", db]
    )
    assert accepted.output.strip().endswith("accepted")
    history = json.loads(runner.invoke(lvf_app, ["challenge", "show", challenge, "--db", db]).output)
    assert history["state"] == "accepted" and len(history["events"]) == 4


def test_methodology_command_prints_the_rendered_page() -> None:
    result = runner.invoke(lvf_app, ["methodology", "lvf@3.0"])
    assert result.output == render_lvf_methodology(load_lvf_config("lvf@3.0"))


@pytest.mark.parametrize(
    "args",
    [
        ["score", "missing.json"],
        ["score", LEDGER, "--version", "lvf@9.9"],
        ["score", LEDGER, "--claim", "nope"],
        ["methodology", "lvf@1.0"],
        ["show", "5"],
        ["challenge", "submit", "missing.json"],
        ["challenge", "review", "ch-x", "--action", "accept", "--reviewer", "r"],
        ["challenge", "vote", "ch-x", "--voter", "v"],
        ["challenge", "show", "ch-x"],
    ],
)
def test_bad_input_is_a_clear_error_with_exit_code_2(args: list[str], tmp_path: Path) -> None:
    needs_db = args[0] in {"show", "challenge"}
    result = runner.invoke(lvf_app, args + (["--db", str(tmp_path / "x.db")] if needs_db else []))
    assert result.exit_code == 2 and "error:" in result.output and "Traceback" not in result.output


def test_an_invalid_submission_is_refused_with_its_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"run_id": 1, "submitter": "s", "reason": "r", "evidence": []}))
    result = runner.invoke(lvf_app, ["challenge", "submit", str(bad), "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 2 and "evidence" in result.output


def _submission(run_id: int) -> str:
    evidence = [{"url": "https://port.example/r", "excerpt": "9%", "stance": "refutes"}]
    return json.dumps({"run_id": run_id, "submitter": "sub-1", "reason": "Newer.", "evidence": evidence})


@pytest.mark.parametrize("run_id", [2**31, 2**63, 10**20])  # past PostgreSQL's and SQLite's integers
def test_a_run_id_past_the_database_integer_range_is_not_found(tmp_path: Path, run_id: int) -> None:
    db = str(tmp_path / "lvf.db")
    assert runner.invoke(lvf_app, ["score", LEDGER, "--record", "--db", db]).exit_code == 0
    shown = runner.invoke(lvf_app, ["show", str(run_id), "--db", db])
    assert shown.exit_code == 2 and f"error: no LVF run {run_id}" in shown.output, shown.output
    submission = tmp_path / "challenge.json"
    submission.write_text(_submission(run_id))
    submitted = runner.invoke(lvf_app, ["challenge", "submit", str(submission), "--db", db])
    assert submitted.exit_code == 2 and f"no LVF run {run_id} to challenge" in submitted.output
    assert "Traceback" not in shown.output + submitted.output


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),  # deeper than json can parse
        (_submission(1).replace('"run_id": 1', '"run_id": ' + "9" * 5000), "is not valid JSON"),  # too long
    ],
)
def test_a_hostile_submission_file_is_a_one_line_error(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "challenge.json"
    path.write_text(text)
    db = str(tmp_path / "lvf.db")
    for args in (["submit", str(path)], ["respond", "ch-x", str(path)]):
        result = runner.invoke(lvf_app, ["challenge", *args, "--db", db])
        assert result.exit_code == 2 and f"error: {path} {problem}" in result.output, result.output
        assert result.output.strip().count("\n") == 0, result.output


@pytest.mark.parametrize("ref", ["lvf@3.0", "lvf@2.0"])
def test_published_lvf_methodology_pages_are_up_to_date(ref: str) -> None:
    page = Path(__file__).parents[3] / "docs" / "methodology" / f"{ref.replace('@', '-')}.md"
    assert page.read_text() == render_lvf_methodology(load_lvf_config(ref)), (
        f"regenerate with `icarus lvf methodology {ref} > {page.name}`"
    )


def test_methodology_follows_a_changed_number() -> None:
    config = load_lvf_config("lvf@3.0")
    changed = config.model_copy(update={"checkworthiness_gate": Decimal("0.35")})
    assert "below 0.35" in render_lvf_methodology(changed)
    assert "below 0.30" in render_lvf_methodology(config)


def test_accepted_challenges_are_listed_and_read_by_a_later_run_on_request(tmp_path: Path) -> None:
    db = ["--db", str(tmp_path / "lvf.db")]
    assert runner.invoke(lvf_app, ["score", LEDGER, "--record", *db]).exit_code == 0
    old = runner.invoke(lvf_app, ["show", "1", "--json", *db]).output
    old_text = runner.invoke(lvf_app, ["show", "1", *db]).output
    submission = tmp_path / "challenge.json"
    evidence = {"url": "https://port.example/r", "excerpt": "The figure was revised.", "stance": "refutes"}
    submission.write_text(json.dumps({"run_id": 1, "submitter": "s", "reason": "r", "evidence": [evidence]}))
    challenge = runner.invoke(lvf_app, ["challenge", "submit", str(submission), *db]).output.split()[0]
    assert runner.invoke(lvf_app, ["challenge", "accepted", *db]).output == ""  # queued, not accepted
    review = ["challenge", "review", challenge, "--action", "accept", "--reviewer", "r", *db]
    assert runner.invoke(lvf_app, review).exit_code == 0

    listed = json.loads(
        runner.invoke(lvf_app, ["challenge", "accepted", "--claim", "c1", "--json", *db]).output
    )
    assert [(c["challenge_id"], c["run_id"], c["used_by"]) for c in listed] == [(challenge, 1, [])]
    assert runner.invoke(lvf_app, ["challenge", "accepted", "--claim", "c9", *db]).output == ""
    assert runner.invoke(lvf_app, ["challenge", "accepted", "--ledger", "other", *db]).output == ""

    plain = runner.invoke(lvf_app, ["score", LEDGER, "--record", "--version", "lvf@2.0", *db])
    assert "Stored as run 2" in plain.stdout and challenge not in plain.stdout
    assert f"accepted challenge(s) not read by any stored run ({challenge})" in plain.stderr

    fed = runner.invoke(lvf_app, ["score", LEDGER, "--record", "--with-accepted-challenges", *db])
    assert fed.exit_code == 0 and "Stored as run 3" in fed.stdout
    assert f"Evidence from accepted challenges: {challenge} (1 item(s))" in fed.stdout
    assert fed.stderr == ""
    assert runner.invoke(lvf_app, ["challenge", "accepted", *db]).output == ""
    everything = runner.invoke(lvf_app, ["challenge", "accepted", "--all", *db]).output
    assert everything.startswith(challenge) and everything.rstrip().endswith("\t3")
    public = json.loads(runner.invoke(lvf_app, ["show", "3", "--public", *db]).output)
    assert public["challenges"] == [{"challenge_id": challenge, "evidence_items": 1}]
    assert runner.invoke(lvf_app, ["show", "1", "--json", *db]).output == old
    assert runner.invoke(lvf_app, ["show", "1", *db]).output == old_text
