"""The second offline assessor reads the stance answers and the claim's words only; a claim that misstates
what it cites (rule 1, H20) reaches the LVF criteria."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

from icarus.ledger import Ledger, load_ledger
from icarus.scoring.lvf import Criterion, RunStatus, load_lvf_config, run_lvf
from icarus.scoring.lvf.assessors import AssessmentRequest
from icarus.scoring.lvf.facts import claim_facts, ledger_graph
from icarus.scoring.lvf.stance_assessor import STANCE_ASSESSOR, StanceAssessor
from tests import builders as b
from tests.scoring.lvf.support import worthy_ledger

V3 = load_lvf_config("lvf@3.0")
LEDGERS = Path(__file__).parents[3] / "examples" / "ledgers"


def scores(ledger: Ledger) -> dict[Criterion, D]:
    facts = claim_facts(ledger, ledger.claims[0], ledger_graph(ledger, V3), V3)
    return StanceAssessor().assess(AssessmentRequest(ledger, facts, V3)).scores


def test_misquote_example_scores_zero_internal_consistency_under_both_assessors() -> None:
    ledger = load_ledger(LEDGERS / "self-evidence-misquote.json")
    (run,) = run_lvf(ledger, V3)
    consistency = next(c for c in run.criteria if c.criterion is Criterion.INTERNAL_CONSISTENCY)
    assert consistency.scores == {"ledger-deterministic@1": D("0.0"), STANCE_ASSESSOR: D("0.0")}
    assert run.counts is not None and run.counts.supporting_origins == 1  # the misstated study is not support
    assert run.display_score is not None and run.display_score < 89


def test_two_independent_wires_reach_a_final_label_offline() -> None:
    (run,) = run_lvf(load_ledger(LEDGERS / "two-independent-wires.json"), V3)
    assert run.status is RunStatus.SCORED and run.label is not None
    assert [a.assessor for a in run.assessors] == ["ledger-deterministic@1", STANCE_ASSESSOR]


def test_corroboration_reads_the_strongest_answers_and_never_counts_copies() -> None:
    one = worthy_ledger([b.item("e1", stance="support", confidence="0.8")])
    copies = worthy_ledger([b.item(f"e{i}", stance="support", confidence="0.8") for i in range(1, 6)])
    assert scores(one)[Criterion.CORROBORATION] == scores(copies)[Criterion.CORROBORATION] == D("8.0")
    contested = worthy_ledger(
        [b.item("e1", stance="support", confidence="0.8"), b.item("e2", stance="refute", confidence="0.5")]
    )
    assert scores(contested)[Criterion.CORROBORATION] == D("4.0")
    assert scores(contested)[Criterion.INTERNAL_CONSISTENCY] == D("2.3")  # 10 x 0.3 / 1.3


def test_without_decisive_answers_it_scores_from_the_claim_alone() -> None:
    bare = worthy_ledger([])
    result = scores(bare)
    assert result[Criterion.SOURCE_PROVENANCE] == D("0.0") and result[Criterion.CORROBORATION] == D("0.0")
    assert result[Criterion.INTERNAL_CONSISTENCY] == D("5.0")


def test_claim_words_drive_specificity_time_and_bias() -> None:
    calm = scores(worthy_ledger([], text="Container traffic at Halden harbor fell 12% in October 2019."))
    loaded = scores(worthy_ledger([], text="Shocking: traffic is now totally destroyed, reportedly!"))
    assert calm[Criterion.SPECIFICITY] > loaded[Criterion.SPECIFICITY]
    assert calm[Criterion.TEMPORAL_VALIDITY] == D("10.0") and loaded[Criterion.TEMPORAL_VALIDITY] == D("4.0")
    assert calm[Criterion.BIAS_SIGNAL] == D("10.0") and loaded[Criterion.BIAS_SIGNAL] == D("2.0")
