"""Every rule of the ledger models, with its boundary values (spec: ledger-models.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from icarus.ledger import ReviewCheck, ReviewCheckName
from icarus.scoring.canonical import canonical_json
from icarus.scoring.ledger.arithmetic import fixed, near_rounding_boundary, round_half_even
from icarus.scoring.ledger.calculate import stability_level, state_for
from icarus.scoring.ledger.config import CONFIG_FILES, load_config
from tests.scoring.ledger_models.support import link, links_by_id, links_ledger, model, trace_of

STRICT = "ledger-strict@0.1.0"
DEFAULT = "ledger-default@0.1.0"
ALL = sorted(CONFIG_FILES)


# --- released configs --------------------------------------------------------------------------------------

# A released config never changes: a change is a new version. These hashes are the released ones.
RELEASED_HASHES = {
    "ledger-strict@0.1.0": "sha256:fde35f85a271ba7c66974894ef42cf3bdfadbda2da9d79aa425dc502a7c5c0a1",
    "ledger-strict@0.2.0": "sha256:aea46cdbe6681a6fa9f96d9d3e8b90e97e615fd7f1174fa268d0bd80aa1bfa2a",
    "ledger-strict@0.3.0": "sha256:317d567b3115c047f06cca61b4451e7ced73a0b9dd03a6a76b3c26bdcb370089",
    "ledger-default@0.1.0": "sha256:0d15287ba1d9e927d91b8ea82ec25ded0f1088b6f3796a7a7483a3baac7718ea",
    "ledger-default@0.2.0": "sha256:8b712d5bd5d4f5b86858c5c879cfa2cc3e8d422830ac272c87a7c2cb1868406f",
    "ledger-default@0.3.0": "sha256:1de805cb7da79975f622d7855e40b12d6b6d89074f43502305a91419affa5afc",
}


@pytest.mark.parametrize("ref", ALL)
def test_released_config_hash_is_pinned(ref: str) -> None:
    assert load_config(ref).compute_hash() == RELEASED_HASHES[ref]


def test_strict_and_default_differ_only_where_the_spec_says() -> None:
    for version in ("0.1.0", "0.2.0", "0.3.0"):
        strict = load_config(f"ledger-strict@{version}").canonical()
        default = load_config(f"ledger-default@{version}").canonical()
        differing = {k for k in strict.keys() | default.keys() if strict.get(k) != default.get(k)}
        assert differing - {"changes"} == {
            "name",
            "summary",
            "scored_types",
            "prior",
            "model_dependent_types",
            "observation_weight",
        }
        assert default["prior"]["CAUSAL"] == "0.35" and default["prior"]["INTERPRETIVE"] == "0.50"
        assert strict["observation_weight"]["EXPERT_ANALYSIS"] == "0.0"
        assert default["observation_weight"]["EXPERT_ANALYSIS"] == "0.3"


def test_versions_add_rules_in_order() -> None:
    for name in ("ledger-strict", "ledger-default"):
        v1, v2, v3 = (load_config(f"{name}@{v}") for v in ("0.1.0", "0.2.0", "0.3.0"))
        assert v1.provenance_factor is None and v1.independence.fallback == "solo" and v1.edition_rule is None
        assert v2.provenance_factor is not None and v2.independence.fallback == "origin"
        assert v2.edition_rule is None
        assert v3.edition_rule == "named_edition_only"


def test_a_config_missing_a_vocabulary_key_is_rejected() -> None:
    data = load_config(STRICT).canonical()
    del data["relevance_weight"]["WEAK"]
    with pytest.raises(ValueError, match="relevance_weight must name every value"):
        type(load_config(STRICT)).model_validate(data)


# --- one link's weight -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relevance", "magnitude"),
    [("DIRECT", "2.000000"), ("STRONG", "1.200000"), ("MODERATE", "0.600000"), ("WEAK", "0.200000")],
)
def test_relevance_weights(relevance: str, magnitude: str) -> None:
    trace = trace_of(STRICT, [link("e1", relevance=relevance, observation="MEASUREMENT")])
    assert links_by_id(trace)["e1"]["magnitude"] == magnitude


def test_context_only_relevance_weighs_nothing() -> None:
    trace = trace_of(STRICT, [link("e1", relevance="CONTEXT_ONLY")])
    assert trace["assessment_state"] == "INSUFFICIENT_EVIDENCE"


@pytest.mark.parametrize(
    ("observation", "strict", "default"),
    [
        ("MEASUREMENT", "2.000000", "2.000000"),
        ("DATASET_RESULT", "1.800000", "1.800000"),
        ("ARCHAEOLOGICAL", "1.800000", "1.800000"),
        ("CALCULATION", "1.400000", "1.400000"),
        ("EYEWITNESS", "0.800000", "0.800000"),
        ("EXPERT_ANALYSIS", "0.000000", "0.600000"),
        ("HEARSAY", "0.200000", "0.200000"),
        ("OTHER", "0.200000", "0.200000"),
        ("MODEL_OUTPUT", "0.000000", "0.000000"),
    ],
)
def test_observation_weights(observation: str, strict: str, default: str) -> None:
    for ref, expected in ((STRICT, strict), (DEFAULT, default)):
        trace = trace_of(ref, [link("e1", observation=observation)])
        assert links_by_id(trace)["e1"]["magnitude"] == expected, ref


@pytest.mark.parametrize(
    ("steps", "factor"), [(0, "1.00"), (1, "0.85"), (2, "0.70"), (4, "0.40"), (5, "0.25")]
)
def test_interpretation_costs_each_step(steps: int, factor: str) -> None:
    trace = trace_of(STRICT, [link("e1", observation="MEASUREMENT", steps=steps)])
    entry = links_by_id(trace)["e1"]
    assert Decimal(entry["factors"]["interpretation"]) == Decimal(factor)
    assert entry["magnitude"] == fixed(Decimal(2) * Decimal(factor), 6)


def test_interpretive_steps_above_five_are_rejected_in_a_ledger() -> None:
    with pytest.raises(ValueError, match="less than or equal to 5"):
        link("e1", steps=6)


@pytest.mark.parametrize(
    ("authenticity", "magnitude"), [("VERIFIED", "1.800000"), ("UNVERIFIED", "1.800000")]
)
def test_verified_and_unverified_authenticity_are_neutral(authenticity: str, magnitude: str) -> None:
    trace = trace_of(STRICT, [link("e1", authenticity=authenticity)])
    assert links_by_id(trace)["e1"]["magnitude"] == magnitude


@pytest.mark.parametrize("extraction", ["VERIFIED", "UNVERIFIED"])
def test_extraction_is_neutral(extraction: str) -> None:
    trace = trace_of(STRICT, [link("e1", extraction=extraction)])
    assert links_by_id(trace)["e1"]["factors"]["extraction"] == "1.0"


@pytest.mark.parametrize("direction", ["QUALIFY", "NEUTRAL"])
def test_non_directional_links_stay_in_the_trace_at_zero(direction: str) -> None:
    trace = trace_of(STRICT, [link("e1", "SUPPORT"), link("e2", direction)])
    entry = links_by_id(trace)["e2"]
    assert entry["magnitude"] == "1.800000"
    assert entry["effective_weight"] == "0.000000" and entry["reason"] == "non_directional"
    assert trace["evidence_sum"] == "1.800000"


def test_only_non_directional_links_are_insufficient_evidence() -> None:
    trace = trace_of(STRICT, [link("e1", "QUALIFY"), link("e2", "NEUTRAL")])
    assert trace["assessment_state"] == "INSUFFICIENT_EVIDENCE" and trace["probability"] is None


# --- provenance (0.2.0+) -----------------------------------------------------------------------------------


def test_self_provenance_counts_nothing_from_0_2_0() -> None:
    items = [link("e1", provenance="SELF")]
    old = trace_of("ledger-strict@0.1.0", items)
    new = trace_of("ledger-strict@0.2.0", items)
    assert "provenance" not in links_by_id(old)["e1"]  # an older model's trace is unchanged
    assert old["assessment_state"] == "SUPPORTED"
    assert links_by_id(new)["e1"]["provenance"] == "SELF"
    assert links_by_id(new)["e1"]["magnitude"] == "0.000000"
    assert new["assessment_state"] == "INSUFFICIENT_EVIDENCE"


def test_independent_provenance_is_neutral() -> None:
    trace = trace_of("ledger-strict@0.2.0", [link("e1", provenance="INDEPENDENT")])
    assert links_by_id(trace)["e1"]["magnitude"] == "1.800000"


def test_origin_fallback_groups_ungrouped_links_by_origin_from_0_2_0() -> None:
    items = [
        link("e1", relevance="DIRECT", origin="https://agency.example/report"),
        link("e2", relevance="STRONG", origin="https://agency.example/report"),
    ]
    old = trace_of("ledger-strict@0.1.0", items)
    new = trace_of("ledger-strict@0.2.0", items)
    assert old["support_groups"] == 2 and old["evidence_sum"] == "2.880000"
    assert new["support_groups"] == 1 and new["evidence_sum"] == "1.800000"
    dropped = links_by_id(new)["e2"]
    assert dropped["group_key"] == "origin:https://agency.example/report"
    assert dropped["reason"] == "dependent_strongest_only" and dropped["kept"] == "e1"


def test_an_independence_group_wins_over_the_origin() -> None:
    items = [link("e1", origin="o", independence_group="G1"), link("e2", origin="o", independence_group="G2")]
    trace = trace_of("ledger-strict@0.2.0", items)
    assert trace["support_groups"] == 2


# --- edition (0.3.0) ---------------------------------------------------------------------------------------


def test_other_edition_weighs_nothing_from_0_3_0() -> None:
    items = [link("e1", "SUPPORT"), link("e2", "CONTRADICT", edition="OTHER")]
    before = trace_of("ledger-strict@0.2.0", items)
    after = trace_of("ledger-strict@0.3.0", items)
    assert before["evidence_sum"] == "0.000000" and "edition" not in links_by_id(before)["e2"]
    other = links_by_id(after)["e2"]
    assert other["edition"] == "OTHER" and other["reason"] == "other_edition"
    assert other["effective_weight"] == "0.000000"
    assert after["evidence_sum"] == "1.800000" and after["contradict_groups"] == 0


def test_named_edition_counts_under_0_3_0() -> None:
    trace = trace_of("ledger-strict@0.3.0", [link("e1", edition="NAMED")])
    assert trace["assessment_state"] == "SUPPORTED"


# --- independence ------------------------------------------------------------------------------------------


def test_ties_go_to_the_lowest_evidence_id() -> None:
    items = [link("e2", independence_group="G"), link("e1", independence_group="G")]
    entries = links_by_id(trace_of(STRICT, items))
    assert entries["e1"]["effective_weight"] == "1.800000"
    assert entries["e2"]["kept"] == "e1"


def test_ties_compare_evidence_ids_before_link_ids() -> None:
    items = [
        link("e1", link_id="L9", independence_group="G"),
        link("e2", link_id="L1", independence_group="G"),
    ]
    trace = trace_of(STRICT, items)
    entries = links_by_id(trace)
    assert entries["L9"]["effective_weight"] == "1.800000"  # evidence id first: e1 < e2
    assert entries["L1"]["kept"] == "L9"
    assert [entry["link"] for entry in trace["links"]] == ["L1", "L9"]  # the trace lists links by link id


def test_a_group_counts_once_per_direction() -> None:
    items = [
        link("e1", "SUPPORT", independence_group="G"),
        link("e2", "CONTRADICT", "MODERATE", independence_group="G"),
    ]
    trace = trace_of(STRICT, items)
    assert trace["support_groups"] == 1 and trace["contradict_groups"] == 1 and trace["contested"] is True
    assert trace["evidence_sum"] == "1.260000"


# --- states ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("probability", "support", "contradict", "state"),
    [
        ("0.8000", 1, 0, "SUPPORTED"),
        ("0.7999", 1, 0, "LEANS_SUPPORTED"),
        ("0.6000", 1, 0, "LEANS_SUPPORTED"),
        ("0.5999", 1, 0, "UNRESOLVED"),
        ("0.2000", 0, 1, "CONTRADICTED"),
        ("0.2001", 0, 1, "LEANS_CONTRADICTED"),
        ("0.4000", 0, 1, "LEANS_CONTRADICTED"),
        ("0.4001", 0, 1, "UNRESOLVED"),
        ("0.9000", 0, 1, "UNRESOLVED"),  # high probability, but no support group
        ("0.1000", 1, 0, "UNRESOLVED"),  # low probability, but no contradict group
    ],
)
def test_state_thresholds_and_their_boundaries(
    probability: str, support: int, contradict: int, state: str
) -> None:
    assert state_for(Decimal(probability), support, contradict, load_config(STRICT)) == state


def test_the_prior_alone_never_gives_a_directional_state() -> None:
    trace = trace_of(DEFAULT, [link("e1", "SUPPORT", "WEAK", "HEARSAY", 5)], claim_type="CAUSAL")
    assert Decimal(trace["probability"]) <= Decimal("0.40")
    assert trace["assessment_state"] == "UNRESOLVED"


def test_no_links_is_insufficient_evidence_without_a_probability() -> None:
    trace = trace_of(STRICT, [])
    assert trace["assessment_state"] == "INSUFFICIENT_EVIDENCE"
    assert trace["probability"] is None and trace["variants"] is None and trace["stability"] is None


# --- applicability -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("claim_type", ["CAUSAL", "INTERPRETIVE", "FORECAST", "LEGAL", "NORMATIVE"])
def test_types_strict_does_not_score_are_not_applicable(claim_type: str) -> None:
    trace = trace_of(STRICT, [link("e1")], claim_type=claim_type)
    assert trace["assessment_state"] == "NOT_APPLICABLE"
    assert trace["not_applicable_reason"] == "NOT_SCORED_BY_MODEL"
    assert trace["probability"] is None and trace["stability"] is None
    entry = links_by_id(trace)["e1"]
    assert entry["effective_weight"] is None and entry["reason"] == "not_applicable"


def test_default_scores_causal_and_interpretive() -> None:
    for claim_type in ("CAUSAL", "INTERPRETIVE"):
        trace = trace_of(DEFAULT, [link("e1")], claim_type=claim_type)
        assert trace["probability"] is not None and trace["stability"] == "LOW"


@pytest.mark.parametrize(
    "reason",
    [
        "NORMATIVE_OR_VALUE",
        "METAPHYSICAL",
        "RHETORICAL",
        "UNTESTABLE_CURRENT_METHODS",
        "UNRESOLVED_FORECAST",
        "NO_LEGAL_MODEL",
    ],
)
def test_a_claim_that_is_not_truth_evaluable_says_why(reason: str) -> None:
    trace = trace_of(DEFAULT, [link("e1")], not_evaluable=reason)
    assert trace["assessment_state"] == "NOT_APPLICABLE"
    assert trace["not_applicable_reason"] == reason
    assert trace["truth_evaluable"] is False and trace["probability"] is None


def test_not_applicable_still_computes_review_coverage() -> None:
    checks = [ReviewCheck(check_id="T1", check=ReviewCheckName.QUALIFIERS_REVIEWED, performed_by="ana")]
    trace = trace_of(STRICT, [link("e1")], claim_type="NORMATIVE", review_checks=checks)
    assert trace["review_coverage"] == "0.25"


# --- stability ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spread", "groups", "level"),
    [
        ("0.1000", 2, "HIGH"),
        ("0.1001", 2, "MEDIUM"),
        ("0.2500", 2, "MEDIUM"),
        ("0.2501", 2, "LOW"),
        ("0.0500", 1, "MEDIUM"),  # fewer than two groups caps HIGH at MEDIUM
        ("0.3000", 1, "LOW"),  # the cap never raises a level
    ],
)
def test_stability_levels_and_the_group_cap(spread: str, groups: int, level: str) -> None:
    assert stability_level(Decimal(spread), groups, False, load_config(STRICT))[0] == level


def test_model_dependent_types_are_always_low() -> None:
    assert stability_level(Decimal("0"), 5, True, load_config(DEFAULT)) == ("LOW", "model_dependent_type")


def test_variants_scale_every_kept_weight() -> None:
    trace = trace_of(STRICT, [link("e1"), link("e2", "CONTRADICT", "WEAK")])
    # sum 1.8 - 0.18 = 1.62; x0.7 = 1.134 -> 0.756576; x1.3 = 2.106 -> 0.891485
    assert trace["evidence_sum"] == "1.620000"
    assert trace["variants"]["conservative"] == "0.7566"
    assert trace["variants"]["permissive"] == "0.8915"


# --- review checklist --------------------------------------------------------------------------------------


def _check(check_id: str, name: str, who: str) -> ReviewCheck:
    return ReviewCheck(check_id=check_id, check=ReviewCheckName(name), performed_by=who)


def test_a_check_by_the_claims_author_is_shown_but_never_counts() -> None:
    checks = [_check("T1", "opposing_search_done", "author"), _check("T2", "qualifiers_reviewed", "ana")]
    trace = trace_of(STRICT, [link("e1")], recorded_by="author", review_checks=checks)
    checklist = trace["review_checklist"]
    assert checklist["opposing_search_done"] == {"ok": False, "by": [], "by_author": ["T1"]}
    assert checklist["qualifiers_reviewed"] == {"ok": True, "by": ["T2"], "by_author": []}
    assert trace["review_coverage"] == "0.25"


def test_primary_source_reviewed_needs_a_counted_primary_link() -> None:
    counted = trace_of(STRICT, [link("e1", source_kind="DATASET")])
    assert counted["review_checklist"]["primary_source_reviewed"]["by"] == ["e1"]
    not_primary = trace_of(STRICT, [link("e1", source_kind="NEWS_REPORT")])
    assert not not_primary["review_checklist"]["primary_source_reviewed"]["ok"]
    dropped = trace_of(
        STRICT,
        [
            link("e1", independence_group="G"),
            link("e2", relevance="WEAK", source_kind="LEGAL_DOCUMENT", independence_group="G"),
        ],
    )
    assert not dropped["review_checklist"]["primary_source_reviewed"]["ok"]


def test_a_primary_link_recorded_by_the_author_does_not_count() -> None:
    trace = trace_of(
        STRICT, [link("e1", source_kind="PRIMARY_TEXT", recorded_by="author")], recorded_by="author"
    )
    assert trace["review_checklist"]["primary_source_reviewed"] == {
        "ok": False,
        "by": [],
        "by_author": ["e1"],
    }


def test_independence_is_reviewed_when_every_counted_link_has_a_group() -> None:
    grouped = trace_of(STRICT, [link("e1", independence_group="G1"), link("e2", independence_group="G2")])
    assert grouped["review_checklist"]["independence_reviewed"]["ok"] is True
    partly = trace_of(STRICT, [link("e1", independence_group="G1"), link("e2")])
    assert partly["review_checklist"]["independence_reviewed"]["ok"] is False
    assert partly["independence_unreviewed"] == 1


def test_full_coverage_is_one() -> None:
    checks = [
        _check("T1", "opposing_search_done", "ana"),
        _check("T2", "independence_reviewed", "ben"),
        _check("T3", "qualifiers_reviewed", "ana"),
    ]
    trace = trace_of(STRICT, [link("e1", source_kind="MEASUREMENT")], recorded_by="zoe", review_checks=checks)
    assert trace["review_coverage"] == "1.00"


# --- rounding ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "places", "rounded"),
    [
        ("0.0000005", 6, "0.000000"),
        ("0.0000015", 6, "0.000002"),
        ("0.0000025", 6, "0.000002"),
        ("0.71465", 4, "0.7146"),
        ("0.71475", 4, "0.7148"),
        ("0.125", 2, "0.12"),
        ("-0.0000001", 6, "0.000000"),
    ],
)
def test_rounding_is_half_even_with_fixed_places(value: str, places: int, rounded: str) -> None:
    assert fixed(round_half_even(Decimal(value), places), places) == rounded


def test_near_rounding_boundary() -> None:
    guard = Decimal("0.000001")
    assert near_rounding_boundary(Decimal("0.900249511"), 4, guard)
    assert near_rounding_boundary(Decimal("0.90025099"), 4, guard)
    assert not near_rounding_boundary(Decimal("0.9002485"), 4, guard)
    assert not near_rounding_boundary(Decimal("0.7146"), 4, guard)


def test_a_probability_near_a_rounding_boundary_is_flagged() -> None:
    # 2.0 + 0.2 = 2.2 -> 1 / (1 + e^-2.2) = 0.90024951..., within 1e-6 of 0.90025
    flagged = trace_of(
        STRICT,
        [link("e1", observation="MEASUREMENT"), link("e2", relevance="WEAK", observation="MEASUREMENT")],
    )
    assert flagged["evidence_sum"] == "2.200000" and flagged["rounding_boundary"] is True
    assert trace_of(STRICT, [link("e1")])["rounding_boundary"] is False


# --- the trace ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", ALL)
def test_the_trace_names_the_model_and_its_hashes(ref: str) -> None:
    trace = trace_of(ref, [link("e1")])
    assert trace["model"] == ref
    assert trace["config_hash"] == RELEASED_HASHES[ref]
    assert trace["code_hash"].startswith("sha256:")


def test_probability_is_shown_with_its_model_never_as_a_percentage() -> None:
    result = model(DEFAULT).score(links_ledger([link("e1")]))
    (claim,) = result["claims"]
    assert claim["shown_as"] == "0.86 under ledger-default@0.1.0"
    assert "%" not in str(result["claims"])


def test_ties_within_one_evidence_id_go_to_the_lowest_link_id() -> None:
    from icarus.ledger import LedgerClaimType, LinkDirection, ObservationKind, Relevance
    from icarus.scoring.ledger.calculate import ClaimInput, LinkInput, assess_claim

    def same(link_id: str) -> LinkInput:
        return LinkInput(
            link_id=link_id,
            evidence_id="e1",
            direction=LinkDirection.SUPPORT,
            relevance=Relevance.DIRECT,
            observation=ObservationKind.DIRECT_TEXT,
            interpretive_steps=0,
            group="G",
        )

    claim = ClaimInput("c1", LedgerClaimType.OBSERVATIONAL, (same("L2"), same("L1")))
    entries = links_by_id(assess_claim(claim, load_config(STRICT)))
    assert entries["L1"]["effective_weight"] == "1.800000" and entries["L2"]["kept"] == "L1"


def test_the_trace_is_byte_identical_in_another_process(tmp_path: Path) -> None:
    ledger = links_ledger([link("e1", independence_group="G"), link("e2", "CONTRADICT", "WEAK")])
    path = tmp_path / "ledger.json"
    path.write_text(ledger.model_dump_json())
    here = model(DEFAULT).score(ledger)
    run = subprocess.run(
        [sys.executable, "-m", "icarus.cli", "score", str(path), "--model", DEFAULT, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    there = json.loads(run.stdout)
    assert canonical_json(there["trace"]) == canonical_json(here["trace"])
    assert there["trace_hash"] == here["trace_hash"]
