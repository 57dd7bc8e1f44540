"""what_changed: the one-line summary stored with each version."""

from __future__ import annotations

from typing import Any

from icarus.store import what_changed


def result(overall: tuple[str, str], claims: dict[str, tuple[str, str]], **extra: Any) -> dict[str, Any]:
    return {
        "policy": extra.pop("policy", "icarus@1.1"),
        "overall": {"label": overall[0], "band": overall[1]},
        "claims": [{"id": cid, "label": label, "band": band} for cid, (label, band) in claims.items()],
        "not_assessed": [{"id": cid, "reason": reason} for cid, reason in extra.pop("skipped", {}).items()],
    }


BASE = result(("supported", "medium"), {"c1": ("supported", "medium"), "c2": ("supported", "high")})


def test_first_version() -> None:
    assert what_changed(None, BASE) == "first version"


def test_nothing_visible_changed() -> None:
    assert what_changed(
        BASE, result(("supported", "medium"), {"c2": ("supported", "high"), "c1": ("supported", "medium")})
    ) == ("no change in labels or bands")


def test_label_band_and_claim_changes() -> None:
    new = result(
        ("not_supported", "high"),
        {"c1": ("not_supported", "high"), "c3": ("unverifiable", "low")},
        policy="icarus@1.2",
        skipped={"c2": "budget"},
    )
    assert what_changed(BASE, new) == (
        "policy icarus@1.1 → icarus@1.2; overall supported/medium → not_supported/high; "
        "claim c1 supported/medium → not_supported/high; claim c2 supported/high → not assessed: budget; "
        "claim c3 added (unverifiable/low)"
    )


def test_removed_claim() -> None:
    new = result(("supported", "medium"), {"c1": ("supported", "medium")})
    assert what_changed(BASE, new) == "claim c2 removed (was supported/high)"
