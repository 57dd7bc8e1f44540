"""``offline-minilm@3``: the cross-encoder whose side calls under a per-side floor are answered neutral; its
record, its refusals, and how the floors are chosen (``training.thresholds``)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from icarus.evaluation import averitec
from icarus.judges.packaged import WeightsError
from icarus.judges.protocol import (
    AttributionVerdict,
    FailureReason,
    Judge,
    JudgeRequest,
    StanceVerdict,
    failed_stance,
)
from icarus.judges.registry import create_judge
from icarus.judges.thresholded import (
    BASE_JUDGE,
    SideThresholds,
    ThresholdedJudge,
    below_floor,
    load_thresholds,
    thresholds_file,
)
from icarus.ledger import Stance
from icarus.reputation.manual import default_registry
from icarus.scoring.icarus.config import load_policy
from icarus_training.thresholds import (
    FLOORS,
    MIN_DECIDED,
    MIN_PRECISION,
    RememberingJudge,
    choose,
    score_grid,
)

CALIBRATION = "fake-calibration-1"
REQUEST = JudgeRequest(
    claim_id="c1", claim_text="A rose.", evidence_id="e1", excerpt="A rose.", evidence_text="A rose."
)


class Fixed:
    """A base judge answering every request with one stance and confidence."""

    calibration_id = CALIBRATION

    def __init__(self, stance: Stance, confidence: str, failed: bool = False) -> None:
        self.answer, self.confidence, self.failed = stance, Decimal(confidence), failed
        self.asked = 0

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        self.asked += 1
        if self.failed:
            return failed_stance(
                request,
                reason=FailureReason.UNAVAILABLE,
                detail="down",
                raw_answer="",
                provenance=_provenance(),
                prompt_sha256="0" * 64,
            )
        return StanceVerdict(
            claim_id=request.claim_id,
            evidence_id=request.evidence_id,
            stance=self.answer,
            confidence=self.confidence,
            inference_hops=1,
            raw_answer=json.dumps({"p": str(self.confidence)}),
            provider="fake",
            version="1",
            calibration_id=CALIBRATION,
            prompt_hash="0" * 64,
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return []


def _provenance() -> Any:
    from icarus.ledger.judgments import JudgeProvenance

    return JudgeProvenance(provider="fake", version="1", calibration_id=CALIBRATION)


def _floors(support: str, refute: str) -> SideThresholds:
    return SideThresholds(Decimal(support), Decimal(refute), CALIBRATION, {})


@pytest.mark.parametrize(
    ("stance", "confidence", "demoted"),
    [
        (Stance.SUPPORT, "0.70", False),  # at the floor: a call
        (Stance.SUPPORT, "0.69", True),  # a hundredth under: neutral
        (Stance.REFUTE, "0.80", False),
        (Stance.REFUTE, "0.79", True),
        (Stance.NEUTRAL, "0.10", False),  # neutral is never touched
    ],
)
def test_a_side_call_under_its_own_sides_floor_is_answered_neutral(
    stance: Stance, confidence: str, demoted: bool
) -> None:
    judge = ThresholdedJudge(Fixed(stance, confidence), _floors("0.70", "0.80"))
    verdict = judge.stance(REQUEST)
    assert below_floor(Fixed(stance, confidence).stance(REQUEST), judge.thresholds) is demoted
    if demoted:
        assert verdict.stance is Stance.NEUTRAL
        assert verdict.confidence == Decimal(1) - Decimal(confidence)
        raw = json.loads(verdict.raw_answer)
        assert raw["below_floor"]["side"] == stance.value and raw["base"]["stance"] == stance.value
    else:
        assert verdict.stance is stance and verdict.confidence == Decimal(confidence)
        assert "below_floor" not in json.loads(verdict.raw_answer)
    assert (verdict.provider, verdict.version) == ("offline-minilm", "3")
    assert verdict.calibration_id == judge.calibration_id and verdict.inference_hops == 1


def test_a_failed_base_answer_stays_failed() -> None:
    verdict = ThresholdedJudge(Fixed(Stance.NEUTRAL, "0", failed=True), _floors("0.9", "0.9")).stance(REQUEST)
    assert verdict.failure is FailureReason.UNAVAILABLE and verdict.confidence == 0


def test_floors_chosen_for_another_calibration_are_refused() -> None:
    thresholds = SideThresholds(Decimal("0.7"), Decimal("0.7"), "another-calibration", {})
    with pytest.raises(WeightsError, match="another-calibration"):
        ThresholdedJudge(Fixed(Stance.SUPPORT, "0.9"), thresholds)


def test_the_calibration_id_names_the_floors_and_the_base() -> None:
    ids = {
        _floors("0.70", "0.80").calibration_id,
        _floors("0.75", "0.80").calibration_id,
        SideThresholds(Decimal("0.70"), Decimal("0.80"), "other", {}).calibration_id,
    }
    assert len(ids) == 3 and all(i.startswith("offline-minilm-3-") for i in ids)


def _record(path: Path, **changes: Any) -> Path:
    record: dict[str, Any] = {"thresholds": {"support": "0.70", "refute": "0.85"}, "base_calibration_id": "b"}
    record.update(changes)
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def test_a_record_loads_its_floors_as_decimals(tmp_path: Path) -> None:
    loaded = load_thresholds(_record(tmp_path / "r.json"))
    assert (loaded.support, loaded.refute, loaded.base_calibration_id) == (
        Decimal("0.70"),
        Decimal("0.85"),
        "b",
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"thresholds": {"support": 0.7, "refute": "0.85"}}, "as a string"),
        ({"thresholds": {"support": "1.5", "refute": "0.85"}}, "not a probability"),
        ({"thresholds": {"support": "x", "refute": "0.85"}}, "no usable"),
        ({"thresholds": {"support": "0.7"}}, "no usable"),
    ],
)
def test_a_bad_record_is_refused(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    with pytest.raises(WeightsError, match=message):
        load_thresholds(_record(tmp_path / "r.json", **changes))


def test_a_missing_record_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="not found"):
        load_thresholds(tmp_path / "none.json")


def test_the_shipped_record_fits_the_shipped_base_judge_and_says_how_it_was_chosen() -> None:
    record = json.loads(thresholds_file().read_text(encoding="utf-8"))
    assert record["base"] == BASE_JUDGE and record["judge"] == "offline-minilm@3"
    selection = record["selection"]
    assert selection["data"]["split"] == "tune" and selection["min_precision"] == str(MIN_PRECISION)
    assert len(selection["grid"]) == len(FLOORS) ** 2
    assert {k: selection["chosen"][k] for k in ("support", "refute")} == record["thresholds"]
    judge = create_judge("offline-minilm@3")
    assert isinstance(judge, ThresholdedJudge)
    base = create_judge(BASE_JUDGE)
    answer, plain = judge.stance(REQUEST), base.stance(REQUEST)
    assert answer.stance is (Stance.NEUTRAL if below_floor(plain, judge.thresholds) else plain.stance)


def test_many_requests_share_the_base_judges_twin() -> None:
    class Twinned(Fixed):
        def parallel_worker(self, requests: int) -> tuple[Judge, int]:
            return Fixed(Stance.SUPPORT, "0.5"), 2

    judge = ThresholdedJudge(Twinned(Stance.SUPPORT, "0.9"), _floors("0.6", "0.6"))
    worker, threads = judge.parallel_worker(100)
    assert threads == 2 and isinstance(worker, ThresholdedJudge) and worker is not judge
    assert worker.stance(REQUEST).stance is Stance.NEUTRAL  # the twin's answer, under the same floor
    assert judge.parallel_worker(100)[0] is worker
    assert ThresholdedJudge(Fixed(Stance.SUPPORT, "0.9"), _floors("0.6", "0.6")).parallel_worker(100)[1] == 1


def test_a_remembered_request_is_asked_once() -> None:
    base = Fixed(Stance.SUPPORT, "0.9")
    remembered = RememberingJudge(base)
    assert remembered.stance(REQUEST) == remembered.stance(REQUEST) and base.asked == 1
    assert remembered.calibration_id == CALIBRATION


def _row(support: str, refute: str, decided: int, right: int) -> dict[str, Any]:
    return {"support": support, "refute": refute, "decided": decided, "right": right, "claims": 100}


def test_the_choice_is_the_widest_coverage_at_the_precision_target() -> None:
    rows = [
        _row("0.00", "0.00", 20, 17),  # 0.85: under the target
        _row("0.60", "0.00", 10, 9),  # 0.90 exactly on 10: meets it
        _row("0.70", "0.00", 9, 9),  # more precise, but on fewer than MIN_DECIDED claims
        _row("0.65", "0.00", 10, 9),  # the same counts at higher floors: not chosen
    ]
    assert MIN_DECIDED == 10
    assert choose(rows) == (rows[1], True)


def test_of_equal_coverage_the_more_precise_is_kept() -> None:
    rows = [_row("0.50", "0.50", 10, 9), _row("0.60", "0.50", 10, 10)]
    assert choose(rows) == (rows[1], True)


def test_a_precision_on_too_few_decisions_does_not_meet_the_target() -> None:
    rows = [_row("0.70", "0.00", 18, 16), _row("0.70", "0.70", 1, 1)]  # 0.89 on 18; 1.00 on 1
    assert choose(rows) == (rows[0], False)
    assert choose(rows, min_decided=1) == (rows[1], True)


def test_without_a_pair_at_the_target_the_most_precise_pair_deciding_enough_is_kept() -> None:
    rows = [_row("0.00", "0.00", 20, 16), _row("0.80", "0.00", 12, 10), _row("0.90", "0.90", 0, 0)]
    assert choose(rows) == (rows[1], False)
    assert choose(rows, Decimal("0.80")) == (rows[0], True)
    few = [_row("0.80", "0.00", 3, 2), _row("0.90", "0.00", 2, 2), _row("0.95", "0.95", 0, 0)]
    assert choose(few) == (few[1], False)  # none decides enough: the most precise that decides anything


def test_the_grid_rescores_one_set_of_answers(tmp_path: Path) -> None:
    rows = [
        {
            "claim": f"Claim {n} about the Varna bridge.",
            "label": "Supported",
            "questions": [
                {
                    "question": "Q?",
                    "answers": [
                        {"answer": f"Answer {n}.", "source_url": f"https://www.reuters.com/{n}"},
                        {"answer": f"Other words {n}.", "source_url": f"https://apnews.com/{n}"},
                    ],
                }
            ],
        }
        for n in range(2)
    ]
    (tmp_path / averitec.FILE).write_text(json.dumps(rows), encoding="utf-8")
    evalset = averitec.load(tmp_path)
    base = Fixed(Stance.SUPPORT, "0.70")
    grid = score_grid(
        evalset, base, load_policy("icarus@1.1"), default_registry(), [Decimal("0.00"), Decimal("0.75")]
    )
    assert [(r["support"], r["refute"]) for r in grid] == [
        ("0.00", "0.00"), ("0.00", "0.75"), ("0.75", "0.00"), ("0.75", "0.75")
    ]  # fmt: skip
    assert base.asked == 4  # two claims, two answers each, asked once for all four pairs of floors
    kept, dropped = grid[0], grid[2]
    assert kept["decided"] == 2 and kept["right"] == 2 and kept["decided_precision"] == 1.0
    assert dropped["decided"] == 0 and dropped["decided_precision"] is None


def test_the_grid_counts_open_retrieval_beside_gold_evidence(tmp_path: Path) -> None:
    rows = [
        {
            "claim": f"The Varna bridge reopened in spring {2019 + n}.",
            "label": "Supported",
            "questions": [
                {
                    "question": "Q?",
                    "answers": [
                        {
                            "answer": f"The Varna bridge reopened in spring {2019 + n}.",
                            "source_url": f"https://www.reuters.com/{n}",
                        },
                        {
                            "answer": f"Varna bridge traffic resumed in spring {2019 + n}.",
                            "source_url": f"https://apnews.com/{n}",
                        },
                    ],
                }
            ],
        }
        for n in range(2)
    ]
    (tmp_path / averitec.FILE).write_text(json.dumps(rows), encoding="utf-8")
    gold, opened = averitec.load(tmp_path), averitec.load(tmp_path, retrieval="open")
    base = Fixed(Stance.SUPPORT, "0.70")
    policy, registry = load_policy("icarus@1.1"), default_registry()
    grid = score_grid(
        gold,
        base,
        policy,
        registry,
        [Decimal("0.00"), Decimal("0.75")],
        open_evalset=opened,
        workdir=tmp_path,
    )
    kept, dropped = grid[0], grid[2]
    assert set(kept["modes"]) == {"gold", "open"} and kept["claims"] == 4
    assert kept["decided"] == sum(m["decided"] for m in kept["modes"].values())
    assert kept["modes"]["gold"]["decided"] == 2 and kept["modes"]["open"]["decided"] >= 1
    assert dropped["decided"] == 0
    only_open = score_grid(None, base, policy, registry, [Decimal("0.00")], open_evalset=opened)
    assert set(only_open[0]["modes"]) == {"open"}
    assert only_open[0]["modes"]["open"] == kept["modes"]["open"]
