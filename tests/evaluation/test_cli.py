"""``icarus eval`` as a user runs it: JSON keys, files written, clear errors, and any registered judge,
the OpenAI-compatible one included (against a fake server on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.evaluation import climate_fever
from tests.evaluation.test_loaders import climate_row, write_lines
from tests.judges.conftest import FakeServer, asked_evidence_id, fake_llm, stance_answer

__all__ = ["fake_llm"]  # the shared fake OpenAI-compatible server, used as a fixture here

runner = CliRunner()
REQUIRED_KEYS = {
    "n",
    "accuracy",
    "macro_f1",
    "coverage",
    "decided_precision",
    "unverifiable_rate",
    "stance_macro_f1",
    "per_band",
    "confusion",
}
LEXICAL = ["--judge", "offline-lexical@1"]


@pytest.fixture
def climate(tmp_path: Path) -> Path:
    labels = ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED"]
    return write_lines(
        tmp_path / climate_fever.FILE, [climate_row(str(i), label) for i, label in enumerate(labels)]
    )


def test_json_has_the_documented_keys_and_out_writes_markdown_json_and_plots(
    climate: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "eval",
            "climate-fever",
            "--data",
            str(climate),
            "--limit",
            "3",
            "--json",
            "--out",
            str(out),
            *LEXICAL,
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert set(summary) >= REQUIRED_KEYS
    assert summary["n"] == 3 and summary["stance_n"] == 9
    assert json.loads((out / "climate-fever.json").read_text()) == summary
    markdown = (out / "climate-fever.md").read_text()
    assert (
        "| accuracy |" in markdown and "![climate-fever-confusion](climate-fever-confusion.png)" in markdown
    )
    for name in ("confusion", "reliability", "rules", "stance"):
        assert (out / f"climate-fever-{name}.png").read_bytes().startswith(b"\x89PNG")


def test_the_table_is_printed_without_json(climate: Path) -> None:
    result = runner.invoke(app, ["eval", "climate-fever", "--data", str(climate), *LEXICAL])
    assert result.exit_code == 0, result.output
    assert "decided precision" in result.stdout and "offline-lexical@1" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["eval", "nope", "--data", "x"], "unknown dataset 'nope'"),
        (["eval", "wice", "--data", "/nonexistent/wice"], "/nonexistent/wice does not exist"),
        (
            ["eval", "climate-fever", "--data", "{climate}", "--judge", "nobody@1"],
            "no judge named 'nobody@1'",
        ),
        (["eval", "climate-fever", "--data", "{climate}", "--policy", "icarus@9"], "icarus@9"),
        (["eval", "climate-fever", "--data", "{climate}", "--seed", "3"], "--seed draws a sample"),
        (
            ["eval", "climate-fever", "--data", "{climate}", "--judge", "openai-compatible@1"],
            "needs ICARUS_LLM_BASE_URL",
        ),
    ],
)
def test_bad_input_is_an_error_line_and_exit_code_2(
    arguments: list[str], message: str, climate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ICARUS_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("ICARUS_LLM_MODEL", raising=False)
    result = runner.invoke(app, [a.replace("{climate}", str(climate)) for a in arguments])
    assert result.exit_code == 2
    assert "error:" in result.output and message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("dataset", "name"), [("averitec", "dev.json"), ("climate-fever", "climate-fever.jsonl")]
)
@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, '{"claim": ' + "9" * 5000 + "}"], ids=["deep", "long-number"]
)
def test_a_hostile_dataset_file_is_a_one_line_error(
    tmp_path: Path, dataset: str, name: str, text: str
) -> None:
    (tmp_path / name).write_text(text + "\n")
    result = runner.invoke(app, ["eval", dataset, "--data", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert f"error: {tmp_path / name}" in result.output and "not" in result.output and "JSON" in result.output
    assert result.output.strip().count("\n") == 0, result.output


def support_every_claim(body: dict[str, Any]) -> dict[str, Any]:
    """The fake model's answer: every claim supported, naming the evidence id it was asked about."""
    evidence = asked_evidence_id(body)
    if body["response_format"]["json_schema"]["name"] == "stance_answer":
        return stance_answer(evidence)
    return {"evidence_id": evidence, "attributions": []}


def test_the_openai_compatible_judge_answers_every_stance_question(
    climate: Path, fake_llm: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.answer = support_every_claim
    monkeypatch.setenv("ICARUS_LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("ICARUS_LLM_MODEL", "fake-model")
    result = runner.invoke(
        app,
        [
            "eval",
            "climate-fever",
            "--data",
            str(climate),
            "--limit",
            "2",
            "--judge",
            "openai-compatible@1",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["judge"] == "openai-compatible@1" and summary["judge_failures"] == 0
    # Every sentence was put to the model and read as support, as the fake answers.
    assert summary["stance_confusion"]["support"]["support"] == 2
    assert sum(row["support"] for row in summary["stance_confusion"].values()) == 6
    seen = [request.json for request in fake_llm.requests]
    stance_calls = [b for b in seen if b["response_format"]["json_schema"]["name"] == "stance_answer"]
    assert len(stance_calls) == 6 and all(b["model"] == "fake-model" for b in stance_calls)


@pytest.mark.parametrize(
    ("name", "file", "text"),
    [("climate-fever", "climate-fever.jsonl", ""), ("averitec", "dev.json", "[]")],
    ids=["climate-fever", "averitec"],
)
def test_a_dataset_file_with_nothing_in_it_is_an_error_not_an_empty_report(
    tmp_path: Path, name: str, file: str, text: str
) -> None:
    (tmp_path / file).write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["eval", name, "--data", str(tmp_path), "--json", *LEXICAL])
    assert result.exit_code == 2
    assert "no claims or pairs to evaluate" in result.output
