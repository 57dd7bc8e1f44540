"""Fixture data for the page tests: scored fixture ledgers, and a store holding a check with two versions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from icarus.ledger import Ledger, load_ledger
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.store import Store
from icarus.web import RecentCheck

FIXTURES = Path(__file__).parents[1] / "fixtures"
CREATED = datetime(2026, 11, 20, 12, 5, tzinfo=UTC)


@cache
def fixture_ledger(name: str) -> Ledger:
    return load_ledger(FIXTURES / f"{name}.json")


def scored(name: str, policy: str = "icarus@1.1") -> tuple[Ledger, dict[str, Any]]:
    ledger = fixture_ledger(name)
    return ledger, score_ledger(ledger, load_policy(policy))


@dataclass(frozen=True)
class Entry:
    """A timeline entry built by hand (the store's TimelineEntry has the same shape)."""

    version: int
    created_at: datetime
    as_of: datetime
    policy: str
    label: str
    band: str
    reason: str
    what_changed: str


@dataclass(frozen=True)
class StoredChecks:
    store: Store
    cycle_check: str  # circular-reporting: version 1 under icarus@1.0, version 2 under icarus@1.1
    wires_check: str  # two-independent-wires: one version, supported


def fill_store(store: Store) -> StoredChecks:
    ledger, first = scored("circular-reporting", "icarus@1.0")
    ref = store.record_check(ledger.subject, ledger, first)
    _, second = scored("circular-reporting", "icarus@1.1")
    store.record_check(ledger.subject, ledger, second, reason="recheck", check_id=ref.check_id)
    wires_ledger, wires = scored("two-independent-wires")
    wires_ref = store.record_check(wires_ledger.subject, wires_ledger, wires)
    return StoredChecks(store, ref.check_id, wires_ref.check_id)


def recent_from(checks: StoredChecks) -> list[RecentCheck]:
    rows = []
    for check_id in (checks.wires_check, checks.cycle_check):
        summary = checks.store.check(check_id)
        latest = checks.store.latest(check_id)
        rows.append(
            RecentCheck(
                check_id=check_id,
                status=str(summary.status),
                created_at=summary.created_at,
                subject_kind=summary.subject_kind,
                subject_id=summary.subject_id,
                latest_version=latest.version,
                label=latest.label,
                band=latest.band,
                as_of=latest.as_of,
                headline=latest.result()["claims"][0]["text"],
            )
        )
    return rows
