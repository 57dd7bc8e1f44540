"""The evaluation's blockers table: per set, on how many ❔ and decided-below-high claims each code was listed."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from icarus.cli import app
from icarus.evaluation.blockers import blocker_summary, blockers_markdown
from icarus.evaluation.plots import write_plots
from icarus.evaluation.report import markdown
from icarus.evaluation.runner import ClaimResult, blocker_codes
from tests.evaluation.test_cli import LEXICAL, climate  # noqa: F401  (the climate fixture)

runner = CliRunner()


def result(predicted: str, band: str, *blockers: str) -> ClaimResult:
    return ClaimResult("x", "supported", predicted, band, 0.5, (), 1, blockers=blockers)


CLAIMS = [
    result("unverifiable", "low", "not_on_file", "independent_origins"),
    result("unverifiable", "medium", "independent_origins"),
    result("unverifiable", "low", "no_evidence"),
    result("supported", "medium", "confidence_below_high", "confidence_penalty"),
    result("supported", "high"),
    result("not_supported", "low", "confidence_below_high", "confidence_below_high"),
]


def test_blockers_are_counted_per_group_once_per_claim_in_code_order() -> None:
    summary = blocker_summary(CLAIMS)
    assert summary["unverifiable"] == {
        "claims": 3,
        "codes": {"no_evidence": 1, "not_on_file": 1, "independent_origins": 2},
    }
    assert summary["decided_below_high"] == {
        "claims": 2,
        "codes": {"confidence_below_high": 2, "confidence_penalty": 1},
    }


def test_a_claim_decided_at_high_is_in_neither_group() -> None:
    summary = blocker_summary([result("supported", "high")])
    assert summary["unverifiable"]["claims"] == summary["decided_below_high"]["claims"] == 0


def test_an_unknown_code_is_counted_after_the_known_ones() -> None:
    summary = blocker_summary([result("unverifiable", "low", "zz_new", "no_evidence")])
    assert list(summary["unverifiable"]["codes"]) == ["no_evidence", "zz_new"]


def test_blockers_table_has_a_row_per_code_with_counts_and_shares() -> None:
    lines = blockers_markdown(blocker_summary(CLAIMS))
    assert lines[0] == "| blocker | ❔ claims (of 3) | decided, below high (of 2) |"
    assert "| `independent_origins` | 2 (67%) | 0 (0%) |" in lines
    assert "| `confidence_below_high` | 0 (0%) | 2 (100%) |" in lines


def test_blockers_table_says_so_when_nothing_held_a_claim_back() -> None:
    assert blockers_markdown(blocker_summary([])) == [
        "No claim was held back: every claim was decided at high confidence."
    ]


def test_blocker_codes_read_a_published_claim_each_code_once() -> None:
    published = {"blockers": [{"code": "a", "message": ""}, {"code": "b"}, {"code": "a"}]}
    assert blocker_codes(published) == ("a", "b")
    assert blocker_codes({}) == ()


def test_eval_summary_markdown_and_plot_carry_the_blockers(climate: Path, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "out"
    args = ["eval", "climate-fever", "--data", str(climate), "--limit", "3", "--json", "--out", str(out)]
    invoked = runner.invoke(app, [*args, *LEXICAL])
    assert invoked.exit_code == 0, invoked.output
    summary = json.loads(invoked.stdout)
    groups = summary["blockers"]
    assert set(groups) == {"unverifiable", "decided_below_high"}
    held = groups["unverifiable"]["claims"] + groups["decided_below_high"]["claims"]
    assert held == 3 - summary["per_band"]["high"]["decided"]
    assert groups["unverifiable"]["codes"]  # every ❔ lists at least one blocker
    text = (out / "climate-fever.md").read_text()
    assert "## Blockers" in text and "| blocker |" in text
    assert (out / "climate-fever-blockers.png").read_bytes().startswith(b"\x89PNG")


def test_markdown_of_a_summary_written_before_blockers_has_no_blockers_section(tmp_path: Path) -> None:
    summary = json.loads(json.dumps(_minimal_summary()))
    assert "## Blockers" not in markdown(summary, [])
    assert all("blockers" not in p.name for p in write_plots(summary, tmp_path))


def _minimal_summary() -> dict[str, object]:
    return {
        "dataset": "set",
        "source": "x",
        "selection": "all",
        "available": 1,
        "policy": "icarus@1.1",
        "judge": "j",
        "n": 0,
        "claims": 0,
        "judge_failures": 0,
        "confusion": None,
        "stance_confusion": None,
        "per_band": None,
        "rules_fired": {},
        "gates_fired": {},
    }
