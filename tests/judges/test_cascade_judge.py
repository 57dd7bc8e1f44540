"""The screened judge (``offline-cascade@1``): which branch answers, how its confidence is mapped, what its
record must hold, and that the record's validation numbers come back from the judge itself."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from icarus.evaluation.stancesets import DATASET_FILES, LabelledPair, Split, load_pairs
from icarus.judges.calibration import Calibration, expected_calibration_error
from icarus.judges.cascade import (
    DECIDED,
    SCREENED,
    CascadeParameters,
    OfflineCascadeJudge,
    figures_settle_a_side,
    load_parameters,
    parameters_file,
    screens_out,
)
from icarus.judges.metrics import macro_f1
from icarus.judges.packaged import WeightsError
from icarus.judges.parallel import judge_all
from icarus.judges.protocol import FailureReason, JudgeRequest, StanceVerdict
from icarus.judges.registry import (
    CASCADE_JUDGE,
    MINILM_FIGURES_JUDGE,
    WORDLLAMA_JUDGE,
    JudgeConfigError,
    create_judge,
)
from icarus.ledger.judgments import Stance
from icarus_training.cascade import Answer, Observed, choose_threshold, threshold_scores
from icarus_training.train import SELECTION_SETS
from tests.datasets import DATASETS

THRESHOLD = 0.40


def verdict(stance: str, confidence: str, provider: str, raw: dict[str, Any] | None = None) -> StanceVerdict:
    return StanceVerdict(
        claim_id="c1",
        evidence_id="e1",
        stance=Stance(stance),
        confidence=Decimal(confidence),
        inference_hops=1,
        raw_answer=json.dumps(raw or {"from": provider}),
        provider=provider,
        version="9",
        calibration_id=f"{provider}-cal",
        prompt_hash="0" * 64,
    )


class FixedJudge:
    """Answers every request with one verdict and counts the requests."""

    def __init__(self, name: str, answer: StanceVerdict) -> None:
        self.calibration_id = f"{name}-cal"
        self.answer = answer
        self.asked = 0

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        self.asked += 1
        return self.answer


def linear_map(name: str, factor: float) -> Calibration:
    """A map that multiplies the stated confidence by ``factor`` (so the branch taken shows in the result)."""
    return Calibration(name, 1.0, (0.0, 1.0), (0.0, factor))


def parameters(threshold: float = THRESHOLD) -> CascadeParameters:
    return CascadeParameters(
        threshold,
        {SCREENED: linear_map("s", 0.5), DECIDED: linear_map("d", 0.8)},
        "screen-cal",
        "decider-cal",
        {},
    )


def cascade(
    screen_answer: StanceVerdict, decider_answer: StanceVerdict
) -> tuple[Any, FixedJudge, FixedJudge]:
    screen = FixedJudge("screen", screen_answer)
    decider = FixedJudge("decider", decider_answer)
    return OfflineCascadeJudge(screen, decider, parameters()), screen, decider  # type: ignore[arg-type]


def request(claim: str = "Sea ice is shrinking.", passage: str = "The museum opens at nine.") -> JudgeRequest:
    return JudgeRequest(
        claim_id="c1", claim_text=claim, evidence_id="e1", excerpt=passage, evidence_text=passage
    )


# --- which branch answers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stance", "confidence", "figures", "screened"),
    [
        (Stance.NEUTRAL, THRESHOLD, False, True),  # exactly at the threshold: screened
        (Stance.NEUTRAL, THRESHOLD - 0.01, False, False),  # a hundredth under: decided
        (Stance.NEUTRAL, 1.0, True, False),  # a figure settles a side: the decider reads it
        (Stance.SUPPORT, 0.99, False, False),  # the screen never answers support or refute
        (Stance.REFUTE, 0.99, False, False),
    ],
)
def test_screens_out_boundaries(stance: Stance, confidence: float, figures: bool, screened: bool) -> None:
    assert screens_out(stance, confidence, THRESHOLD, figures) is screened


def test_a_sure_neutral_screen_answer_stands_and_the_decider_is_not_asked() -> None:
    judge, screen, decider = cascade(
        verdict("neutral", "0.90", "screen"), verdict("support", "0.90", "decider")
    )
    answer = judge.stance(request())
    assert (screen.asked, decider.asked) == (1, 0)
    assert answer.stance is Stance.NEUTRAL
    assert answer.confidence == Decimal("0.45")  # the screened map: 0.90 x 0.5
    assert (answer.provider, answer.version) == ("offline-cascade", "1")
    assert answer.calibration_id == judge.calibration_id == parameters().calibration_id
    raw = json.loads(answer.raw_answer)
    assert raw["branch"] == SCREENED and raw["screen"]["judge"] == "screen@9" and "decider" not in raw


def test_an_unsure_screen_hands_the_request_to_the_decider() -> None:
    judge, screen, decider = cascade(
        verdict("neutral", "0.39", "screen"), verdict("refute", "0.90", "decider")
    )
    answer = judge.stance(request())
    assert (screen.asked, decider.asked) == (1, 1)
    assert answer.stance is Stance.REFUTE
    assert answer.confidence == Decimal("0.72")  # the decided map: 0.90 x 0.8
    raw = json.loads(answer.raw_answer)
    assert (
        raw["branch"] == DECIDED
        and raw["decider"]["stance"] == "refute"
        and raw["screen"]["stance"] == "neutral"
    )


def test_a_figure_conflict_is_never_screened() -> None:
    claim, passage = "Container traffic fell 12% in October.", "Container traffic rose 12% in October."
    assert figures_settle_a_side(claim, [passage])
    judge, _, decider = cascade(verdict("neutral", "0.99", "screen"), verdict("refute", "0.80", "decider"))
    assert judge.stance(request(claim, passage)).stance is Stance.REFUTE
    assert decider.asked == 1


def test_the_figure_rules_confidence_cap_survives_the_map() -> None:
    capped = verdict("refute", "0.85", "decider", {"confidence_cap": 0.5, "probabilities": {}})
    judge, _, _ = cascade(verdict("support", "0.90", "screen"), capped)
    assert judge.stance(request()).confidence == Decimal("0.50")  # mapped 0.68, capped at 0.5


def test_a_failed_decider_answer_stays_failed_with_no_confidence() -> None:
    failed = verdict("neutral", "0", "decider").model_copy(update={"failure": FailureReason.INVALID_ANSWER})
    judge, _, _ = cascade(verdict("support", "0.90", "screen"), failed)
    answer = judge.stance(request())
    assert answer.failure is not None and answer.confidence == 0


# --- the record ---------------------------------------------------------------------------------------------


def test_the_shipped_record_loads_and_names_the_shipped_components() -> None:
    judge = create_judge(CASCADE_JUDGE)
    assert isinstance(judge, OfflineCascadeJudge)
    record = judge.parameters.metadata
    assert record["components"]["screen"]["judge"] == WORDLLAMA_JUDGE
    assert record["components"]["decider"]["judge"] == MINILM_FIGURES_JUDGE
    assert judge.parameters.threshold == record["threshold"]
    assert f"{record['threshold']:.2f}" in record["thresholds"]
    chosen = record["thresholds"][f"{record['threshold']:.2f}"]["selection"]
    assert chosen == max(scores["selection"] for scores in record["thresholds"].values())


def test_components_other_than_those_fitted_are_refused() -> None:
    screen = FixedJudge("screen", verdict("neutral", "0.9", "screen"))
    other = FixedJudge("another-decider", verdict("neutral", "0.9", "decider"))
    with pytest.raises(WeightsError, match="decider"):
        OfflineCascadeJudge(screen, other, parameters())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "content",
    ["not json", "{}", json.dumps({"threshold": 0.4}), None],
    ids=["not-json", "empty", "no-maps", "missing"],
)
def test_an_unusable_record_is_a_weights_error(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "offline-cascade-1.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(WeightsError):
        load_parameters(path)


def test_a_threshold_that_is_no_probability_is_refused(tmp_path: Path) -> None:
    record = json.loads(parameters_file().read_text(encoding="utf-8"))
    record["threshold"] = 1.5
    path = tmp_path / "offline-cascade-1.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(WeightsError, match="not a probability"):
        load_parameters(path)


def test_the_registry_turns_a_refusal_into_a_config_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import icarus.judges.cascade as module

    monkeypatch.setattr(module, "_shared_parameters", lambda: load_parameters(tmp_path / "missing.json"))
    with pytest.raises(JudgeConfigError, match=CASCADE_JUDGE):
        create_judge(CASCADE_JUDGE)


# --- fitting ------------------------------------------------------------------------------------------------


def observed(label: str, screen: tuple[str, float], decider: str, dataset: str = "climate-fever") -> Observed:
    pair = LabelledPair(dataset, "g", "claim", "passage", label)
    return Observed(pair, Answer(*screen), Answer(decider, 0.9), False)


def test_threshold_scores_use_the_answer_each_threshold_gives() -> None:
    rows = [
        observed("neutral", ("neutral", 0.6), "support"),  # screened at 0.6 and below: right
        observed("support", ("neutral", 0.5), "support"),  # screened at 0.5 and below: wrong
        observed("refute", ("support", 0.9), "refute"),
    ]
    assert threshold_scores(rows, 0.7)["climate-fever"] == pytest.approx(
        macro_f1(["neutral", "support", "refute"], ["support", "support", "refute"])
    )
    assert threshold_scores(rows, 0.6)["climate-fever"] == 1.0
    assert threshold_scores(rows, 0.5)["climate-fever"] < 1.0


def test_equal_scores_choose_the_lowest_threshold() -> None:
    scored = {0.5: {"selection": 0.6}, 0.4: {"selection": 0.6}, 0.7: {"selection": 0.55}}
    assert choose_threshold(scored) == 0.4
    assert choose_threshold({0.5: {"selection": 0.61}, 0.4: {"selection": 0.6}}) == 0.5


# --- the real judge -----------------------------------------------------------------------------------------


def test_many_requests_at_once_give_the_answers_one_at_a_time_gives() -> None:
    judge = create_judge(CASCADE_JUDGE)
    pairs = [
        (
            "Arctic sea ice extent has declined since 1979.",
            "Satellite records show Arctic sea ice has shrunk.",
        ),
        ("The bridge is 1,200 metres long.", "The bridge spans 800 metres from bank to bank."),
        ("Container traffic fell 12% in October.", "In October the port handled 12% more containers."),
        ("Vaccines cause autism.", "The library closes early on Fridays."),
    ] * 15
    requests = [request(claim, passage) for claim, passage in pairs]
    alone = [judge.stance(r) for r in requests]
    together = judge_all(judge, lambda worker, r: worker.stance(r), requests)
    assert together == alone
    assert {json.loads(a.raw_answer)["branch"] for a in alone} == {SCREENED, DECIDED}


def _selection_data_present() -> str | None:
    recorded = load_parameters().metadata["data_files"]
    for relative in (f for name in SELECTION_SETS for f in DATASET_FILES[name]):
        path = DATASETS / relative
        if not path.is_file():
            return f"{path} not found; the reproduction check needs the training-side datasets"
        if hashlib.sha256(path.read_bytes()).hexdigest() != recorded.get(relative):
            return f"{path} differs from the file the cascade was fitted on"
    return None


@pytest.mark.skipif(_selection_data_present() is not None, reason=str(_selection_data_present()))
def test_recorded_validation_numbers_reproduce() -> None:
    judge = create_judge(CASCADE_JUDGE)
    recorded = load_parameters().metadata["validation"]
    for name in SELECTION_SETS:
        pairs = load_pairs(name, DATASETS, Split.VALIDATION)
        answers = judge_all(
            judge,
            lambda worker, p: worker.stance(request(p.claim, p.passage)),
            pairs,
        )
        gold, stances = [p.label for p in pairs], [a.stance.value for a in answers]
        screened = sum(json.loads(a.raw_answer)["branch"] == SCREENED for a in answers) / len(pairs)
        right = [s == g for s, g in zip(stances, gold, strict=True)]
        assert len(pairs) == recorded[name]["n"]
        assert macro_f1(gold, stances) == pytest.approx(recorded[name]["macro_f1"], abs=1e-6), name
        assert screened == pytest.approx(recorded[name]["screened_share"], abs=1e-6), name
        # Every side call reproduces exactly; the confidences carry the float noise of onnxruntime's kernels,
        # which differs between CPUs by about 1e-4 in this calibration error (0.041513 against 0.041625).
        assert expected_calibration_error([float(a.confidence) for a in answers], right) == pytest.approx(
            recorded[name]["ece"], abs=1e-3
        ), name
