"""A small slice of every set, end to end on the real files: the metrics are computed and sane.

Nothing here asserts a score worth having; the numbers are measured and published in docs/evaluation.md.
What is asserted: every claim is scored, every ratio is a ratio, the parts add up, and a rerun gives the
same numbers. Each test skips with a message when its dataset is not in ../shared/datasets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from icarus.evaluation import averitec, climate_fever, fnc1, healthver, scifact, wice
from icarus.evaluation.cases import EvalSet
from icarus.evaluation.ledgers import passage_item
from icarus.evaluation.runner import run_evaluation
from icarus.judges.registry import create_judge
from icarus.reputation.manual import default_registry
from icarus.scoring.icarus.config import load_policy
from tests.datasets import DATASETS

JUDGE = "offline-lexical@1"  # the fastest registered judge; any judge runs the same code
RATIOS = (
    "accuracy",
    "macro_f1",
    "coverage",
    "decided_precision",
    "unverifiable_rate",
    "stance_macro_f1",
    "retrieval_recall",
)
SLICES = [
    (climate_fever, "climate-fever/climate-fever.jsonl", 25),
    (averitec, "averitec/dev.json", 25),
    (scifact, "scifact/claims_train.jsonl", 8),
    (healthver, "healthver/healthver_dev.csv", 60),
    (wice, "wice/claim_dev.jsonl", 10),
    (fnc1, "fnc-1/competition_test_stances.csv", 60),
]


def run(evalset: EvalSet) -> dict[str, Any]:
    return run_evaluation(
        evalset, create_judge(JUDGE), JUDGE, load_policy("icarus@1.1"), default_registry()
    ).summary()


def without_timing(summary: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v for k, v in summary.items() if k not in ("seconds", "seconds_per_claim", "claim_seconds_p50")
    }


@pytest.mark.parametrize(("module", "relative", "limit"), SLICES, ids=[s[1].split("/")[0] for s in SLICES])
def test_a_slice_of_each_set_gives_sane_metrics(module: Any, relative: str, limit: int) -> None:
    path = DATASETS / relative
    if not path.exists():
        pytest.skip(f"{path} not found; set ICARUS_DATASETS to the datasets folder to run this slice")
    evalset = module.load(Path(path), limit)
    summary = run(evalset)
    assert summary["n"] == limit
    for key in RATIOS:
        value = summary[key]
        assert value is None or 0.0 <= value <= 1.0, key
    assert summary["seconds_per_claim"] > 0
    if evalset.cases:
        assert summary["claims"] == limit
        assert summary["coverage"] + summary["unverifiable_rate"] == pytest.approx(1.0)
        assert sum(sum(row.values()) for row in summary["confusion"].values()) == limit
        assert sum(band["n"] for band in summary["per_band"].values()) == limit
        assert summary["rules_fired"], "every scored claim names the rule that decided it"
        assert sum(n for code, n in summary["rules_fired"].items() if code.startswith("rule-")) == limit
    else:
        assert summary["accuracy"] is None and summary["confusion"] is None
    if module in (climate_fever, scifact, healthver, wice, fnc1):
        assert summary["stance_n"] > 0 and summary["stance_macro_f1"] is not None
    else:
        assert summary["stance_macro_f1"] is None
    if module is scifact:
        assert summary["retrieval_recall"] is not None


def test_a_rerun_gives_the_same_numbers() -> None:
    path = DATASETS / "climate-fever" / "climate-fever.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not found; set ICARUS_DATASETS to the datasets folder to run this check")
    first = without_timing(run(climate_fever.load(path, 10)))
    second = without_timing(run(climate_fever.load(path, 10)))
    assert first == second


def test_averitec_excerpts_quote_the_answers_never_the_questions() -> None:
    path = DATASETS / "averitec/dev.json"
    if not path.exists():
        pytest.skip(f"{path} not found; set ICARUS_DATASETS to the datasets folder to run this slice")
    passages = [p for case in averitec.load(path, 60).cases for p in case.passages]
    assert passages and all(p.quote_start > 0 for p in passages)  # every real answer follows its question
    for passage in passages:
        item = passage_item(passage, "any claim", default_registry(), "ev-0")
        assert item.excerpt is not None
        assert item.excerpt.span.start >= passage.quote_start, passage.key
        assert item.excerpt.text == passage.text[item.excerpt.span.start : item.excerpt.span.end]
