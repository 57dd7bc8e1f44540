"""Stored icarus@1.0 versions replay as published after Lin et al.'s rating was switched off under 1.0.

A ledger stored before reputation records carried the record without that rating scores with the rating
it was published with; one stored since carries the fallback through the store and scores without it, on
the first run and on every replay alike."""

from __future__ import annotations

from decimal import Decimal

import pytest

from icarus.ledger import ReputationMethod, ReputationRecord, SourceTier
from icarus.reports.replay import replay
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.store import Store
from tests import builders as b


def _lin(domain: str, fallback: bool) -> ReputationRecord:
    estimate = ReputationRecord(
        domain=domain,
        score=Decimal("0.50"),
        tier=SourceTier.OTHER,
        method=ReputationMethod.HEURISTIC,
        produced_by="domain-features@1",
        version="1",
    )
    return ReputationRecord(
        domain=domain,
        score=Decimal("0.80"),
        tier=SourceTier.OTHER,
        method=ReputationMethod.DATASET,
        produced_by="lin2023@abc",
        version="v1",
        without_lin=estimate if fallback else None,
    )


@pytest.mark.parametrize(("fallback", "published"), [(False, "supported"), (True, "unverifiable")])
def test_a_stored_1_0_version_replays_as_published(store: Store, fallback: bool, published: str) -> None:
    ledger = b.ledger([b.item(n, reputation=_lin(f"{n}.example", fallback)) for n in ("a", "b")])
    result = score_ledger(ledger, load_policy("icarus@1.0"))
    assert result["overall"]["label"] == published
    ref = store.record_check(ledger.subject, ledger, result)
    stored = store.version(ref.check_id, 1).ledger()
    assert ("without_lin" in stored["evidence"][0]["reputation"]) is fallback  # kept through the store
    outcome = replay(store, ref.check_id, 1)
    assert outcome.identical, outcome.diff
