"""``offline-minilm@4``: the cross-encoder behind a support floor and a relevance gate (side calls on passages
not about the claim's subject are answered neutral); its record, its refusals, and how the gate is chosen
(``training.relevance``)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from icarus.evaluation import averitec
from icarus.judges.packaged import WeightsError
from icarus.judges.protocol import JudgeRequest
from icarus.judges.registry import JUDGES, create_judge
from icarus.judges.relevance import (
    BASE_JUDGE,
    Relevance,
    RelevanceGate,
    RelevanceJudge,
    claim_anchors,
    gate_file,
    load_gate,
    measure,
    passes,
)
from icarus.ledger import Stance
from icarus.reputation.manual import default_registry
from icarus.scoring.icarus.config import load_policy
from icarus_training.relevance import RememberingReader, grid, score
from icarus_training.thresholds import choose
from tests.judges.test_thresholded_judge import CALIBRATION, Fixed

CLAIM = "Hunter Biden joined the board of Burisma in 2014."


def _request(passage: str, claim: str = CLAIM) -> JudgeRequest:
    return JudgeRequest(
        claim_id="c1", claim_text=claim, evidence_id="e1", excerpt=passage, evidence_text=passage
    )


def _gate(anchors: int, similarity: str | None = None, support: str = "0.00") -> RelevanceGate:
    return RelevanceGate(
        Decimal(support), anchors, None if similarity is None else Decimal(similarity), CALIBRATION, {}
    )


def _no_similarity(claim: str, passage: str) -> float:
    return 0.0


def test_the_claims_anchors_are_its_names_and_numbers() -> None:
    assert claim_anchors(CLAIM) == {"hunter", "biden", "burisma", "2014"}
    # a capitalised word opening a sentence is not a name unless another name follows it
    assert claim_anchors("Vaccines cause autism, the CDC said.") == {"cdc"}
    assert claim_anchors("In 2019, 1,200 people died. The WHO said so.") == {"2019", "1200", "who"}
    assert claim_anchors("Wearing masks causes hypoxia.") == frozenset()


@pytest.mark.parametrize(
    ("passage", "shared"),
    [
        ("Burisma appointed Hunter Biden in 2014.", 4),
        ("Biden's son sat on the board.", 1),  # the possessive meets the name
        ("A gas company hired a lawyer.", 0),
    ],
)
def test_the_passage_shares_anchors_by_stem(passage: str, shared: int) -> None:
    found = measure(_request(passage), _no_similarity)
    assert (found.anchors, found.shared) == (4, shared)


@pytest.mark.parametrize(
    ("relevance", "gate", "about"),
    [
        (Relevance(4, 2, Decimal("0.50")), _gate(2), True),  # exactly the minimum
        (Relevance(4, 1, Decimal("0.50")), _gate(2), False),  # one short
        (Relevance(1, 1, Decimal("0.50")), _gate(3), True),  # a claim with fewer anchors needs all of them
        (Relevance(1, 0, Decimal("0.50")), _gate(3), False),
        (Relevance(0, 0, Decimal("0.50")), _gate(3), True),  # no anchors: nothing to miss
        (Relevance(4, 0, Decimal("0.50")), _gate(0), True),  # the anchor part switched off
        (Relevance(4, 4, Decimal("0.30")), _gate(0, "0.30"), True),  # similarity at the floor
        (Relevance(4, 4, Decimal("0.29")), _gate(0, "0.30"), False),  # a hundredth under it
        (Relevance(4, 4, Decimal("-0.50")), _gate(0), True),  # no similarity floor
    ],
)
def test_the_gate_boundaries(relevance: Relevance, gate: RelevanceGate, about: bool) -> None:
    assert passes(relevance, gate) is about


@pytest.mark.parametrize(
    ("stance", "passage", "gated"),
    [
        (Stance.REFUTE, "Burisma never appointed Hunter Biden.", False),
        (Stance.REFUTE, "The mayor of Springfield denied the report.", True),
        (Stance.SUPPORT, "The mayor of Springfield confirmed the report.", True),
        (Stance.NEUTRAL, "The mayor of Springfield confirmed the report.", False),
    ],
)
def test_a_side_call_on_a_passage_about_something_else_is_answered_neutral(
    stance: Stance, passage: str, gated: bool
) -> None:
    judge = RelevanceJudge(Fixed(stance, "0.90"), _gate(1), lambda r: measure(r, _no_similarity))
    verdict = judge.stance(_request(passage))
    raw = json.loads(verdict.raw_answer)
    if gated:
        assert verdict.stance is Stance.NEUTRAL and verdict.confidence == Decimal("0.10")
        assert raw["off_subject"] == {"side": stance.value, "anchors": 4, "shared": 0, "similarity": "0"}
    else:
        assert verdict.stance is stance and verdict.confidence == Decimal("0.90")
        assert "off_subject" not in raw
    assert (verdict.provider, verdict.version, verdict.calibration_id) == (
        "offline-minilm",
        "4",
        judge.calibration_id,
    )


def test_the_support_floor_still_applies() -> None:
    judge = RelevanceJudge(
        Fixed(Stance.SUPPORT, "0.69"), _gate(0, support="0.70"), lambda r: measure(r, _no_similarity)
    )
    verdict = judge.stance(_request("Burisma appointed Hunter Biden in 2014."))
    assert verdict.stance is Stance.NEUTRAL
    assert "below_floor" in json.loads(verdict.raw_answer)["floored"]


def test_a_gate_chosen_for_another_calibration_is_refused() -> None:
    gate = RelevanceGate(Decimal("0.7"), 1, None, "another-calibration", {})
    with pytest.raises(WeightsError, match="another-calibration"):
        RelevanceJudge(Fixed(Stance.SUPPORT, "0.9"), gate)


def test_the_calibration_id_names_the_floor_the_gate_and_the_base() -> None:
    ids = {
        _gate(1).calibration_id,
        _gate(2).calibration_id,
        _gate(1, "0.30").calibration_id,
        _gate(1, support="0.70").calibration_id,
        RelevanceGate(Decimal(0), 1, None, "other", {}).calibration_id,
    }
    assert len(ids) == 5 and all(i.startswith("offline-minilm-4-") for i in ids)


def _record(path: Path, **gate: Any) -> Path:
    fields: dict[str, Any] = {"support": "0.70", "min_anchors": 1, "min_similarity": "0.20"}
    fields.update(gate)
    path.write_text(json.dumps({"gate": fields, "base_calibration_id": "b"}), encoding="utf-8")
    return path


def test_a_record_loads_its_gate(tmp_path: Path) -> None:
    loaded = load_gate(_record(tmp_path / "r.json"))
    assert (loaded.support, loaded.min_anchors, loaded.min_similarity, loaded.base_calibration_id) == (
        Decimal("0.70"),
        1,
        Decimal("0.20"),
        "b",
    )
    assert load_gate(_record(tmp_path / "n.json", min_similarity=None)).min_similarity is None


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ({"support": 0.7}, "as a string"),
        ({"support": "1.5"}, "out of range"),
        ({"min_anchors": -1}, "a count"),
        ({"min_anchors": "1"}, "a count"),
        ({"min_anchors": True}, "a count"),
        ({"min_similarity": 0.2}, "null or a decimal"),
        ({"min_similarity": "x"}, "no usable"),
    ],
)
def test_a_bad_record_is_refused(tmp_path: Path, gate: dict[str, Any], message: str) -> None:
    with pytest.raises(WeightsError, match=message):
        load_gate(_record(tmp_path / "r.json", **gate))


def test_a_missing_record_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="not found"):
        load_gate(tmp_path / "none.json")


def test_the_registry_lists_it() -> None:
    assert "offline-minilm@4" in JUDGES


def test_the_shipped_record_fits_the_shipped_base_judge_and_says_how_it_was_chosen() -> None:
    record = json.loads(gate_file().read_text(encoding="utf-8"))
    assert record["base"] == BASE_JUDGE and record["judge"] == "offline-minilm@4"
    selection = record["selection"]
    assert selection["data"]["split"] == "tune" and len(selection["grid"]) == len(grid())
    chosen = selection["chosen"]
    assert {k: chosen[k] for k in ("support", "min_anchors", "min_similarity")} == record["gate"]
    assert choose(selection["grid"])[0] == chosen
    judge = create_judge("offline-minilm@4")
    assert isinstance(judge, RelevanceJudge)


def test_the_grid_order_breaks_ties_towards_the_weaker_gate() -> None:
    points = grid([Decimal("0.00"), Decimal("0.70")], [0, 1], [None, Decimal("0.20")])
    assert points[:3] == [
        (Decimal("0.00"), 0, None),
        (Decimal("0.70"), 0, None),
        (Decimal("0.00"), 0, Decimal("0.20")),
    ]
    rows = [
        {"support": str(s), "refute": "0.00", "min_anchors": a, "min_similarity": m, "claims": 20}
        for s, a, m in points
    ]
    counts = {
        (Decimal("0.00"), 0, None): (20, 14),  # no gate: 0.70
        (Decimal("0.00"), 1, None): (12, 11),  # one anchor: 0.92 on 12, the widest at the target
        (Decimal("0.00"), 1, Decimal("0.20")): (12, 11),  # the same counts with a stronger gate
        (Decimal("0.70"), 1, None): (10, 10),  # more precise, fewer decided
    }
    for row, point in zip(rows, points, strict=True):
        row["decided"], row["right"] = counts.get(point, (0, 0))
    assert choose(rows) == (rows[points.index((Decimal("0.00"), 1, None))], True)


def test_the_grid_gates_open_retrieval_pages_about_other_claims(tmp_path: Path) -> None:
    rows = [
        {
            "claim": claim,
            "label": "Supported",
            "questions": [{"question": "Q?", "answers": [{"answer": answer, "source_url": url}]}],
        }
        for claim, answer, url in (
            (
                "The Varna bridge reopened in 2019.",
                "The Varna bridge reopened in 2019.",
                "https://www.reuters.com/1",
            ),
            (
                "The Lisbon tram fares rose in 2021.",
                "The Lisbon tram fares rose in 2021.",
                "https://apnews.com/2",
            ),
        )
    ]
    (tmp_path / averitec.FILE).write_text(json.dumps(rows), encoding="utf-8")
    opened = averitec.load(tmp_path, retrieval=averitec.OPEN)
    base = Fixed(Stance.SUPPORT, "0.90")
    reader = RememberingReader()
    points = grid([Decimal("0.00")], [0, 2], [None])
    got = score(
        None,
        base,
        load_policy("icarus@1.2"),
        default_registry(),
        points,
        open_evalset=opened,
        workdir=tmp_path,
        reader=reader,
    )
    assert [r["min_anchors"] for r in got] == [0, 2]
    assert all(r["modes"]["open"]["claims"] == 2 for r in got)
    asked = base.asked
    assert asked > 0 and len(reader._seen) <= asked  # each request read once for both points


def test_the_shipped_gate_passes_a_page_about_the_claim_and_stops_one_about_something_else() -> None:
    gate = load_gate()
    about = measure(_request("Burisma appointed Hunter Biden to its board in 2014."))
    other = measure(_request("The mayor of Springfield denied the report about the bridge."))
    bare = measure(_request("No, there is no record of that."))  # a bare answer: what the gate costs
    assert about.similarity > Decimal("0.5") and passes(about, gate)
    assert other.similarity < Decimal("0.1") and not passes(other, gate)
    assert not passes(bare, gate)


def test_many_requests_share_the_base_judges_twin_behind_the_same_gate() -> None:
    class Twinned(Fixed):
        def parallel_worker(self, requests: int) -> tuple[Any, int]:
            return Fixed(Stance.REFUTE, "0.9"), 2

    def reader(request: JudgeRequest) -> Relevance:
        return measure(request, _no_similarity)

    judge = RelevanceJudge(Twinned(Stance.SUPPORT, "0.9"), _gate(1), reader)
    worker, threads = judge.parallel_worker(100)
    assert threads == 2 and isinstance(worker, RelevanceJudge) and worker is not judge
    assert worker.stance(_request("A gas company hired a lawyer.")).stance is Stance.NEUTRAL
    assert worker.stance(_request("Burisma hired Hunter Biden.")).stance is Stance.REFUTE
    assert judge.parallel_worker(100)[0] is worker
    assert RelevanceJudge(Fixed(Stance.SUPPORT, "0.9"), _gate(1), reader).parallel_worker(100)[1] == 1
