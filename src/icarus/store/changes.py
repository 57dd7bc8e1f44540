"""What changed between two report versions, said in a sentence or two a reader can follow."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["what_changed"]


def what_changed(previous_result: Mapping[str, Any] | None, new_result: Mapping[str, Any]) -> str:
    """Summarise label, band and claim changes from ``previous_result`` to ``new_result``.

    Only what a reader of the report sees is compared (overall and per-claim label and band, claims
    added, removed or no longer assessed, the policy); trace-level differences belong to ``replay``.
    """
    if previous_result is None:
        return "first version"
    parts: list[str] = []
    old_policy, new_policy = previous_result.get("policy"), new_result.get("policy")
    if old_policy != new_policy:
        parts.append(f"policy {old_policy} → {new_policy}")
    old_overall, new_overall = (
        _label_band(previous_result.get("overall")),
        _label_band(new_result.get("overall")),
    )
    if old_overall != new_overall:
        parts.append(f"overall {_show(old_overall)} → {_show(new_overall)}")
    old_claims, new_claims = _claims(previous_result), _claims(new_result)
    old_skipped, new_skipped = _not_assessed(previous_result), _not_assessed(new_result)
    for claim_id in sorted(old_claims.keys() | new_claims.keys() | old_skipped.keys() | new_skipped.keys()):
        parts.extend(
            _claim_change(
                claim_id,
                old_claims.get(claim_id),
                new_claims.get(claim_id),
                old_skipped.get(claim_id),
                new_skipped.get(claim_id),
            )
        )
    if not parts:
        return "no change in labels or bands"
    return "; ".join(parts)


def _claim_change(
    claim_id: str,
    before: tuple[str, str] | None,
    after: tuple[str, str] | None,
    skipped_before: str | None,
    skipped_after: str | None,
) -> list[str]:
    """One phrase per claim that changed; a claim is either scored (label/band) or not assessed (reason)."""
    was, now = _state(before, skipped_before), _state(after, skipped_after)
    if was == now:
        return []
    if was is None:
        return [f"claim {claim_id} added ({now})"]
    if now is None:
        return [f"claim {claim_id} removed (was {was})"]
    return [f"claim {claim_id} {was} → {now}"]


def _state(scored: tuple[str, str] | None, skipped: str | None) -> str | None:
    if scored is not None:
        return _show(scored)
    return None if skipped is None else f"not assessed: {skipped}"


def _label_band(entry: Any) -> tuple[str, str] | None:
    if not isinstance(entry, Mapping):
        return None
    return str(entry.get("label")), str(entry.get("band"))


def _show(value: tuple[str, str] | None) -> str:
    return "nothing" if value is None else f"{value[0]}/{value[1]}"


def _claims(result: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    claims = result.get("claims")
    if not isinstance(claims, list):
        return {}
    return {
        str(c.get("id")): (str(c.get("label")), str(c.get("band"))) for c in claims if isinstance(c, Mapping)
    }


def _not_assessed(result: Mapping[str, Any]) -> dict[str, str]:
    entries = result.get("not_assessed")
    if not isinstance(entries, list):
        return {}
    return {str(e.get("id")): str(e.get("reason")) for e in entries if isinstance(e, Mapping)}
