"""Not-live inputs are switched off by the policy that declares them: Lin et al.'s rating under icarus@1.0.

icarus@1.0 publishes the Lin et al. baseline as not yet live; icarus@1.1 and icarus@1.2 make it live. An
evidence item whose reputation score came from that rating carries the record without it
(``ReputationRecord.without_lin``), and the core scores that record wherever the rating is inert.
"""

from __future__ import annotations

import ast
from decimal import Decimal
from pathlib import Path

import pytest

from icarus.ledger import ReputationMethod, ReputationRecord, SourceTier
from icarus.scoring.canonical import ledger_hash
from icarus.scoring.icarus.config import KNOWN_FEATURES, load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.scoring.icarus.not_live import LIN_RATING, inputs_in_force
from tests import builders as b

CORE = Path(__file__).parents[2] / "src" / "icarus" / "scoring" / "icarus"
# Where features are declared or described rather than read.
DECLARING = {"config.py", "catalog.py", "feature_words.py"}


def _lin(domain: str, score: str, fallback: ReputationRecord | None) -> ReputationRecord:
    return ReputationRecord(
        domain=domain,
        score=Decimal(score),
        tier=SourceTier.OTHER,
        method=ReputationMethod.DATASET,
        produced_by="lin2023@abc",
        version="v1",
        without_lin=fallback,
    )


def _estimate(domain: str, score: str = "0.50") -> ReputationRecord:
    return ReputationRecord(
        domain=domain,
        score=Decimal(score),
        tier=SourceTier.OTHER,
        method=ReputationMethod.HEURISTIC,
        produced_by="domain-features@1",
        version="1",
    )


def _two_lin_rated_origins(with_fallback: bool = True) -> list:
    return [
        b.item(
            name,
            reputation=_lin(
                f"{name}.example", "0.80", _estimate(f"{name}.example") if with_fallback else None
            ),
        )
        for name in ("a", "b")
    ]


def _items(result: dict) -> dict[str, dict]:
    return {item["evidence_id"]: item for item in result["trace"]["claims"][0]["passes"][0]["items"]}


def test_lin_rating_counts_where_live_and_gives_way_to_the_estimate_under_1_0() -> None:
    ledger = b.ledger(_two_lin_rated_origins())
    live = score_ledger(ledger, load_policy("icarus@1.1"))
    first = score_ledger(ledger, load_policy("icarus@1.0"))
    assert {Decimal(i["R"]) for i in _items(live).values()} == {Decimal("0.80")}
    assert {Decimal(i["P"]) for i in _items(live).values()} == {1}
    assert live["claims"][0]["label"] == "supported"
    # under 1.0 the domains are not on file: heuristic R, the 0.60 discount, and too little weight to count
    assert {Decimal(i["R"]) for i in _items(first).values()} == {Decimal("0.50")}
    assert {Decimal(i["P"]) for i in _items(first).values()} == {
        load_policy("icarus@1.0").weighting.estimated_reputation_discount
    }
    assert all(i["estimated_reputation"] for i in _items(first).values())
    assert first["claims"][0]["label"] == "unverifiable"
    assert {e["reputation"]["produced_by"] for e in first["evidence"]} == {"domain-features@1"}


def test_the_result_names_the_ledger_as_given_even_when_inputs_were_switched_off() -> None:
    ledger = b.ledger(_two_lin_rated_origins())
    assert inputs_in_force(ledger, load_policy("icarus@1.0")) is not ledger
    result = score_ledger(ledger, load_policy("icarus@1.0"))
    assert result["ledger_hash"] == result["trace"]["ledger_hash"] == ledger_hash(ledger)


def test_a_record_without_the_fallback_is_scored_as_recorded_under_every_version() -> None:
    # a ledger stored before records carried the fallback: nothing to swap, so it replays as published
    ledger = b.ledger(_two_lin_rated_origins(with_fallback=False))
    assert inputs_in_force(ledger, load_policy("icarus@1.0")) is ledger
    assert {Decimal(i["R"]) for i in _items(score_ledger(ledger, load_policy("icarus@1.0"))).values()} == {
        Decimal("0.80")
    }


@pytest.mark.parametrize("ref", ["icarus@1.1", "icarus@1.2"])
def test_versions_where_the_rating_is_live_read_the_ledger_untouched(ref: str) -> None:
    ledger = b.ledger(_two_lin_rated_origins())
    assert load_policy(ref).live(LIN_RATING)
    assert inputs_in_force(ledger, load_policy(ref)) is ledger


def test_a_record_without_lin_keeps_no_fallback_bytes() -> None:
    # the fallback is written only where it is set, so every ledger stored before it keeps its hash
    assert "without_lin" not in b.record("x.example").model_dump_json()


def _read_features() -> dict[str, list[str]]:
    """Feature key -> the core modules that pass it to ``policy.live`` (directly or through a constant)."""
    found: dict[str, list[str]] = {}
    for path in sorted(CORE.glob("*.py")):
        if path.name in DECLARING:
            continue
        tree = ast.parse(path.read_text())
        constants = {
            target.id: node.value.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for target in node.targets
            if isinstance(target, ast.Name) and isinstance(node.value.value, str)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "live"
                and node.args
            ):
                arg = node.args[0]
                key = arg.value if isinstance(arg, ast.Constant) else constants.get(getattr(arg, "id", ""))
                if isinstance(key, str):
                    found.setdefault(key, []).append(path.name)
    return found


@pytest.mark.parametrize("feature", sorted(KNOWN_FEATURES))
def test_every_part_a_policy_can_hold_inert_is_read_by_the_core(feature: str) -> None:
    # a part no code reads would be listed as not live while it acts anyway (as Lin et al.'s rating did)
    assert _read_features().get(feature), f"no scoring module asks policy.live({feature!r})"
