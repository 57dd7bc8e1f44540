"""The eight published golden examples, digit for digit (spec: ledger-models.md).

The cases live in ``icarus/scoring/ledger/golden.json``, the file the methodology pages and
docs/ledger-models.md render; each is scored here through the Icarus ledger mapping and through the
resolved inputs the pages use, and both must give the published answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from icarus.scoring.ledger.config import load_config
from icarus.scoring.ledger.golden import GoldenCase, answer, golden_cases, trace_answer
from tests.scoring.ledger_models.support import link, links_by_id, trace_of

CASES = {case.case: case for case in golden_cases()}


def ledger_trace(case: GoldenCase) -> dict[str, Any]:
    items = [
        link(
            entry.evidence_id,
            entry.direction,
            entry.relevance,
            entry.observation,
            entry.steps,
            **({"independence_group": entry.group} if entry.group else {}),
            **({"authenticity": entry.authenticity} if entry.authenticity != "UNVERIFIED" else {}),
        )
        for entry in case.links
    ]
    return trace_of(case.model, items, claim_type=case.claim_type)


def test_the_published_cases_are_g1_to_g8() -> None:
    assert list(CASES) == [f"G{n}" for n in range(1, 9)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_gives_its_published_answer_through_the_ledger(name: str) -> None:
    case = CASES[name]
    got = trace_answer(ledger_trace(case), tuple(case.expected))
    assert got == case.expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_pages_resolved_inputs_give_the_same_answer(name: str) -> None:
    case = CASES[name]
    got = answer(case, load_config(case.model))
    assert {key: got[key] for key in case.expected} == case.expected
    assert got == trace_answer(ledger_trace(case))


def test_g3_keeps_the_strongest_link_and_names_it_on_the_dropped_ones() -> None:
    links = links_by_id(ledger_trace(CASES["G3"]))
    assert links["e1"]["effective_weight"] == "0.918000"
    for n in range(2, 6):
        dropped = links[f"e{n}"]
        assert dropped["magnitude"] == "0.459000"
        assert dropped["effective_weight"] == "0.000000"
        assert dropped["reason"] == "dependent_strongest_only"
        assert dropped["kept"] == "e1"


def test_g6_weighs_expert_analysis_at_nothing_under_strict() -> None:
    assert links_by_id(ledger_trace(CASES["G6"]))["e1"]["magnitude"] == "0.000000"


def test_g7_is_model_dependent() -> None:
    assert ledger_trace(CASES["G7"])["model_dependent"] is True
