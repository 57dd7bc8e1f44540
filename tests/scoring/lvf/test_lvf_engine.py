"""LVF over a ledger: the gate, the deterministic assessor's criteria, NLI or fallback, holds, records."""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal as D

import pytest

from icarus.ledger import Directness, Disposition, SourceClass, TemporalScope, ValidityFlags
from icarus.scoring.lvf import (
    Component,
    Criterion,
    LedgerAssessor,
    RunStatus,
    load_lvf_config,
    recompute_score,
    render_run,
    run_lvf,
)
from icarus.scoring.lvf.assessors import AssessmentRequest
from icarus.scoring.lvf.facts import claim_facts, ledger_graph
from tests import builders as b
from tests.scoring.lvf.support import FixedAssessor, all_scores, worthy_ledger

V3 = load_lvf_config("lvf@3.0")
V2 = load_lvf_config("lvf@2.0")


def _ledger_scores(ledger: b.Ledger) -> dict[Criterion, D]:
    graph = ledger_graph(ledger, V3)
    facts = claim_facts(ledger, ledger.claims[0], graph, V3)
    return LedgerAssessor().assess(AssessmentRequest(ledger, facts, V3)).scores


def test_claim_below_the_gate_is_skipped_before_any_assessor_runs() -> None:
    spy = FixedAssessor(all_scores("5"))
    ledger = worthy_ledger(text="lol what", disposition=Disposition.CHECKABLE)
    (run,) = run_lvf(ledger, V3, [spy])
    assert run.status is RunStatus.SKIPPED and spy.calls == []
    assert "below the gate 0.30" in run.skip_reason and "not that it is false" in run.skip_reason
    assert run.score is None and run.components == () and run.assessors == ()


def test_claim_at_or_above_the_gate_is_assessed() -> None:
    spy = FixedAssessor(all_scores("5"))
    (run,) = run_lvf(worthy_ledger(), V3, [spy])
    assert run.checkworthiness >= D("0.30") and spy.calls == ["c1"]
    assert run.status is not RunStatus.SKIPPED


def test_a_claim_that_is_not_checkable_has_checkworthiness_0() -> None:
    (run,) = run_lvf(worthy_ledger(disposition=Disposition.OPINION), V3)
    assert run.checkworthiness == 0 and run.status is RunStatus.SKIPPED


def test_corroboration_counts_independent_origins_never_article_counts() -> None:
    story = b.unique_text("wire-story")
    pickups = [b.item(f"p{i}", text=story, domain=f"outlet{i}.example") for i in range(10)]
    one_origin = _ledger_scores(worthy_ledger(pickups))
    two_origins = _ledger_scores(worthy_ledger([*pickups, b.item("independent")]))
    table = V3.ledger_assessor.corroboration_points
    assert one_origin[Criterion.CORROBORATION] == table[1]
    assert two_origins[Criterion.CORROBORATION] == table[2]
    (run,) = run_lvf(worthy_ledger(pickups), V3)
    assert run.counts is not None
    assert (run.counts.counted_items, run.counts.independent_origins) == (10, 1)


def test_corroboration_points_saturate_at_the_last_entry() -> None:
    many = _ledger_scores(worthy_ledger([b.item(f"e{i}") for i in range(6)]))
    assert many[Criterion.CORROBORATION] == V3.ledger_assessor.corroboration_points[-1]


def test_internal_consistency_is_the_supporting_share_of_origins() -> None:
    mixed = [b.item("s1"), b.item("s2"), b.item("s3"), b.item("r1", stance="refute")]
    assert _ledger_scores(worthy_ledger(mixed))[Criterion.INTERNAL_CONSISTENCY] == D("7.5")
    nothing = [b.item("n1", stance="neutral")]
    assert _ledger_scores(worthy_ledger(nothing))[Criterion.INTERNAL_CONSISTENCY] == D("5.0")


def test_evidence_below_the_neutral_threshold_or_weightless_is_not_counted() -> None:
    weak = b.item("weak", confidence="0.49")
    at_threshold = b.item("edge", confidence="0.50")
    platform = b.item("plat", source_class=SourceClass.PLATFORM)
    (run,) = run_lvf(worthy_ledger([weak, at_threshold, platform]), V3)
    assert run.counts is not None and run.counts.counted_items == 1


