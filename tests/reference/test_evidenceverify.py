"""The EvidenceVerify reference against its spec, the shipped examples and the engine's published results."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from icarus.evidenceverify.cli import evidence_verify_command, verify_with_inputs
from icarus.evidenceverify.service import evidence_verify, judge_stances
from icarus.judges.offline import OfflineLexicalJudge
from icarus.judges.protocol import AttributionVerdict, JudgeRequest, StanceVerdict
from icarus.ledger import Ledger, Stance
from icarus.research.excerpts import best_excerpt
from icarus.scoring.evidenceverify import OfflineCriticalityJudge, load_claim, load_store
from icarus.scoring.evidenceverify.model import EvidenceVerifyModel
from icarus.scoring.evidenceverify.models import CONFIG_FILES, load_evidenceverify_config
from icarus.scoring.evidenceverify.spec import render_spec
from icarus.scoring.evidenceverify.trace import verification_inputs
from icarus.scoring.evidenceverify.verify import (
    ALLOWED_TRANSITIONS,
    SOCIAL_HOSTS,
    SearchOutcome,
    search_needed,
    stance_requests,
)
from reference import evidenceverify

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec" / "evidenceverify.md"
EXAMPLES = ROOT / "examples" / "evidenceverify"
REF = "evidenceverify@1.0"
LEDGERS = sorted((ROOT / "examples" / "ledgers").glob("*.json")) + sorted(
    p for p in (ROOT / "tests" / "fixtures").glob("*.json") if p.name != "expected.json"
)
BLOCKED = (
    "import sys; sys.modules['icarus'] = None; sys.path = ['.'] + [p for p in sys.path if not p.endswith('src')];"
    "import runpy; sys.argv = ['reference', *sys.argv[1:]]; runpy.run_module('reference', run_name='__main__')"
)


def _published(path: Path) -> dict:
    ledger = Ledger.model_validate_json(path.read_text("utf-8"))
    return json.loads(json.dumps(EvidenceVerifyModel(load_evidenceverify_config(REF)).score(ledger)))


def test_the_spec_is_rendered_from_the_current_config_and_constants() -> None:
    assert SPEC.read_text(encoding="utf-8") == render_spec(), (
        "docs/spec/evidenceverify.md is stale: "
        "python -m icarus.scoring.evidenceverify.spec > docs/spec/evidenceverify.md"
    )


def test_the_spec_states_the_config_with_its_hash_and_the_engine_constants() -> None:
    configs, constants = evidenceverify.load_spec(SPEC)
    assert set(configs) == set(CONFIG_FILES)
    assert evidenceverify.config_hash(configs[REF]) == load_evidenceverify_config(REF).config_hash
    assert set(constants["social_hosts"]) == SOCIAL_HOSTS
    assert {k: set(v) for k, v in constants["allowed_transitions"].items()} == {
        a.value: {b.value for b in to} for a, to in ALLOWED_TRANSITIONS.items()
    }


def test_a_config_block_edited_without_its_hash_is_refused(tmp_path: Path) -> None:
    edited = tmp_path / "spec.md"
    edited.write_text(
        SPEC.read_text("utf-8").replace('"high_confidence_sources": 3', '"high_confidence_sources": 2'),
        "utf-8",
    )
    with pytest.raises(ValueError, match="hashes to"):
        evidenceverify.load_spec(edited)


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_reference_recomputes_every_published_ledger_result(path: Path) -> None:
    published = _published(path)
    result = evidenceverify.score(published)
    assert result["claims"] == published["claims"]


@pytest.mark.parametrize(
    ("claim", "requested", "expected"),
    [("claim.json", False, ("verified", "high")), ("claim-contested.json", True, ("contested", "low"))],
)
def test_the_shipped_examples_are_reproduced(claim: str, requested: bool, expected: tuple[str, str]) -> None:
    """docs/evidenceverify.md's two examples, as the command gives them offline (no search provider)."""
    item = load_claim(EXAMPLES / claim)
    store = load_store(EXAMPLES / "evidence_store.json")
    config = load_evidenceverify_config(REF)
    judge, criticality = OfflineLexicalJudge(), OfflineCriticalityJudge()
    searched = SearchOutcome(ran=False, detail="no search provider configured")
    result = evidence_verify(
        item,
        store,
        config,
        stance_judge=judge,
        criticality_judge=criticality,
        providers=(),
        independent=requested,
        as_of=datetime(2026, 8, 1, tzinfo=UTC),
        searched=searched,
    )
    search = searched if search_needed(item, store, requested) else None
    asked = stance_requests(item, store, best_excerpt, search, every_record=True)
    inputs = verification_inputs(
        item,
        store,
        answers=judge_stances(judge, asked),
        excerpt=best_excerpt,
        criticality=criticality.criticality(item, config),
        search=search,
        independent_search_requested=requested,
    )
    (mine,) = evidenceverify.score(inputs, REF)["claims"]
    assert mine == result.model_dump(mode="json")
    assert (mine["status"], mine["confidence_level"]) == expected


