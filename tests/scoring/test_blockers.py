"""Blockers: what kept a claim ❔ or a decided claim below high, each code on a hand-built ledger."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from icarus.ledger import (
    CheckHistory,
    ClaimJudgment,
    Directness,
    Disposition,
    Ledger,
    PriorRun,
    ReputationMethod,
    RiskRating,
    SourceClass,
    TemporalScope,
    parse_ledger,
)
from icarus.ledger.judgments import ScopeAnswer, ScopeDimension
from icarus.scoring.canonical import canonical_json
from icarus.scoring.icarus.blockers import Blocker, BlockerCode, claim_blockers
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import _score_claim, provenance_graph
from icarus.scoring.icarus.outcome import ClaimOutcome
from icarus.scoring.icarus.publish import block_publication
from icarus.scoring.labels import Band, Label
from tests.builders import AS_OF, claim, item, judgment, ledger, record
from tests.scoring.scoring_support import claim_of, score
from tests.scoring.test_properties import FAST, evidence_items

POLICY = load_policy("icarus@1.1")
FIXTURES = Path(__file__).parents[1] / "fixtures"


def blockers(led: Ledger, policy: str = "icarus@1.1") -> list[dict[str, Any]]:
    return list(claim_of(score(led, policy))["blockers"])


def by_code(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {b["code"]: b for b in found}


def fixture(name: str) -> Ledger:
    return parse_ledger(json.loads((FIXTURES / f"{name}.json").read_text()), source=name)


def outcome_of(led: Ledger, policy: str = "icarus@1.1") -> ClaimOutcome:
    config = load_policy(policy)
    items = {i.evidence_id: i for i in led.evidence}
    return _score_claim(led.claims[0], led, items, provenance_graph(led, config), config)


def heuristic(evidence_id: str, domain: str, score_: str = "0.80", **extra: Any) -> Any:
    return item(evidence_id, domain=domain, score=score_, method=ReputationMethod.HEURISTIC, **extra)


# --- the JSON field ---------------------------------------------------------------------------------------


def test_blockers_are_empty_for_a_decided_claim_at_high_confidence() -> None:
    result = score(fixture("self-evidence-misquote"))
    c = claim_of(result)
    assert (c["label"], c["band"]) == ("misleading", "high")
    assert c["blockers"] == []


def test_blockers_are_listed_for_an_unverifiable_claim_and_a_decided_claim_below_high() -> None:
    unverifiable = claim_of(score(fixture("wire-pickups")))
    assert unverifiable["label"] == "unverifiable" and unverifiable["blockers"]
    medium = claim_of(score(fixture("two-independent-wires")))
    assert (medium["label"], medium["band"]) == ("supported", "medium") and medium["blockers"]


def test_blockers_sit_outside_the_trace_and_every_figure_is_json_text_or_an_integer() -> None:
    result = score(fixture("wire-pickups"))
    assert "blockers" not in canonical_json(result["trace"])
    for blocker in claim_of(result)["blockers"]:
        assert set(blocker) >= {"code", "message"}
        for key, value in blocker.items():
            values = value if isinstance(value, list) else [value]
            assert all(isinstance(v, (str, int)) for v in values), key


def test_blockers_are_the_same_on_every_run() -> None:
    led = ledger([heuristic("a", "a.com"), item("b", stance="neutral")])
    assert canonical_json(score(led)["claims"]) == canonical_json(score(led)["claims"])


# --- ❔: evidence ----------------------------------------------------------------------------------------


def test_blocker_no_evidence() -> None:
    assert blockers(ledger([])) == [
        {"code": "no_evidence", "items": 0, "message": "no evidence found for this claim"}
    ]


def test_blocker_independent_origins_names_the_side_and_its_domains() -> None:
    found = by_code(blockers(ledger([item("a", domain="reuters.com")])))
    origins = found["independent_origins"]
    assert (origins["have"], origins["need"], origins["side"], origins["domains"]) == (
        1,
        POLICY.decision.minimum_icc,
        "support",
        ["reuters.com"],
    )
    assert origins["gate"] == "G1"
    assert origins["message"].startswith("1 of 2 independent origins (support: reuters.com)")


def test_blocker_independent_origins_on_the_refuting_side() -> None:
    found = by_code(blockers(ledger([item("a", stance="refute", domain="apnews.com")])))
    assert found["independent_origins"]["side"] == "refute"
    assert found["independent_origins"]["domains"] == ["apnews.com"]


def test_blocker_not_on_file_names_every_source_and_the_discount() -> None:
    led = ledger([heuristic("a", "a.com"), heuristic("b", "b.org"), heuristic("c", "c.net")])
    found = by_code(blockers(led))
    assert found["not_on_file"]["message"] == "3 sources not on file, weight ×0.60: a.com, b.org, c.net"
    assert found["not_on_file"]["discount"] == str(POLICY.weighting.estimated_reputation_discount)
    assert found["not_on_file"]["domains"] == ["a.com", "b.org", "c.net"]


def test_blocker_not_on_file_leaves_out_estimated_sources_that_are_counted_or_neutral() -> None:
    counted = heuristic("a", "a.com", score_="0.90", directness=Directness.PRIMARY_DOCUMENT)  # 0.486
    neutral = heuristic("b", "b.org", stance="neutral")
    found = by_code(blockers(ledger([counted, neutral])))
    assert "not_on_file" not in found


def test_blocker_not_on_file_names_five_domains_and_counts_the_rest() -> None:
    led = ledger([heuristic(f"s{n}", f"s{n}.example") for n in range(7)])
    message = by_code(blockers(led))["not_on_file"]["message"]
    assert message.endswith("s0.example, s1.example, s2.example, s3.example, s4.example and 2 more")


def test_blocker_judge_neutral_counts_items_below_the_confidence_floor() -> None:
    led = ledger(
        [
            item("a", stance="neutral"),
            item("b", stance="neutral"),
            item("c", confidence="0.40"),
            item("d", stance="refute", confidence="0.49"),
            item("e"),
            heuristic("f", "f.com"),
        ]
    )
    neutral = by_code(blockers(led))["judge_neutral"]
    assert (neutral["have"], neutral["of"], neutral["below_confidence"]) == (4, 6, 2)
    assert neutral["floor"] == str(POLICY.weighting.neutral_below_confidence)
    assert neutral["message"] == "judge neutral on 4 of 6 items (2 of them sided with confidence under 0.50)"


def test_blocker_judge_neutral_not_listed_when_every_item_takes_a_side() -> None:
    assert "judge_neutral" not in by_code(blockers(ledger([item("a")])))


def test_blocker_under_counting_threshold_names_the_heaviest_item() -> None:
    weak = item("a", score="0.50", confidence="0.60", domain="weak.example")  # 0.50 x 0.90 x 0.60 = 0.27
    found = by_code(blockers(ledger([weak, item("b", stance="neutral")])))
    short = found["under_counting_threshold"]
    assert short["message"] == "heaviest item 0.27 (weak.example), counting needs 0.45"
    assert (short["heaviest"], short["threshold"], short["counted"]) == ("0.27", "0.45", 0)


def test_blocker_under_counting_threshold_not_listed_at_exactly_the_threshold() -> None:
    exact = item("a", score="0.50", directness=Directness.PRIMARY_DOCUMENT)  # 0.50 x 1 x 0.90 = 0.45
    found = by_code(blockers(ledger([exact])))
    assert "under_counting_threshold" not in found
    assert found["independent_origins"]["have"] == 1  # counted
    below = item("a", score="0.499", directness=Directness.PRIMARY_DOCUMENT)  # 0.4491
    short = by_code(blockers(ledger([below])))["under_counting_threshold"]
    assert short["heaviest"] == "0.4491"


def test_blocker_under_counting_threshold_beside_a_counted_origin() -> None:
    led = ledger([item("a", domain="strong.example"), item("b", score="0.50", confidence="0.60")])
    short = by_code(blockers(led))["under_counting_threshold"]
    assert short["counted"] == 1 and short["uncounted"] == 1
    assert (
        short["message"]
        == "1 more origin weighs under the counting threshold 0.45 (heaviest 0.27, b.example)"
    )


def test_blocker_out_of_scope() -> None:
    mismatch = ClaimJudgment(
        claim_id="c1",
        stance=judgment().stance,
        scope=ScopeAnswer(matches=False, mismatched=[ScopeDimension.PERIOD]),
    )
    found = by_code(blockers(ledger([item("a", domain="old.example", judgments=[mismatch])])))
    scope = found["out_of_scope"]
    assert (scope["have"], scope["of"], scope["domains"]) == (1, 1, ["old.example"])
    assert scope["directness"] == str(POLICY.directness.out_of_scope)


def test_blocker_excluded_names_the_rule_and_domain() -> None:
    satire = item("a", domain="theonion.com", source_class=SourceClass.SATIRE)
    found = by_code(blockers(ledger([satire, item("b")])))
    excluded = found["excluded"]
    assert excluded["rules"] == ["H6"] and excluded["evidence_ids"] == ["a"]
    assert excluded["message"] == "1 of 2 items taking a side excluded: H6 satire (theonion.com)"


def test_blocker_excluded_and_risk_list_leave_out_items_the_judge_was_neutral_on() -> None:
    satire = item("a", domain="theonion.com", source_class=SourceClass.SATIRE, stance="neutral")
    deprecated = item(
        "b", reputation=record("bad.example", risk_rating=RiskRating.DEPRECATED), stance="neutral"
    )
    found = by_code(blockers(ledger([satire, deprecated, item("c")])))
    assert "excluded" not in found and "risk_list" not in found


def test_blocker_risk_list_exclusions_and_caps() -> None:
    deprecated = item("a", reputation=record("bad.example", risk_rating=RiskRating.DEPRECATED))
    unreliable = item("b", reputation=record("poor.example", risk_rating=RiskRating.GENERALLY_UNRELIABLE))
    risk = by_code(blockers(ledger([deprecated, unreliable])))["risk_list"]
    assert risk["excluded"] == ["a.example"] and risk["capped"] == ["b.example"]
    assert risk["cap"] == str(POLICY.reputation.generally_unreliable_cap)
    assert (
        risk["message"]
        == "2 sources on risk lists; excluded: a.example; reputation capped at 0.30: b.example"
    )
    assert "excluded" not in by_code(blockers(ledger([deprecated, unreliable])))  # H5 is reported once


def test_blocker_mixed_origin() -> None:
    text = "The harbor handled forty one thousand containers in October, the port authority said on Tuesday."
    led = ledger([item("a", text=text), item("b", text=text, stance="refute")])
    found = by_code(blockers(led))
    assert found["mixed_origin"]["have"] == 1


def test_blocker_total_below_floor_and_polarity_short() -> None:
    led = ledger(
        [
            item("a", score="0.50", confidence="0.60"),  # support 0.27
            item("b", score="0.50", confidence="0.60", stance="refute"),  # refute 0.27
        ]
    )
    found = by_code(blockers(led))
    floor = found["total_below_floor"]
    assert (floor["S"], floor["Rf"], floor["total"], floor["floor"]) == ("0.27", "0.27", "0.54", "0.60")
    assert floor["message"] == "S + Rf 0.54 under the floor 0.60 (S 0.27, Rf 0.27)"
    polarity = found["polarity_short"]
    assert (polarity["polarity"], polarity["need"]) == ("0.0", "0.50")


def test_blocker_total_below_floor_only_with_weight_on_both_sides() -> None:
    assert "total_below_floor" not in by_code(blockers(ledger([item("a", score="0.50", confidence="0.60")])))


def test_blocker_too_many_hops() -> None:
    led = ledger([item("a", hops=4), item("b", hops=4)])
    found = by_code(blockers(led))
    assert (found["too_many_hops"]["hops"], found["too_many_hops"]["max"]) == (4, 3)
    assert "independent_origins" not in found


# --- ❔: gates --------------------------------------------------------------------------------------------


def test_blocker_ineligible_disposition_is_the_only_blocker() -> None:
    led = ledger([item("a"), item("b")], claims=[claim(disposition=Disposition.SATIRE)])
    assert blockers(led) == [
        {
            "code": "ineligible_disposition",
            "gate": "G0",
            "reason": "satire",
            "message": "G0: not eligible for a factual verdict (satire)",
        }
    ]


def test_blocker_image_text_unreliable_from_G2() -> None:
    found = by_code(blockers(fixture("screenshot-ocr")))
    assert found["image_text_unreliable"]["gate"] == "G2"
    assert "0.62" in found["image_text_unreliable"]["message"]


def test_blocker_evidence_retracted_from_G4() -> None:
    found = by_code(blockers(fixture("retraction")))
    assert found["evidence_retracted"]["gate"] == "G4"
    assert found["evidence_retracted"]["evidence_ids"]


def test_blocker_developing_from_G6_names_the_scored_label_and_the_first_recheck() -> None:
    ongoing = claim(temporal_scope=TemporalScope.ONGOING, event_started_at=AS_OF - timedelta(hours=2))
    found = by_code(blockers(ledger([item("a"), item("b")], claims=[ongoing])))
    developing = found["developing"]
    assert developing["scored_label"] == "supported"
    assert developing["first_recheck_minutes"] == POLICY.gates.recheck_offsets_minutes[0]
    assert set(found) == {"developing"}


# --- decided, below high ----------------------------------------------------------------------------------


def test_blocker_confidence_below_high_lists_the_terms_short_of_their_weight() -> None:
    found = by_code(blockers(fixture("two-independent-wires")))
    below = found["confidence_below_high"]
    assert below["need"] == str(POLICY.bands.high)
    assert below["score"] == "0.691347"
    assert below["terms_short"]["independent_origins"] == {"have": "0.166667", "of": "0.25"}
    assert "independent origins 0.166667 of 0.25" in below["message"]


def test_blocker_confidence_penalty_for_counted_estimated_sources() -> None:
    led = ledger(
        [
            heuristic("a", "a.com", score_="0.90", directness=Directness.PRIMARY_DOCUMENT),
            heuristic("b", "b.com", score_="0.90", directness=Directness.PRIMARY_DOCUMENT),
        ]
    )
    c = claim_of(score(led))
    assert c["label"] == "supported" and c["band"] != "high"
    penalty = by_code(c["blockers"])["confidence_penalty"]
    assert penalty["penalties"] == {"heuristic_reputation": "0.2"}


def test_blocker_correction_window_from_G5() -> None:
    found = by_code(blockers(fixture("correction-window")))
    assert found["correction_window"]["gate"] == "G5"
    assert found["correction_window"]["cap"] == "medium"


def test_blocker_ongoing_band_cap_from_G6() -> None:
    started = AS_OF - timedelta(minutes=60)
    history = CheckHistory(
        started_at=started,
        prior_runs=[PriorRun(as_of=started + timedelta(minutes=15), scored_labels={"c1": "supported"})],
    )
    ongoing = claim(temporal_scope=TemporalScope.ONGOING, event_started_at=AS_OF - timedelta(hours=2))
    found = by_code(blockers(ledger([item("a"), item("b")], claims=[ongoing], history=history)))
    assert found["ongoing_band_cap"]["gate"] == "G6"
    assert found["ongoing_band_cap"]["message"].count("capped at medium") == 1


def test_blocker_band_capped_when_no_named_cap_explains_the_band() -> None:
    outcome = outcome_of(fixture("self-evidence-misquote"))
    assert outcome.band is Band.HIGH
    outcome.band = Band.MEDIUM
    (only,) = claim_blockers(outcome, {}, POLICY)
    assert only.code is BlockerCode.BAND_CAPPED
    assert only.figure("earned") == "high"


def test_blocker_unresolved_when_nothing_else_explains_a_question_mark() -> None:
    outcome = outcome_of(fixture("self-evidence-misquote"))
    outcome.label = Label.UNVERIFIABLE
    (only,) = claim_blockers(outcome, {}, POLICY)
    assert only.code is BlockerCode.UNRESOLVED


def test_blocker_publication_blocked_by_G7() -> None:
    result = block_publication(score(fixture("two-independent-wires")), ["a problem"])
    (only,) = claim_of(result)["blockers"]
    assert (only["code"], only["gate"]) == ("publication_blocked", "G7")


# --- the record ---------------------------------------------------------------------------------------------


def test_blocker_as_json_writes_tuples_as_lists_and_the_message_last() -> None:
    blocker = Blocker(BlockerCode.NOT_ON_FILE, "m", (("have", 1), ("domains", ("a.com",))))
    assert list(blocker.as_json().items()) == [
        ("code", "not_on_file"),
        ("have", 1),
        ("domains", ["a.com"]),
        ("message", "m"),
    ]
    assert blocker.figure("have") == 1 and blocker.figure("nothing") is None


@pytest.mark.parametrize("policy", ["icarus@1.0", "icarus@1.1"])
def test_blocker_thresholds_follow_the_policy_config(policy: str) -> None:
    config = load_policy(policy)
    weighting = config.weighting.model_copy(update={"counting_threshold": Decimal("0.30")})
    changed = config.model_copy(update={"weighting": weighting})
    led = ledger([item("a", score="0.50", confidence="0.60")])  # 0.27
    items = {i.evidence_id: i for i in led.evidence}
    outcome = _score_claim(led.claims[0], led, items, provenance_graph(led, changed), changed)
    short = next(b for b in outcome.blockers if b.code is BlockerCode.UNDER_COUNTING_THRESHOLD)
    assert short.figure("threshold") == "0.30"


# --- properties -------------------------------------------------------------------------------------------


@FAST
@given(evidence_items())
def test_blockers_list_something_exactly_when_a_claim_is_unverifiable_or_below_high(
    evidence: list[Any],
) -> None:
    for policy in ("icarus@1.0", "icarus@1.1"):
        c = claim_of(score(ledger(evidence), policy))
        held = c["label"] == "unverifiable" or c["band"] != "high"
        assert bool(c["blockers"]) == held, (c["label"], c["band"], c["blockers"])
        codes = [b["code"] for b in c["blockers"]]
        assert len(codes) == len(set(codes))  # each code at most once per claim
        assert all(code in {member.value for member in BlockerCode} for code in codes)
