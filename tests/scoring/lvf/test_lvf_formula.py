"""LVF formulas, each with its boundary values: gate, reconciliation, components, labels and bands."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from pydantic import ValidationError

from icarus.scoring.lvf import Band, Component, Criterion, LvfLabel, load_lvf_config
from icarus.scoring.lvf.config import Formula, LvfConfig
from icarus.scoring.lvf.formula import (
    band_for,
    combine,
    display_score,
    label_for,
    lvf_component,
    passes_gate,
    reconcile,
)
from tests.scoring.lvf.support import all_scores

V3 = load_lvf_config("lvf@3.0")


def test_checkworthiness_gate_passes_at_exactly_030_and_skips_below() -> None:
    assert passes_gate(D("0.30"), V3)
    assert passes_gate(D("0.3"), V3)
    assert not passes_gate(D("0.29"), V3)
    assert not passes_gate(D("0.2999"), V3)


@pytest.mark.parametrize(
    ("display", "label"),
    [(0, LvfLabel.OPINION), (39, LvfLabel.OPINION), (40, LvfLabel.RUMOUR), (59, LvfLabel.RUMOUR),
     (60, LvfLabel.FACTUAL), (100, LvfLabel.FACTUAL)],
)  # fmt: skip
def test_label_edges_39_40_and_59_60(display: int, label: LvfLabel) -> None:
    assert label_for(display, V3) is label


@pytest.mark.parametrize(
    ("display", "band"),
    [(0, Band.LOW), (59, Band.LOW), (60, Band.MEDIUM), (90, Band.MEDIUM), (91, Band.HIGH), (100, Band.HIGH)],
)
def test_band_edges_59_60_and_90_91(display: int, band: Band) -> None:
    assert band_for(display, V3) is band


@pytest.mark.parametrize(
    ("score", "shown"),
    [("59.49", 59), ("59.50", 60), ("60.50", 60), ("39.50", 40), ("40.50", 40), ("90.51", 91)],
)
def test_displayed_score_rounds_half_even_before_the_label_reads_it(score: str, shown: int) -> None:
    assert display_score(D(score)) == shown


def test_reconciliation_median_of_two_is_their_mean_and_of_three_the_middle() -> None:
    two = reconcile({"a": all_scores("6"), "b": all_scores("9")}, V3)
    assert {r.median for r in two} == {D("7.5")}
    three = reconcile({"a": all_scores("2"), "b": all_scores("5"), "c": all_scores("6")}, V3)
    assert {r.median for r in three} == {D("5")}


def test_reconciliation_spread_of_exactly_4_does_not_hold_and_above_4_does() -> None:
    exactly = reconcile({"a": all_scores("3"), "b": all_scores("7")}, V3)
    assert all(r.spread == 4 and not r.held for r in exactly)
    above = dict(all_scores("7"))
    above[Criterion.CORROBORATION] = D("7.1")
    held = {r.criterion: r.held for r in reconcile({"a": all_scores("3"), "b": above}, V3)}
    assert held[Criterion.CORROBORATION] and not held[Criterion.SPECIFICITY]


def test_lvf_component_is_the_weighted_median_sum_times_10() -> None:
    scores = {
        Criterion.SOURCE_PROVENANCE: D(10),  # 0.20
        Criterion.CORROBORATION: D(4),  # 0.25
        Criterion.INTERNAL_CONSISTENCY: D(10),  # 0.15
        Criterion.SPECIFICITY: D(8),  # 0.10
        Criterion.TEMPORAL_VALIDITY: D(10),  # 0.15
        Criterion.BIAS_SIGNAL: D(0),  # 0.15
    }
    # 2 + 1 + 1.5 + 0.8 + 1.5 + 0 = 6.8 -> 68
    assert lvf_component(reconcile({"a": scores}, V3), V3) == D("68.00")
    assert lvf_component(reconcile({"a": all_scores("10")}, V3), V3) == D("100.00")


def test_score_with_nli_weights_60_20_10_10() -> None:
    values = {
        Component.LVF: D(80),
        Component.NLI: D(50),
        Component.RELIABILITY: D(90),
        Component.CHECKWORTHINESS: D(70),
    }
    assert combine(values, V3.formulas.with_nli) == D("74.00")  # 48 + 10 + 9 + 7


def test_fallback_weights_75_15_10_when_nli_not_run() -> None:
    values = {
        Component.LVF: D(80),
        Component.NLI: None,
        Component.RELIABILITY: D(90),
        Component.CHECKWORTHINESS: D(70),
    }
    assert combine(values, V3.formulas.without_nli) == D("80.50")  # 60 + 13.5 + 7
    with pytest.raises(ValueError, match="no value"):
        combine(values, V3.formulas.with_nli)


def test_reliability_cannot_rescue_weak_evidence() -> None:
    best_case = {
        Component.LVF: D(0),
        Component.NLI: None,
        Component.RELIABILITY: D(100),
        Component.CHECKWORTHINESS: D(100),
    }
    score = combine(best_case, V3.formulas.without_nli)
    assert label_for(display_score(score), V3) is LvfLabel.OPINION


def test_weights_must_sum_to_one() -> None:
    with pytest.raises(ValidationError, match="sum to 1"):
        Formula(lvf=D("0.6"), nli=D("0.2"), reliability=D("0.1"), checkworthiness=D("0.2"))
    data = V3.canonical()
    data["criteria"]["bias_signal"] = "0.20"
    with pytest.raises(ValidationError, match="sum to 1"):
        LvfConfig.model_validate(data)


def test_v3_config_states_the_published_weights_and_v2_keeps_its_own() -> None:
    assert V3.criteria == {
        Criterion.SOURCE_PROVENANCE: D("0.20"),
        Criterion.CORROBORATION: D("0.25"),
        Criterion.INTERNAL_CONSISTENCY: D("0.15"),
        Criterion.SPECIFICITY: D("0.10"),
        Criterion.TEMPORAL_VALIDITY: D("0.15"),
        Criterion.BIAS_SIGNAL: D("0.15"),
    }
    assert (V3.formulas.with_nli.lvf, V3.formulas.without_nli.lvf) == (D("0.60"), D("0.75"))
    v2 = load_lvf_config("lvf@2.0")
    assert v2.formulas != V3.formulas and v2.config_hash != V3.config_hash
