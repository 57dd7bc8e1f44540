"""Compare two models over one ledger: both verdicts, and where and why they disagree.

The diff lists every (claim, item) whose effective weight differs, the factors that differ, and the config
keys responsible (keys that differ between the two configs and that those factors read); then every claim
whose outcome (label or state), band or probability changed. Models of different families share no
config keys, so only their weights and verdicts are compared.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from icarus.ledger import Ledger
from icarus.scoring.registry import ItemWeight, ScoringModel, Verdict


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted keys of a nested config (``{"a": {"b": 1}}`` → ``{"a.b": 1}``); lists are leaf values."""
    if not isinstance(data, dict):
        return {prefix: data}
    flat: dict[str, Any] = {}
    for key, value in data.items():
        flat.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat


def config_diff(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Every dotted key whose value differs (or exists on one side only), sorted by key."""
    flat_a, flat_b = flatten(a), flatten(b)
    return [
        {"key": key, "a": flat_a.get(key), "b": flat_b.get(key)}
        for key in sorted(set(flat_a) | set(flat_b))
        if flat_a.get(key) != flat_b.get(key)
    ]


def _same_number(a: str, b: str) -> bool:
    try:
        return Decimal(a) == Decimal(b)
    except InvalidOperation:
        return a == b


def _covers(config_key: str, read: str) -> bool:
    """A differing config key is responsible for a factor when it is, contains or lies under what it reads."""
    return config_key == read or config_key.startswith(read + ".") or read.startswith(config_key + ".")


def weight_diff(
    a: list[ItemWeight], b: list[ItemWeight], differing_keys: list[str], same_family: bool
) -> list[dict[str, Any]]:
    by_a = {(w.claim_id, w.item_id): w for w in a}
    by_b = {(w.claim_id, w.item_id): w for w in b}
    rows = []
    for key in sorted(set(by_a) | set(by_b)):
        wa, wb = by_a.get(key), by_b.get(key)
        weight_a = wa.weight if wa else None
        weight_b = wb.weight if wb else None
        if weight_a is not None and weight_b is not None and _same_number(weight_a, weight_b):
            continue
        factors: dict[str, list[str | None]] = {}
        responsible: set[str] = set()
        if wa and wb and same_family:
            for name in sorted(set(wa.factors) | set(wb.factors)):
                fa, fb = wa.factors.get(name), wb.factors.get(name)
                if fa is not None and fb is not None and _same_number(fa, fb):
                    continue
                factors[name] = [fa, fb]
                reads = set(wa.config_keys.get(name, ())) | set(wb.config_keys.get(name, ()))
                responsible.update(k for k in differing_keys if any(_covers(k, r) for r in reads))
        rows.append(
            {
                "claim_id": key[0],
                "item_id": key[1],
                "weight": [weight_a, weight_b],
                "factors": factors,
                "config_keys": sorted(responsible),
                "notes": [wa.note if wa else "absent", wb.note if wb else "absent"],
            }
        )
    return rows


def verdict_changes(a: list[Verdict], b: list[Verdict]) -> list[dict[str, Any]]:
    by_a = {v.claim_id: v for v in a}
    by_b = {v.claim_id: v for v in b}
    rows = []
    for claim_id in sorted(set(by_a) | set(by_b)):
        va, vb = by_a.get(claim_id), by_b.get(claim_id)
        if va and vb and (va.outcome, va.band, va.probability) == (vb.outcome, vb.band, vb.probability):
            continue
        rows.append(
            {
                "claim_id": claim_id,
                "outcome": [va.outcome if va else None, vb.outcome if vb else None],
                "band": [va.band if va else None, vb.band if vb else None],
                "probability": [va.probability if va else None, vb.probability if vb else None],
                "outcome_changed": (va.outcome if va else None) != (vb.outcome if vb else None),
            }
        )
    return rows


def compare(ledger: Ledger, a: ScoringModel, b: ScoringModel) -> dict[str, Any]:
    """Score ``ledger`` under both models; return both results and the diff (JSON-ready).

    Pairs in ``results``, ``verdicts`` and the diff's ``[a, b]`` values are in the order the models were given.
    """
    result_a, result_b = a.score(ledger), b.score(ledger)
    same_family = a.family == b.family
    differing = config_diff(a.config_data(), b.config_data()) if same_family else []
    keys = [row["key"] for row in differing]
    return {
        "models": [{"ref": m.ref, "family": m.family, "config_hash": m.config_hash} for m in (a, b)],
        "results": [result_a, result_b],
        "verdicts": [
            [_verdict_json(v) for v in a.verdicts(result_a)],
            [_verdict_json(v) for v in b.verdicts(result_b)],
        ],
        "diff": {
            "same_family": same_family,
            "config": differing,
            "items": weight_diff(a.item_weights(result_a), b.item_weights(result_b), keys, same_family),
            "verdicts": verdict_changes(a.verdicts(result_a), b.verdicts(result_b)),
        },
    }


def _verdict_json(v: Verdict) -> dict[str, Any]:
    return {
        "claim_id": v.claim_id,
        "outcome": v.outcome,
        "band": v.band,
        "probability": v.probability,
        "shown_as": v.shown_as,
    }