def test_a_result_without_inputs_is_an_error_not_a_guess() -> None:
    published = _published(LEDGERS[0])
    del published["inputs"]
    with pytest.raises(ValueError, match="no EvidenceVerify inputs"):
        evidenceverify.score(published)


def test_the_commands_run_with_the_engine_unimportable(tmp_path: Path) -> None:
    """`python -m reference score|check` on `icarus score --model evidenceverify@1.0 --json`, engine-less."""
    ledger = ROOT / "examples" / "ledgers" / "two-independent-wires.json"
    published = subprocess.run(
        [str(Path(sys.executable).parent / "icarus"), "score", str(ledger), "--json", "--model", REF],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    record = tmp_path / "record.json"
    record.write_text(published, "utf-8")
    scored = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "score", str(record)], capture_output=True, text=True, cwd=ROOT
    )
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["claims"] == json.loads(published)["claims"]
    checked = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "check", str(record)], capture_output=True, text=True, cwd=ROOT
    )
    assert checked.returncode == 0 and checked.stdout.strip().endswith(f"agree under {REF}"), checked.stdout
    tampered = json.loads(published)
    tampered["claims"][0]["status"] = "verified" if tampered["claims"][0]["status"] != "verified" else "stale"
    record.write_text(json.dumps(tampered), "utf-8")
    checked = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "check", str(record)], capture_output=True, text=True, cwd=ROOT
    )
    assert checked.returncode == 1 and "differs in status" in checked.stdout


@pytest.mark.parametrize(
    ("claim", "extra"), [("claim.json", []), ("claim-contested.json", ["--independent-search"])]
)
def test_the_command_with_inputs_is_checked_without_the_engine(
    claim: str, extra: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`icarus evidence-verify --with-inputs` carries the plain --json result and what it read; the
    engine-less reference agrees with it."""
    monkeypatch.delenv("ICARUS_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("ICARUS_LLM_MODEL", raising=False)
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))  # no local corpus: the search does not run
    app = typer.Typer()
    app.command()(evidence_verify_command)
    args = ["--claim", str(EXAMPLES / claim), "--store", str(EXAMPLES / "evidence_store.json"), *extra]
    args += ["--as-of", "2026-08-01T00:00:00Z"]
    plain = CliRunner().invoke(app, [*args, "--json"])
    both = CliRunner().invoke(app, [*args, "--with-inputs"])
    assert plain.exit_code == both.exit_code == 0, plain.output + both.output
    record = json.loads(both.output)
    assert record["claims"] == [json.loads(plain.output)]
    path = tmp_path / "record.json"
    path.write_text(both.output, "utf-8")
    checked = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, "check", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert checked.returncode == 0 and "1 of 1 agree" in checked.stdout, checked.stdout + checked.stderr


class _Fickle:
    """A judge that changes its mind on every question asked: support, then refute, then support..."""

    def __init__(self) -> None:
        self.asked = 0

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        self.asked += 1
        stance = Stance.SUPPORT if self.asked % 2 else Stance.REFUTE
        return StanceVerdict(
            claim_id=request.claim_id,
            evidence_id=request.evidence_id,
            stance=stance,
            confidence=Decimal("0.9"),
            inference_hops=0,
            raw_answer="fickle",
            provider="fickle",
            version="1",
            calibration_id="none",
            prompt_hash="",
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return []


def test_the_inputs_hold_the_answers_the_result_read_even_from_a_judge_that_changes_its_mind() -> None:
    judge = _Fickle()
    record = verify_with_inputs(
        load_claim(EXAMPLES / "claim.json"),
        load_store(EXAMPLES / "evidence_store.json"),
        judge,
        (),
        False,
        datetime(2026, 8, 1, tzinfo=UTC),
    )
    assert judge.asked == len(record["inputs"][0]["records"])  # each question asked once
    assert evidenceverify.score(record)["claims"] == record["claims"]
