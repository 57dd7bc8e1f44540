"""``--judge gold-labels@1``: the policy's ceiling, every stance taken from the dataset's labels."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.evaluation import averitec, climate_fever
from icarus.evaluation.cases import ClaimCase, DatasetError, EvalSet, Passage, StancePair
from icarus.evaluation.gold_judge import GOLD_JUDGE, GoldLabelJudge, gold_label_judge
from icarus.evaluation.runner import run_evaluation
from icarus.judges.protocol import FailureReason, JudgeRequest
from icarus.ledger import Stance
from icarus.reputation.manual import default_registry
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.labels import Label
from tests.datasets import DATASETS
from tests.evaluation.test_loaders import climate_row, write_lines

runner = CliRunner()


def request(claim: str, text: str) -> JudgeRequest:
    return JudgeRequest(claim_id="c1", claim_text=claim, evidence_id="ev-0", evidence_text=text)


def passage(key: str, text: str, stance: Stance | None = None) -> Passage:
    return Passage(
        key=key, url=f"https://example.org/{key}", publisher="Example", text=text, gold_stance=stance
    )


def test_a_known_pair_gets_its_gold_stance_with_full_confidence_and_no_hops() -> None:
    judge = GoldLabelJudge({("Seas rose.", "Seas fell."): Stance.REFUTE})
    verdict = judge.stance(request("Seas rose.", "Seas fell."))
    assert verdict.stance is Stance.REFUTE
    assert verdict.confidence == Decimal("1.00")
    assert verdict.inference_hops == 0
    assert verdict.failure is None
    assert (verdict.provider, verdict.version) == ("gold-labels", "1")


def test_an_unknown_pair_fails_closed_so_the_run_counts_it() -> None:
    verdict = GoldLabelJudge({}).stance(request("Seas rose.", "Seas fell."))
    assert verdict.failure is FailureReason.INVALID_ANSWER
    assert verdict.stance is Stance.NEUTRAL
    assert verdict.confidence == 0


def test_a_passage_label_wins_and_unlabelled_passages_take_their_claims_side() -> None:
    cases = [
        ClaimCase(
            "1", "A rose.", Label.SUPPORTED, (passage("a", "A went up."), passage("b", "No.", Stance.REFUTE))
        ),
        ClaimCase("2", "B rose.", Label.NOT_SUPPORTED, (passage("a", "B went down."),)),
        ClaimCase("3", "C rose.", Label.MISLEADING, (passage("a", "C went both ways."),)),
        ClaimCase("4", "D rose.", Label.UNVERIFIABLE, (passage("a", "D is a letter."),)),
    ]
    pairs = [StancePair("p", "E rose.", "E went up.", Stance.SUPPORT)]
    judge = gold_label_judge(EvalSet("toy", Path("toy"), cases=cases, stance_pairs=pairs))
    answers = {
        (claim, text): judge.stance(request(claim, text)).stance
        for claim, text in [
            ("A rose.", "A went up."),
            ("A rose.", "No."),
            ("B rose.", "B went down."),
            ("C rose.", "C went both ways."),
            ("D rose.", "D is a letter."),
            ("E rose.", "E went up."),
        ]
    }
    assert list(answers.values()) == [
        Stance.SUPPORT,
        Stance.REFUTE,
        Stance.REFUTE,
        Stance.NEUTRAL,  # conflicting evidence: the claim's label does not say which passage is which
        Stance.NEUTRAL,
        Stance.SUPPORT,
    ]


def test_the_same_claim_and_text_labelled_two_ways_is_answered_neutral_in_either_order() -> None:
    cases = [
        ClaimCase("1", "A rose.", Label.SUPPORTED, (passage("a", "A went up."),)),
        ClaimCase("2", "A rose.", Label.NOT_SUPPORTED, (passage("a", "A went up."),)),
        ClaimCase("3", "B rose.", Label.SUPPORTED, (passage("a", "B went up."),)),
        ClaimCase("4", "B rose.", Label.SUPPORTED, (passage("a", "B went up."),)),
    ]
    for ordered in (cases, cases[::-1]):
        judge = gold_label_judge(EvalSet("toy", Path("toy"), cases=ordered))
        assert judge.stance(request("A rose.", "A went up.")).stance is Stance.NEUTRAL
        assert judge.stance(request("B rose.", "B went up.")).stance is Stance.SUPPORT


def test_a_set_researched_from_a_corpus_has_no_labels_to_answer_from() -> None:
    evalset = EvalSet("scifact", Path("x"), cases=[ClaimCase("1", "A.", Label.SUPPORTED)], corpus=Path("c"))
    with pytest.raises(DatasetError, match="finds its evidence by research"):
        gold_label_judge(evalset)


def test_the_cli_takes_the_gold_judge_and_reports_a_perfect_stance_score(tmp_path: Path) -> None:
    labels = ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED"]
    data = write_lines(
        tmp_path / climate_fever.FILE, [climate_row(str(i), lab) for i, lab in enumerate(labels)]
    )
    result = runner.invoke(
        app, ["eval", "climate-fever", "--data", str(data), "--judge", GOLD_JUDGE, "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["judge"] == GOLD_JUDGE
    assert summary["judge_failures"] == 0
    assert summary["stance_macro_f1"] == 1.0


def test_the_cli_refuses_the_gold_judge_for_a_researched_set(tmp_path: Path) -> None:
    (tmp_path / "claims_train.jsonl").write_text(
        json.dumps({"id": 1, "claim": "A.", "evidence": {}, "cited_doc_ids": [7]}) + "\n", encoding="utf-8"
    )
    (tmp_path / "corpus.jsonl").write_text(
        json.dumps({"doc_id": 7, "title": "T", "abstract": ["Zero."]}) + "\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["eval", "scifact", "--data", str(tmp_path), "--judge", GOLD_JUDGE])
    assert result.exit_code == 2
    assert "error:" in result.output and "research" in result.output


@pytest.mark.parametrize(
    ("module", "relative"),
    [(climate_fever, "climate-fever/climate-fever.jsonl"), (averitec, "averitec/dev.json")],
    ids=["climate-fever", "averitec"],
)
def test_every_evidence_item_of_a_real_slice_finds_its_gold_answer(module: object, relative: str) -> None:
    path = DATASETS / relative
    if not path.exists():
        pytest.skip(f"{path} not found; set ICARUS_DATASETS to the datasets folder to run this slice")
    evalset = module.load(path, 30)  # type: ignore[attr-defined]
    report = run_evaluation(
        evalset, gold_label_judge(evalset), GOLD_JUDGE, load_policy("icarus@1.1"), default_registry()
    )
    summary = report.summary()
    # Every item was answered from the table: the ledger's texts are the dataset's texts, unchanged.
    assert summary["judge_failures"] == 0
    assert summary["n"] == 30
    if summary["stance_macro_f1"] is not None:
        assert summary["stance_macro_f1"] == 1.0
