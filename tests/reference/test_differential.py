"""Differential test: the engine and the reference agree on every field of random claims' traces.

Claims come from the same generator as ``make reference-check``; hypothesis draws every choice, so a
difference shrinks to a small claim. Half the cases move one threshold or spread limit onto the claim's
own value or 1e-6 either side of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from bench.reference_check import boundary_config, differences, random_claim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icarus.scoring.ledger.config import CONFIG_FILES, load_config

CASES_PER_FAMILY = 1500


@pytest.mark.parametrize("family", ["ledger-strict", "ledger-default"])
@settings(max_examples=CASES_PER_FAMILY, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_engine_and_reference_agree(family: str, data: st.DataObject) -> None:
    def pick(options: Sequence[Any]) -> Any:
        return data.draw(st.sampled_from(list(options)))

    ref = pick(sorted(r for r in CONFIG_FILES if r.startswith(family)))
    claim = random_claim(pick)
    config = boundary_config(load_config(ref), claim, pick)
    assert differences(claim, config) == [], (ref, claim)
