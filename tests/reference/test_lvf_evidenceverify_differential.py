"""Differential test: the engine and the reference agree on LVF runs and EvidenceVerify results.

Cases come from the generators ``make reference-check`` uses (bench/reference_lvf.py,
bench/reference_evidenceverify.py); hypothesis draws every choice, so a difference shrinks to a small case.
Half the cases move a threshold onto the case's own value or 1e-6 (or 1) either side of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench import reference_evidenceverify, reference_lvf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

LVF_CASES = 1000
EVIDENCEVERIFY_CASES = 800


def _pick(data: st.DataObject) -> Any:
    def pick(options: Sequence[Any]) -> Any:
        return data.draw(st.sampled_from(list(options)))

    return pick


@settings(max_examples=LVF_CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_lvf_engine_and_reference_agree_on_every_recomputed_field(data: st.DataObject) -> None:
    case, config = reference_lvf.draw(_pick(data))
    assert reference_lvf.differences(case, config) == [], (config.ref, case)


@settings(max_examples=EVIDENCEVERIFY_CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_evidenceverify_engine_and_reference_agree_on_every_result_field(data: st.DataObject) -> None:
    case, config = reference_evidenceverify.draw(_pick(data))
    assert reference_evidenceverify.differences(case, config) == [], case