def test_source_provenance_reads_directness_access_and_traceability() -> None:
    primary = b.item("prim", directness=Directness.PRIMARY_DOCUMENT)
    assert _ledger_scores(worthy_ledger([primary]))[Criterion.SOURCE_PROVENANCE] == D(10)
    paywalled = b.item("pay", directness=Directness.PRIMARY_DOCUMENT, flags=ValidityFlags(access="paywall"))
    assert _ledger_scores(worthy_ledger([paywalled]))[Criterion.SOURCE_PROVENANCE] == D(6)
    untraced = b.item("raw", content_sha256=None, snapshot=None, flags=ValidityFlags(anonymous_sourcing=True))
    assert _ledger_scores(worthy_ledger([untraced]))[Criterion.SOURCE_PROVENANCE] == D(3)  # 8 - 3 - 2
    assert _ledger_scores(worthy_ledger([]))[Criterion.SOURCE_PROVENANCE] == D(0)


def test_specificity_counts_specific_cues_at_2_points_each() -> None:
    precise = "Halden harbor handled 40,000 TEU in October 2026, 12% fewer than a year before."
    assert _ledger_scores(worthy_ledger(text=precise))[Criterion.SPECIFICITY] == D(10)  # all 5 cues
    assert _ledger_scores(worthy_ledger())[Criterion.SPECIFICITY] == D(8)  # no unit: 4 cues
    vague = "Things at the harbor got a lot worse recently for everyone."
    assert _ledger_scores(worthy_ledger(text=vague))[Criterion.SPECIFICITY] == D(0)


def test_temporal_validity_steps_by_age_for_current_claims_and_is_10_for_historical() -> None:
    def current(days: int) -> D:
        item = b.item("e1", published_at=b.AS_OF - timedelta(days=days))
        return _ledger_scores(worthy_ledger([item], temporal_scope=TemporalScope.CURRENT))[
            Criterion.TEMPORAL_VALIDITY
        ]

    assert [current(d) for d in (7, 8, 30, 31, 180, 181)] == [D(10), D(7), D(7), D(4), D(4), D(1)]
    assert _ledger_scores(worthy_ledger())[Criterion.TEMPORAL_VALIDITY] == D(10)


def test_bias_signal_is_the_share_of_counted_items_without_incentives() -> None:
    items = [b.item("e1"), b.item("e2", flags=ValidityFlags(conflict_of_interest=True))]
    assert _ledger_scores(worthy_ledger(items))[Criterion.BIAS_SIGNAL] == D(5)
    labelled = [b.item("e1", reputation=b.record("e1.example", bias_label="far-left"))]
    assert _ledger_scores(worthy_ledger(labelled))[Criterion.BIAS_SIGNAL] == D(10)


def test_nli_component_is_the_supporting_share_of_stance_confidence() -> None:
    items = [b.item("s", confidence="0.90"), b.item("r", stance="refute", confidence="0.60")]
    (run,) = run_lvf(worthy_ledger(items), V3)
    nli = run.component(Component.NLI)
    assert nli is not None and nli.status == "ran" and nli.value == D("60.00")
    assert run.formula is not None and run.formula.value == "with_nli"


def test_fallback_weights_and_not_run_when_no_stance_judge_answered() -> None:
    failed = b.judgment(stance="neutral", confidence="0")
    failed = failed.model_copy(
        update={"stance": failed.stance.model_copy(update={"failure": "judge_unavailable"})}
    )
    (run,) = run_lvf(worthy_ledger([b.item("e1", judgments=[failed])]), V3, [FixedAssessor(all_scores("5"))])
    nli = run.component(Component.NLI)
    assert nli is not None and nli.status == "not run" and nli.value is None and nli.weight == 0
    assert run.formula is not None and run.formula.value == "without_nli"
    lvf = run.component(Component.LVF)
    assert lvf is not None and lvf.weight == D("0.75")
    assert any("NLI is reported as not run" in text for text in run.limitations)


