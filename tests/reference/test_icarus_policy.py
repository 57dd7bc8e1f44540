"""The Icarus-policy reference against its spec, the published examples and the engine's own results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from icarus.ledger import Ledger
from icarus.scoring.icarus.config import POLICY_FILES, load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.scoring.icarus.spec import render_spec
from icarus.scoring.icarus.spec_examples import worked_ledgers
from reference import icarus_policy, ledger_models

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec" / "icarus-policy.md"
LEDGERS = sorted((ROOT / "examples" / "ledgers").glob("*.json")) + sorted(
    p for p in (ROOT / "tests" / "fixtures").glob("*.json") if p.name != "expected.json"
)
# Runs `python -m reference ARGS...` in a process where `import icarus` fails and src/ is off the path.
BLOCKED = (
    "import sys; sys.modules['icarus'] = None; sys.path = ['.'] + [p for p in sys.path if not p.endswith('src')];"
    "import runpy; sys.argv = ['reference', *sys.argv[1:]]; runpy.run_module('reference', run_name='__main__')"
)


def _published(path: Path, ref: str) -> dict:
    ledger = Ledger.model_validate_json(path.read_text("utf-8"))
    return json.loads(json.dumps(score_ledger(ledger, load_policy(ref))))


def _agrees(published: dict, ref: str) -> None:
    recomputed = icarus_policy.score(published, ref)
    assert recomputed["config_hash"] == published["config_hash"]
    assert recomputed["claims"] == icarus_policy.published_view(published)
    assert recomputed["overall"] == {k: published["overall"][k] for k in ("label", "band")}


def test_the_spec_is_rendered_from_the_current_configs() -> None:
    assert SPEC.read_text(encoding="utf-8") == render_spec(), (
        "docs/spec/icarus-policy.md is stale: python -m icarus.scoring.icarus.spec > docs/spec/icarus-policy.md"
    )


def test_the_spec_states_every_released_policy_with_its_hash() -> None:
    configs = ledger_models.load_configs(SPEC)
    assert set(configs) == set(POLICY_FILES)
    for ref, config in configs.items():
        assert ledger_models.config_hash(config) == load_policy(ref).config_hash


@pytest.mark.parametrize("ref", sorted(POLICY_FILES))
@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_reference_recomputes_every_published_ledger(path: Path, ref: str) -> None:
    _agrees(_published(path, ref), ref)


@pytest.mark.parametrize("ref", sorted(POLICY_FILES))
@pytest.mark.parametrize("name", sorted(worked_ledgers()))
def test_the_reference_reproduces_every_worked_example_of_the_spec(name: str, ref: str) -> None:
    ledger = worked_ledgers()[name]
    _agrees(json.loads(json.dumps(score_ledger(ledger, load_policy(ref)))), ref)


def test_a_recomputed_retraction_to_unverifiable_keeps_its_scores_band() -> None:
    """The decision the spec records: ⚠️ (rule 2) -> ❔ after the refuting origin's retraction, one origin
    left (G1): G4 'recomputed' does not cap the band, so the score's medium is published by both."""
    ledger = worked_ledgers()["retracted-refutation"]
    published = json.loads(json.dumps(score_ledger(ledger, load_policy("icarus@1.2"))))
    trace = published["trace"]["claims"][0]
    assert [p["decision"]["label"] for p in trace["passes"]] == ["misleading", "unverifiable"]
    assert [(g["gate"], g["effect"]) for g in trace["gates"]] == [("G4", "recomputed"), ("G1", "recheck")]
    assert published["claims"][0]["band"] == trace["confidence"]["band"] == "medium"
    _agrees(published, "icarus@1.2")


def test_a_trace_older_than_the_spec_is_refused() -> None:
    published = _published(LEDGERS[0], "icarus@1.2")
    published["trace"]["trace_version"] = "icarus-trace/1"
    with pytest.raises(ValueError, match="trace version"):
        icarus_policy.score(published, "icarus@1.2")


def test_a_stored_version_as_the_api_serves_it_recomputes_like_its_result() -> None:
    """The report page's "This version as JSON" is GET /v1/checks/{id}/versions/{n}: the result inside."""
    published = _published(LEDGERS[0], "icarus@1.2")
    version = {"id": "chk", "version": 1, "policy": "icarus@1.2", "result": published}
    assert icarus_policy.score(version, "icarus@1.2") == icarus_policy.score(published, "icarus@1.2")
    assert all(
        not fields
        for _, fields in icarus_policy.differing(version, icarus_policy.score(version, "icarus@1.2"))
    )


def test_a_record_recomputes_only_under_its_own_policy() -> None:
    published = _published(LEDGERS[0], "icarus@1.1")
    with pytest.raises(ValueError, match=r"scored under icarus@1\.1"):
        icarus_policy.score(published, "icarus@1.0")


def test_score_and_check_run_with_the_engine_unimportable(tmp_path: Path) -> None:
    ledger = ROOT / "tests" / "fixtures" / "retraction.json"
    published = subprocess.run(
        [
            str(Path(sys.executable).parent / "icarus"),
            "score",
            str(ledger),
            "--json",
            "--policy",
            "icarus@1.1",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    record = tmp_path / "record.json"
    record.write_text(published, "utf-8")
    run = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "score", str(record), "--model", "icarus@1.1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["overall"]["label"] == json.loads(published)["overall"]["label"]
    check = [sys.executable, "-I", "-c", BLOCKED, "check", str(record)]
    run = subprocess.run(check, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("agree under icarus@1.1")
    tampered = json.loads(published)
    tampered["claims"][0]["band"] = "high"
    record.write_text(json.dumps(tampered), "utf-8")
    run = subprocess.run(check, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1 and "differs in published" in run.stdout
