"""The model commands: icarus models, score --model, compare, policy show for any model; their errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from icarus.cli import app
from tests.scoring.ledger_models.support import link, links_ledger

runner = CliRunner()


def _ledger_file(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.json"
    ledger = links_ledger([link("e1", observation="EXPERT_ANALYSIS"), link("e2", relevance="WEAK")])
    path.write_text(ledger.model_dump_json())
    return path


def test_models_lists_every_model_with_its_hash() -> None:
    result = runner.invoke(app, ["models", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["model"]: row for row in json.loads(result.stdout)}
    assert rows["ledger-strict@0.3.0"]["family"] == "ledger"
    assert rows["icarus@1.1"]["config_hash"].startswith("sha256:")
    table = runner.invoke(app, ["models"])
    assert "ledger-default@0.2.0" in table.stdout


def test_score_with_a_ledger_model(tmp_path: Path) -> None:
    path = _ledger_file(tmp_path)
    console = runner.invoke(app, ["score", str(path), "--model", "ledger-default@0.1.0"])
    assert console.exit_code == 0, console.output
    assert "LEANS_SUPPORTED: 0.69 under ledger-default@0.1.0" in console.stdout
    data = json.loads(
        runner.invoke(app, ["score", str(path), "--model", "ledger-default@0.1.0", "--json"]).stdout
    )
    assert data["model"] == "ledger-default@0.1.0" and data["claims"][0]["probability"] == "0.6857"
    markdown = runner.invoke(app, ["score", str(path), "--model", "ledger-strict@0.1.0", "--md"]).stdout
    assert "| c1 | UNRESOLVED | MEDIUM |" in markdown


def test_score_model_icarus_is_the_policy(tmp_path: Path) -> None:
    path = _ledger_file(tmp_path)
    by_model = json.loads(runner.invoke(app, ["score", str(path), "--model", "icarus@1.0", "--json"]).stdout)
    by_policy = json.loads(
        runner.invoke(app, ["score", str(path), "--policy", "icarus@1.0", "--json"]).stdout
    )
    assert by_model == by_policy


def test_score_errors(tmp_path: Path) -> None:
    path = _ledger_file(tmp_path)
    unknown = runner.invoke(app, ["score", str(path), "--model", "ledger-strict@9.9.9"])
    assert unknown.exit_code == 2 and "error: unknown model 'ledger-strict@9.9.9'" in unknown.stderr
    both = runner.invoke(
        app, ["score", str(path), "--model", "ledger-strict@0.1.0", "--policy", "icarus@1.0"]
    )
    assert both.exit_code == 2 and "give one of --model and --policy" in both.stderr
    missing = runner.invoke(app, ["score", str(tmp_path / "none.json"), "--model", "ledger-strict@0.1.0"])
    assert missing.exit_code == 2 and "error: cannot read ledger" in missing.stderr


def test_compare_prints_both_results_and_the_diff(tmp_path: Path) -> None:
    path = _ledger_file(tmp_path)
    result = runner.invoke(
        app,
        ["compare", str(path), "--models", "ledger-strict@0.1.0,ledger-default@0.1.0"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "UNRESOLVED: 0.54 under ledger-strict@0.1.0" in out
    assert "LEANS_SUPPORTED: 0.69 under ledger-default@0.1.0" in out
    assert "observation_weight.EXPERT_ANALYSIS" in out
    data = json.loads(
        runner.invoke(
            app, ["compare", str(path), "--models", "ledger-strict@0.1.0,ledger-default@0.1.0", "--json"]
        ).stdout
    )
    assert data["diff"]["items"][0]["config_keys"] == ["observation_weight.EXPERT_ANALYSIS"]
    assert [m["ref"] for m in data["models"]] == ["ledger-strict@0.1.0", "ledger-default@0.1.0"]


def test_compare_errors(tmp_path: Path) -> None:
    path = _ledger_file(tmp_path)
    one = runner.invoke(app, ["compare", str(path), "--models", "ledger-strict@0.1.0"])
    assert one.exit_code == 2 and "--models takes two models" in one.stderr
    unknown = runner.invoke(app, ["compare", str(path), "--models", "ledger-strict@0.1.0,nope@1"])
    assert unknown.exit_code == 2 and "unknown model 'nope@1'" in unknown.stderr


def test_policy_show_renders_any_registered_model() -> None:
    result = runner.invoke(app, ["policy", "show", "ledger-strict@0.3.0"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# How a score is worked out \u2014 ledger-strict@0.3.0")
    assert "named_edition_only" in result.stdout
    unknown = runner.invoke(app, ["policy", "show", "ledger-strict@7.0.0"])
    assert unknown.exit_code == 2 and "unknown model" in unknown.stderr
