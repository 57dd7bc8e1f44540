"""The LVF reference against its spec, the published examples and the engine's own stored runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from icarus.ledger import Ledger
from icarus.scoring.lvf.config import CONFIG_FILES, load_lvf_config
from icarus.scoring.lvf.model import LvfModel
from icarus.scoring.lvf.spec import render_spec
from reference import lvf

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec" / "lvf.md"
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
    return json.loads(json.dumps(LvfModel(load_lvf_config(ref)).score(ledger)))


def test_the_spec_is_rendered_from_the_current_configs() -> None:
    assert SPEC.read_text(encoding="utf-8") == render_spec(), (
        "docs/spec/lvf.md is stale: python -m icarus.scoring.lvf.spec > docs/spec/lvf.md"
    )


def test_the_spec_states_every_released_version_with_its_hash() -> None:
    configs = lvf.load_configs(SPEC)
    assert set(configs) == set(CONFIG_FILES)
    for ref, config in configs.items():
        assert lvf.config_hash(config) == load_lvf_config(ref).config_hash


def test_a_config_block_edited_without_its_hash_is_refused(tmp_path: Path) -> None:
    edited = tmp_path / "spec.md"
    edited.write_text(SPEC.read_text("utf-8").replace('"lvf": "0.60"', '"lvf": "0.65"', 1), "utf-8")
    with pytest.raises(ValueError, match="hashes to"):
        lvf.load_configs(edited)


@pytest.mark.parametrize("ref", sorted(CONFIG_FILES))
@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_reference_recomputes_every_published_ledger_run(path: Path, ref: str) -> None:
    published = _published(path, ref)
    result = lvf.score(published, ref)
    assert lvf.differing(published, result) == [(run["claim_id"], []) for run in published["runs"]]


def test_the_worked_misquote_example_is_held_at_a_provisional_77() -> None:
    """docs/lvf.md: the misquote example scores internal consistency 0 and is held at a provisional 77."""
    published = _published(ROOT / "examples" / "ledgers" / "self-evidence-misquote.json", "lvf@3.0")
    (run,) = lvf.score(published, "lvf@3.0")["runs"]
    assert (run["status"], run["display_score"]) == ("held", 77)
    consistency = next(c for c in run["criteria"] if c["criterion"] == "internal_consistency")
    assert consistency["median"] == "0.0"


def test_a_v2_run_is_recomputed_with_v2_weights_whatever_is_current() -> None:
    published = _published(ROOT / "examples" / "ledgers" / "two-independent-wires.json", "lvf@2.0")
    (run,) = lvf.score(published)["runs"]
    weights = {c["component"]: c["weight"] for c in run["components"]}
    assert run["methodology"] == "lvf@2.0" and weights["lvf"] == "0.5"


def test_a_run_stored_before_it_recorded_inputs_takes_nli_and_reliability_as_published() -> None:
    published = _published(ROOT / "examples" / "ledgers" / "two-independent-wires.json", "lvf@3.0")
    older = json.loads(json.dumps(published))
    for run in older["runs"]:
        run.pop("inputs", None)
    assert lvf.differing(older, lvf.score(older)) == lvf.differing(published, lvf.score(published))
    # A tampered NLI value is then read as published, and the score moves with it.
    older["runs"][0]["components"][1]["value"] = "12.5"
    assert "score" in lvf.differing(older, lvf.score(older))[0][1]


def test_the_commands_run_with_the_engine_unimportable(tmp_path: Path) -> None:
    """`python -m reference score|check` on what `icarus lvf score --json` prints, without the engine."""
    ledger = ROOT / "examples" / "ledgers" / "wire-pickups.json"
    runs = subprocess.run(
        [str(Path(sys.executable).parent / "icarus"), "lvf", "score", str(ledger), "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    record = tmp_path / "runs.json"
    record.write_text(runs, "utf-8")
    scored = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "score", str(record)], capture_output=True, text=True, cwd=ROOT
    )
    assert scored.returncode == 0, scored.stderr
    engine = json.loads(runs)
    mine = json.loads(scored.stdout)["runs"]
    assert [r["score"] for r in mine] == [r["score"] for r in engine]
    assert [r["status"] for r in mine] == [r["status"] for r in engine]
    checked = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "check", str(record)], capture_output=True, text=True, cwd=ROOT
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip().endswith(f"{len(engine)} of {len(engine)} agree under lvf@3.0")
    engine[0]["score"] = "99.99"
    record.write_text(json.dumps(engine), "utf-8")
    checked = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "check", str(record)], capture_output=True, text=True, cwd=ROOT
    )
    assert checked.returncode == 1 and "differs in score" in checked.stdout


def test_an_api_view_is_read_by_its_full_record() -> None:
    """GET /v1/lvf/runs/{id} serves the stored record under ``record`` to a caller who may see it."""
    (run,) = _published(ROOT / "examples" / "ledgers" / "wire-pickups.json", "lvf@3.0")["runs"]
    view = {"run_id": 7, "summary": {}, "record": run}
    assert lvf.differing(view, lvf.score(view)) == [(run["claim_id"], [])]
