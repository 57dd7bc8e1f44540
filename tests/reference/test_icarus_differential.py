"""Differential test: the engine and the Icarus-policy reference agree on random ledgers.

Ledgers come from the same generator as ``make reference-check``; hypothesis draws every choice, so a
difference shrinks to a small ledger. Half the cases move one threshold (counting, neutral, polarity,
conflict ratio, evidence floors, band edges) onto the first claim's own value or 1e-6 either side of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.icarus_reference import boundary_policy, differences, random_ledger
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icarus.ledger import Ledger
from icarus.scoring.icarus.config import POLICY_FILES, load_policy

CASES = 1200


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_engine_and_reference_agree_on_random_ledgers(data: st.DataObject) -> None:
    def pick(options: Sequence[Any]) -> Any:
        return data.draw(st.sampled_from(list(options)))

    ledger = Ledger.model_validate(random_ledger(pick))
    policy = boundary_policy(load_policy(pick(sorted(POLICY_FILES))), ledger, pick)
    assert differences(ledger, policy) == [], (policy.ref, ledger.model_dump_json())
