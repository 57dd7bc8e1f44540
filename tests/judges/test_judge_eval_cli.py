"""`icarus judge eval`: any registered judge measured on the same pairs, the LLM judge against a local fake
OpenAI-compatible server; bad input is an error line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from tests.judges.conftest import FakeServer, asked_evidence_id, stance_answer
from tests.judges.stance_files import CLIMATE_CLAIMS, write_climate_fever, write_covidfact

runner = CliRunner()
GOLD = [label for _, _, evidences in CLIMATE_CLAIMS for _, label in evidences]
STANCE = {"SUPPORTS": "support", "REFUTES": "refute", "NOT_ENOUGH_INFO": "neutral"}


def _answer(n: int, stance: str) -> dict[str, object]:
    return stance_answer(f"e{n}", stance, inference_hops=1, rationale="-")


def test_the_llm_judge_is_measured_with_one_command(
    fake_llm: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("ICARUS_LLM_MODEL", "fake-model")
    root = write_climate_fever(tmp_path / "data")

    # right on pairs 0-2 and 5; pair 3 (supporting) gets a broken reply, which fails closed to neutral;
    # pair 4 (refuting) is answered "support". Answered by the pair asked about: the judge asks several at once.
    def answer(request: dict[str, object]) -> dict[str, object] | str:
        n = int(asked_evidence_id(request).removeprefix("e"))
        if n == 3:
            return "not json"
        return _answer(n, "support" if n == 4 else STANCE[GOLD[n]])

    fake_llm.answer = answer
    out = tmp_path / "out"
    args = ["judge", "eval", "--judge", "openai-compatible@1", "--data", str(root), "--set", "climate-fever"]
    result = runner.invoke(app, [*args, "--split", "all", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["judges"][0]
    scores = report["sets"]["climate-fever"]
    assert scores["n"] == 6 and scores["failures"] == 1
    assert scores["accuracy"] == pytest.approx(4 / 6, abs=1e-4)
    assert scores["confusion"]["refute"] == {"support": 1, "refute": 1, "neutral": 0}
    assert scores["confusion"]["support"] == {"support": 1, "refute": 0, "neutral": 1}
    assert len(fake_llm.requests) == 6
    assert {"judges.json", "judges.md", "reliability.png"} <= {p.name for p in out.iterdir()}
    assert "`openai-compatible@1` | climate-fever | 6 |" in (out / "judges.md").read_text()


def test_offline_judges_compare_on_the_same_pairs(tmp_path: Path) -> None:
    root = write_covidfact(write_climate_fever(tmp_path))
    args = ["judge", "eval", "--data", str(root), "--split", "all", "--json"]
    sets = ["--set", "climate-fever", "--set", "covidfact"]
    judges = ["--judge", "offline-lexical@1", "--judge", "offline-wordllama@1"]
    result = runner.invoke(app, [*args, *sets, *judges])
    assert result.exit_code == 0, result.output
    reports = json.loads(result.stdout)["judges"]
    assert [r["judge"] for r in reports] == ["offline-lexical@1", "offline-wordllama@1"]
    for report in reports:
        assert report["sets"]["climate-fever"]["n"] == 6 and report["sets"]["covidfact"]["n"] == 2
        assert report["scope"]["swapped_pairs"] == 1  # 120 → 450 patients, and the evidence states a count
    trained = reports[1]
    assert trained["scope"]["detection_by_dimension"] == {"quantity": {"n": 1, "detected": 1}}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--judge", "offline-lexical@9"], "no judge named"),
        (["--set", "liar"], "no stance set named"),
        (["--judge", "openai-compatible@1"], "ICARUS_LLM_MODEL"),
    ],
)
def test_bad_input_is_an_error_line(
    extra: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ICARUS_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("ICARUS_LLM_MODEL", raising=False)
    root = write_climate_fever(tmp_path)
    result = runner.invoke(app, ["judge", "eval", "--data", str(root), "--set", "climate-fever", *extra])
    assert result.exit_code == 2
    assert "error:" in result.output and message in result.output


def test_missing_dataset_files_are_named(tmp_path: Path) -> None:
    result = runner.invoke(app, ["judge", "eval", "--data", str(tmp_path)])
    assert result.exit_code == 2 and "climate-fever.jsonl" in result.output


def test_a_broken_dataset_file_is_an_error_line_not_a_traceback(tmp_path: Path) -> None:
    root = write_climate_fever(tmp_path)
    (root / "climate-fever/climate-fever.jsonl").write_text("{not json\n", encoding="utf-8")
    result = runner.invoke(app, ["judge", "eval", "--data", str(root), "--set", "climate-fever"])
    assert result.exit_code == 2
    assert "climate-fever.jsonl:1: not valid JSON" in result.output and "Traceback" not in result.output


def _pairs_file(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_users_own_pairs_file_is_judged_without_any_dataset(tmp_path: Path) -> None:
    rows = [
        {
            "claim": "Traffic fell 12% in October.",
            "passage": "Traffic fell 12% in October.",
            "label": "support",
        },
        {"claim": "Traffic fell 12% in October.", "passage": "Traffic did not fall.", "label": "refute"},
        {
            "claim": "Traffic fell 12% in October.",
            "passage": "The mayor opened a library.",
            "label": "neutral",
        },
    ]
    pairs = _pairs_file(tmp_path / "mine.jsonl", [*rows, {**rows[0], "kind": "verbatim"}])
    args = ["judge", "eval", "--pairs", str(pairs), "--judge", "offline-lexical@1", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    output = json.loads(result.stdout)
    assert output["sets"] == ["mine"]
    scores = output["judges"][0]["sets"]["mine"]
    assert scores["n"] == 4
    gold = {label: sum(scores["confusion"][label].values()) for label in ("support", "refute", "neutral")}
    assert gold == {"support": 2, "refute": 1, "neutral": 1}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"claim": "c", "passage": "p", "label": "agree"}\n', "mine.jsonl:1: label 'agree'"),
        (
            '{"claim": "c", "passage": "p", "label": "support"}\n[1, 2]\n',
            "mine.jsonl:2: expected a JSON object",
        ),
        (
            '{"claim": "c", "passage": "p", "label": "support"}\n{"claim": "c"\n',
            "mine.jsonl:2: not valid JSON",
        ),
        ('{"claim": " ", "passage": "p", "label": "support"}\n', "needs non-empty text in claim"),
        ("\n\n", "no pairs"),
    ],
)
def test_a_bad_pairs_file_is_an_error_naming_its_line(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "mine.jsonl").write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["judge", "eval", "--pairs", str(tmp_path / "mine.jsonl")])
    assert result.exit_code == 2
    assert "error:" in result.output and message in " ".join(result.output.split())


def test_a_missing_or_binary_pairs_file_and_sets_without_data_are_errors(tmp_path: Path) -> None:
    result = runner.invoke(app, ["judge", "eval", "--pairs", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "cannot be read" in result.output
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    result = runner.invoke(app, ["judge", "eval", "--pairs", str(tmp_path / "bin.jsonl")])
    assert result.exit_code == 2 and "not UTF-8" in result.output
    result = runner.invoke(app, ["judge", "eval", "--set", "scifact"])
    assert result.exit_code == 2 and "--data is needed" in result.output


@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, '{"claim": ' + "9" * 5000 + "}"], ids=["deep", "long-number"]
)
def test_a_hostile_pairs_file_is_a_one_line_error(tmp_path: Path, text: str) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(text + "\n")
    result = runner.invoke(app, ["judge", "eval", "--pairs", str(pairs)])
    assert result.exit_code == 2, result.output
    assert f"error: {pairs}:1: not valid JSON" in result.output
    assert result.output.strip().count("\n") == 0, result.output
