"""``icarus evidence-verify`` on the shipped example store and claims; bad input exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from icarus.evidenceverify.cli import evidence_verify_command

EXAMPLES = Path(__file__).parents[3] / "examples" / "evidenceverify"
STORE = str(EXAMPLES / "evidence_store.json")
app = typer.Typer()
app.command()(evidence_verify_command)
runner = CliRunner()


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ICARUS_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("ICARUS_LLM_MODEL", raising=False)
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))  # no local corpus: search is "not run"


def verify(claim: str, *extra: str) -> dict[str, object]:
    result = runner.invoke(app, ["--claim", str(EXAMPLES / claim), "--store", STORE, "--json", *extra])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.output)
    return data


def test_the_example_claim_is_verified_by_two_independent_sources() -> None:
    result = verify("claim.json", "--as-of", "2026-08-01T00:00:00Z")
    assert (result["status"], result["confidence_level"]) == ("verified", "high")
    assert result["independent_sources"] == [
        "group:halden-central-bank",
        "wire:reuters",
    ]  # ev-1 and ev-2: one wire
    assert result["twitter"] == [
        {"evidence_id": "ev-4", "verification_priority": "medium", "corroboration_status": "corroborated"}
    ]
    assert str(result["independent_search"]).startswith("not run")


def test_the_contested_example_moves_from_verified_to_contested() -> None:
    result = verify("claim-contested.json", "--independent-search")
    assert (result["previous_status"], result["status"]) == ("verified", "contested")
    assert result["evidence_missing"] == ["ev-9"]


def test_text_output_names_status_confidence_and_notes() -> None:
    result = runner.invoke(app, ["--claim", str(EXAMPLES / "claim.json"), "--store", STORE])
    assert "unverified \u2192 verified (confidence high)" in result.output and "Notes:" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--claim", "missing.json", "--store", STORE],
        ["--claim", str(EXAMPLES / "claim.json"), "--store", str(EXAMPLES / "claim.json")],
        ["--claim", STORE, "--store", STORE],
        ["--claim", str(EXAMPLES / "claim.json"), "--store", STORE, "--as-of", "yesterday"],
        ["--claim", str(EXAMPLES / "claim.json"), "--store", STORE, "--as-of", "2026-08-01T00:00:00"],
        ["--claim", str(EXAMPLES / "claim.json"), "--store", STORE, "--judge", "nope@1"],
    ],
)
def test_bad_input_is_a_clear_error_with_exit_code_2(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "error:" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),  # deeper than json can parse
        ('{"claim_id": ' + "9" * 5000 + "}", "is not valid JSON: Exceeds the limit"),  # too long to read
    ],
)
@pytest.mark.parametrize("option", ["--claim", "--store"])
def test_a_hostile_claim_or_store_file_is_a_one_line_error(
    tmp_path: Path, option: str, text: str, problem: str
) -> None:
    hostile = tmp_path / "hostile.json"
    hostile.write_text(text)
    files = {"--claim": str(EXAMPLES / "claim.json"), "--store": STORE, option: str(hostile)}
    result = runner.invoke(app, [arg for pair in files.items() for arg in pair])
    assert result.exit_code == 2, result.output
    assert (
        f"error: {'claim' if option == '--claim' else 'evidence store'} {hostile} {problem}" in result.output
    )
    assert result.output.strip().count("\n") == 0, result.output


def test_published_methodology_page_is_up_to_date() -> None:
    from icarus.scoring.evidenceverify import load_evidenceverify_config
    from icarus.scoring.evidenceverify.methodology import render_evidenceverify_methodology

    page = Path(__file__).parents[3] / "docs" / "methodology" / "evidenceverify-1.0.md"
    assert page.read_text() == render_evidenceverify_methodology(load_evidenceverify_config()), (
        "regenerate with `icarus policy show evidenceverify@1.0 > docs/methodology/evidenceverify-1.0.md`"
    )


def test_the_cli_and_the_api_default_to_one_judge_named_once() -> None:
    from icarus.evidenceverify.service import DEFAULT_STANCE_JUDGE, default_stance_judge
    from icarus.judges.registry import OPENAI_COMPATIBLE_JUDGE
    from icarus.settings import Settings

    assert default_stance_judge(Settings(llm_base_url=None, llm_model=None)) == DEFAULT_STANCE_JUDGE
    # an endpoint without a model is not enough to prefer it
    assert (
        default_stance_judge(Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model=None))
        == DEFAULT_STANCE_JUDGE
    )
    configured = Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="m")
    assert default_stance_judge(configured) == OPENAI_COMPATIBLE_JUDGE
