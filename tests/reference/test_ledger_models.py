"""The ledger-model reference against the spec, the published examples and the engine's own results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from icarus.ledger import Ledger
from icarus.scoring.ledger.config import CONFIG_FILES, load_config
from icarus.scoring.ledger.model import LedgerScoringModel
from icarus.scoring.ledger.spec import render_spec
from reference import ledger_models

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec" / "ledger-models.md"
GOLDEN = ROOT / "src" / "icarus" / "scoring" / "ledger" / "golden.json"
LEDGERS = sorted((ROOT / "examples" / "ledgers").glob("*.json")) + sorted(
    p for p in (ROOT / "tests" / "fixtures").glob("*.json") if p.name != "expected.json"
)
# Runs `python -m reference score ARGS...` in a process where `import icarus` fails and src/ is off the path.
BLOCKED = (
    "import sys; sys.modules['icarus'] = None; sys.path = ['.'] + [p for p in sys.path if not p.endswith('src')];"
    "import runpy; sys.argv = ['reference', 'score', *sys.argv[1:]]; runpy.run_module('reference', run_name='__main__')"
)
TRACE_FIELDS = {
    "evidence_sum": ("evidence_sum",),
    "probability": ("probability",),
    "state": ("assessment_state",),
    "stability": ("stability",),
    "spread": ("variants", "spread"),
    "conservative": ("variants", "conservative"),
    "permissive": ("variants", "permissive"),
    "prior_log_odds": ("prior_log_odds",),
    "stability_capped_by": ("stability_capped_by",),
    "support_groups": ("support_groups",),
}


def test_the_spec_is_rendered_from_the_current_configs() -> None:
    assert SPEC.read_text(encoding="utf-8") == render_spec(), (
        "docs/spec/ledger-models.md is stale: python -m icarus.scoring.ledger.spec > docs/spec/ledger-models.md"
    )


def test_the_spec_states_every_released_config_with_its_hash() -> None:
    configs = ledger_models.load_configs(SPEC)
    assert set(configs) == set(CONFIG_FILES)
    for ref, config in configs.items():
        assert ledger_models.config_hash(config) == load_config(ref).compute_hash()


def test_a_config_block_edited_without_its_hash_is_refused(tmp_path: Path) -> None:
    edited = tmp_path / "spec.md"
    edited.write_text(SPEC.read_text("utf-8").replace('"DIRECT": "2.0"', '"DIRECT": "2.5"', 1), "utf-8")
    with pytest.raises(ValueError, match="hashes to"):
        ledger_models.load_configs(edited)


def _golden_input(case: dict) -> dict:
    links = [
        {key: value for key, value in link.items() if key not in {"id", "steps"}}
        | {"link": link["id"], "evidence": link["id"], "interpretive_steps": link["steps"]}
        for link in case["links"]
    ]
    return {"claims": [{"claim": "c1", "claim_type": case["claim_type"], "links": links}]}


@pytest.mark.parametrize("case", json.loads(GOLDEN.read_text("utf-8"))["cases"], ids=lambda c: c["case"])
def test_the_reference_reproduces_every_golden_example(case: dict) -> None:
    trace = ledger_models.score(_golden_input(case), case["model"])["claims"][0]
    for name, expected in case["expected"].items():
        value: object = trace
        for key in TRACE_FIELDS[name]:
            value = value.get(key) if isinstance(value, dict) else None
        assert value == expected, (case["case"], name)


@pytest.mark.parametrize("ref", sorted(CONFIG_FILES))
@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_reference_recomputes_every_published_ledger_trace(path: Path, ref: str) -> None:
    ledger = Ledger.model_validate_json(path.read_text("utf-8"))
    published = json.loads(json.dumps(LedgerScoringModel(load_config(ref)).score(ledger)))
    recomputed = ledger_models.score(published, ref)
    assert recomputed["config_hash"] == published["config_hash"]
    engine = [{k: v for k, v in c.items() if k != "code_hash"} for c in published["trace"]["claims"]]
    assert recomputed["claims"] == engine


def test_the_command_runs_with_the_engine_unimportable(tmp_path: Path) -> None:
    """`python -m reference score` on `icarus score --json` output, in a process where importing icarus fails."""
    ledger = ROOT / "examples" / "ledgers" / "wire-pickups.json"
    ref = "ledger-default@0.3.0"
    published = subprocess.run(
        [str(Path(sys.executable).parent / "icarus"), "score", str(ledger), "--json", "--model", ref],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    record = tmp_path / "record.json"
    record.write_text(published, "utf-8")
    run = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, str(record)], capture_output=True, text=True, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    engine = json.loads(published)["trace"]["claims"]
    assert result["model"] == ref
    assert [c["assessment_state"] for c in result["claims"]] == [c["assessment_state"] for c in engine]
    assert [c["probability"] for c in result["claims"]] == [c["probability"] for c in engine]


def test_an_unknown_model_is_an_error_not_a_guess(tmp_path: Path) -> None:
    record = tmp_path / "claims.json"
    record.write_text(json.dumps({"claims": []}), "utf-8")
    run = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, str(record), "--model", "ledger-strict@9.9.9"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 2 and "unknown ledger model" in run.stderr


def test_check_says_which_claims_agree_and_fails_on_a_tampered_record(tmp_path: Path) -> None:
    ledger = Ledger.model_validate_json(
        (ROOT / "examples" / "ledgers" / "wire-pickups.json").read_text("utf-8")
    )
    published = json.loads(json.dumps(LedgerScoringModel(load_config("ledger-strict@0.1.0")).score(ledger)))
    record = tmp_path / "record.json"
    record.write_text(json.dumps(published), "utf-8")
    run = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED.replace("'score', ", ""), "check", str(record)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("claims agree under ledger-strict@0.1.0")
    published["trace"]["claims"][0]["probability"] = "0.9999"
    record.write_text(json.dumps(published), "utf-8")
    run = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED.replace("'score', ", ""), "check", str(record)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 1 and "differs in probability" in run.stdout
