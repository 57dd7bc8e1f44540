"""The eight published golden examples, digit for digit, one test each (spec: ledger-models.md)."""

from __future__ import annotations

from typing import Any

from tests.scoring.ledger_models.support import link, links_by_id, trace_of

STRICT = "ledger-strict@0.1.0"
DEFAULT = "ledger-default@0.1.0"


def _expect(trace: dict[str, Any], evidence_sum: str, probability: str, state: str, stability: str) -> None:
    assert trace["evidence_sum"] == evidence_sum
    assert trace["probability"] == probability
    assert trace["assessment_state"] == state
    assert trace["stability"] == stability


def test_g1_direct_text_support_is_supported_with_medium_stability() -> None:
    trace = trace_of(STRICT, [link("e1", "SUPPORT", "DIRECT", "DIRECT_TEXT", 0)])
    _expect(trace, "1.800000", "0.8581", "SUPPORTED", "MEDIUM")
    assert trace["variants"]["spread"] == "0.1331"


def test_g2_moderate_contradiction_leans_contradicted_capped_by_one_group() -> None:
    trace = trace_of(STRICT, [link("e1", "CONTRADICT", "MODERATE", "DIRECT_TEXT", 0)])
    _expect(trace, "-0.540000", "0.3682", "LEANS_CONTRADICTED", "MEDIUM")
    assert trace["variants"]["spread"] == "0.0752"  # HIGH by spread alone
    assert trace["stability_capped_by"] == "fewer_groups_than_min_groups_for_high"


def test_g3_strongest_of_five_in_one_group_counts_alone() -> None:
    weaker = [
        link(f"e{n}", "SUPPORT", "MODERATE", "DIRECT_TEXT", 1, independence_group="G1") for n in range(2, 6)
    ]
    trace = trace_of(
        STRICT, [link("e1", "SUPPORT", "STRONG", "DATASET_RESULT", 1, independence_group="G1"), *weaker]
    )
    _expect(trace, "0.918000", "0.7146", "LEANS_SUPPORTED", "MEDIUM")
    assert trace["variants"] == {"conservative": "0.6553", "permissive": "0.7673", "spread": "0.1120"}
    links = links_by_id(trace)
    assert links["e1"]["effective_weight"] == "0.918000"
    for n in range(2, 6):
        dropped = links[f"e{n}"]
        assert dropped["magnitude"] == "0.459000"
        assert dropped["effective_weight"] == "0.000000"
        assert dropped["reason"] == "dependent_strongest_only"
        assert dropped["kept"] == "e1"


def test_g4_weak_dataset_result_three_steps_is_unresolved() -> None:
    trace = trace_of(STRICT, [link("e1", "SUPPORT", "WEAK", "DATASET_RESULT", 3)])
    _expect(trace, "0.099000", "0.5247", "UNRESOLVED", "MEDIUM")
    assert trace["variants"]["spread"] == "0.0148"


def test_g5_three_independent_groups_are_supported_with_high_stability() -> None:
    trace = trace_of(
        STRICT,
        [
            link("e1", "SUPPORT", "DIRECT", "DIRECT_TEXT", 0),
            link("e2", "SUPPORT", "STRONG", "DIRECT_TEXT", 0),
            link("e3", "SUPPORT", "MODERATE", "DIRECT_TEXT", 0),
        ],
    )
    _expect(trace, "3.420000", "0.9683", "SUPPORTED", "HIGH")
    assert trace["support_groups"] == 3


def test_g6_expert_analysis_under_strict_is_insufficient_evidence() -> None:
    trace = trace_of(STRICT, [link("e1", "SUPPORT", "MODERATE", "EXPERT_ANALYSIS", 1)])
    assert trace["assessment_state"] == "INSUFFICIENT_EVIDENCE"
    assert trace["probability"] is None
    assert trace["stability"] is None
    assert links_by_id(trace)["e1"]["magnitude"] == "0.000000"


def test_g7_causal_prior_with_support_only_is_unresolved_and_model_dependent() -> None:
    trace = trace_of(DEFAULT, [link("e1", "SUPPORT", "WEAK", "DATASET_RESULT", 2)], claim_type="CAUSAL")
    assert trace["prior_log_odds"] == "-0.619039"
    _expect(trace, "0.126000", "0.3792", "UNRESOLVED", "LOW")
    assert trace["model_dependent"] is True
    assert trace["stability_capped_by"] == "model_dependent_type"


def test_g8_doubtful_authenticity_weighs_less_and_leans_supported() -> None:
    trace = trace_of(STRICT, [link("e1", "SUPPORT", "DIRECT", "DIRECT_TEXT", 0, authenticity="DOUBTFUL")])
    _expect(trace, "0.540000", "0.6318", "LEANS_SUPPORTED", "MEDIUM")
    assert trace["variants"]["spread"] == "0.0752"