def test_fewer_than_two_assessors_holds_the_run() -> None:
    (run,) = run_lvf(worthy_ledger(), V3, offline=(LedgerAssessor(),))
    assert run.status is RunStatus.HELD and [h.code for h in run.holds] == ["too_few_assessors"]
    assert run.label is not None  # computed and stored, but not published


def test_two_assessors_within_4_points_score_and_beyond_4_hold() -> None:
    ledger = worthy_ledger()
    deterministic = _ledger_scores(ledger)
    close = {c: min(v + 4, D(10)) if v <= 6 else v - 4 for c, v in deterministic.items()}
    (scored,) = run_lvf(ledger, V3, [FixedAssessor(close)], offline=(LedgerAssessor(),))
    assert scored.status is RunStatus.SCORED and max(c.spread for c in scored.criteria) == 4
    far = dict(close)
    far[Criterion.SPECIFICITY] = deterministic[Criterion.SPECIFICITY] - D("4.1")
    (held,) = run_lvf(ledger, V3, [FixedAssessor(far)], offline=(LedgerAssessor(),))
    assert held.status is RunStatus.HELD and held.holds[0].code == "assessor_spread"
    assert "specificity" in held.holds[0].detail


def test_each_run_stores_methodology_weights_and_components_and_recomputes_from_them() -> None:
    (run,) = run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("8"))])
    assert run.methodology == "lvf@3.0" and run.config_hash == V3.config_hash
    assert {c.component for c in run.components} == set(Component)
    assert {c.criterion: c.weight for c in run.criteria} == V3.criteria
    assert recompute_score(run) == run.score


def test_a_v2_run_renders_with_its_own_stored_weights() -> None:
    ledger = worthy_ledger()
    helper = FixedAssessor(all_scores("8"))
    (old,) = run_lvf(ledger, V2, [helper])
    (new,) = run_lvf(ledger, V3, [helper])
    assert old.score != new.score
    stored = type(old).model_validate_json(old.canonical_json())  # as read back from storage
    page = render_run(stored)
    assert "under lvf@2.0" in page and "lvf                50 %" in page
    assert "lvf                60 %" not in page
    assert recompute_score(stored) == old.score


def test_lvf_is_deterministic_and_independent_of_evidence_order() -> None:
    items = [b.item(f"e{i}", stance="refute" if i % 3 == 0 else "support") for i in range(7)]
    first = run_lvf(worthy_ledger(items), V3)
    again = run_lvf(worthy_ledger(items), V3)
    assert [r.canonical_json() for r in first] == [r.canonical_json() for r in again]
    shuffled = list(items)
    random.Random(7).shuffle(shuffled)
    (other,) = run_lvf(worthy_ledger(shuffled), V3)
    assert other.score == first[0].score and other.criteria == first[0].criteria
    assert other.counts == first[0].counts


FEW_SOURCES = "Fewer than two independent source records"


def test_limitations_name_few_sources_and_time_sensitivity() -> None:
    (run,) = run_lvf(worthy_ledger([b.item("e1")], temporal_scope=TemporalScope.CURRENT), V3)
    text = " ".join(run.limitations)
    assert FEW_SOURCES in text and "time-sensitive" in text
    assert run.external_search == "not run"


def test_ten_pickups_of_one_wire_story_are_fewer_than_two_source_records() -> None:
    story = b.unique_text("wire-story")
    pickups = [b.item(f"p{i}", text=story, domain=f"outlet{i}.example") for i in range(10)]
    (run,) = run_lvf(worthy_ledger(pickups), V3)
    assert run.counts is not None
    assert (run.counts.counted_items, run.counts.independent_origins) == (10, 1)
    assert any(FEW_SOURCES in line for line in run.limitations)
    # One independent report beside them makes two origins: the limitation goes.
    (two,) = run_lvf(worthy_ledger([*pickups, b.item("independent")]), V3)
    assert two.counts is not None and two.counts.independent_origins == 2
    assert not any(FEW_SOURCES in line for line in two.limitations)


def test_unknown_claim_id_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="no claim zz"):
        run_lvf(worthy_ledger(), V3, claim_ids=["zz"])
