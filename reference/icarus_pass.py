"""The Icarus policy's steps for one scoring pass (docs/spec/icarus-policy.md, steps 1-8), and the spec's
number formatting. ``reference.icarus_policy`` runs the claim and result steps on top of these."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

ZERO, ONE = Decimal(0), Decimal(1)
PLACES = Decimal("0.000001")
SIDES = ("support", "refute")


def fmt(value: Decimal) -> str:
    """The spec's fixed-point text: normalised, no exponent, '.0' on an integer."""
    text = format(value.normalize(), "f")
    return text if "." in text else text + ".0"


def fmt6(value: Decimal) -> str:
    """fmt, after rounding half-even to 6 places when the value has more."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -6:
        return fmt(value)
    return fmt(value.quantize(PLACES))


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# --- one pass (steps 1-8) ----------------------------------------------------------------------------------


def _item(item: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    weighting = config["weighting"]
    r, d, c = Decimal(item["R"]), Decimal(item["D"]), Decimal(item["C"])
    v = ONE
    for factor in item["factors"]:  # 1
        if factor["term"] == "V":
            v *= Decimal(factor["value"])
    p = Decimal(weighting["estimated_reputation_discount"]) if item["estimated_reputation"] else ONE  # 2
    stance = item["judged_stance"]  # 3
    if any(f["rule"] == "H23" for f in item["factors"]):
        stance = "refute"
    elif stance != "neutral" and c < Decimal(weighting["neutral_below_confidence"]):
        stance = "neutral"
    weight = ZERO if item["excluded_by"] else r * d * v * c * p  # 4
    return {
        "id": item["evidence_id"],
        "D": d,
        "V": v,
        "C": c,
        "P": p,
        "stance": stance,
        "weight": weight,
        "directional": ZERO if stance == "neutral" else weight,
        "source": item,
    }


def _cluster(cluster: dict[str, Any], items: dict[str, dict[str, Any]], threshold: Decimal) -> dict[str, Any]:
    members = [items[m] for m in cluster["judged_members"]]  # 5
    strongest = min(members, key=lambda m: (-m["directional"], -m["C"], m["id"]))
    weight = strongest["directional"]
    sides = {m["stance"] for m in members if m["directional"] >= threshold}
    stance = "mixed" if set(SIDES) <= sides else strongest["stance"]
    if weight == 0:
        stance = "neutral"
    return {
        "source": cluster,
        "members": members,
        "strongest": strongest,
        "weight": weight,
        "stance": stance,
        "counted": weight >= threshold and stance in SIDES,
    }


def totals(clusters: list[dict[str, Any]]) -> dict[str, Any]:
    s = sum((k["weight"] for k in clusters if k["stance"] == "support"), ZERO)  # 6
    rf = sum((k["weight"] for k in clusters if k["stance"] == "refute"), ZERO)
    counted = [k for k in clusters if k["counted"]]
    tiers = sorted({k["strongest"]["source"]["tier"] for k in counted})
    total = s + rf
    return {
        "S": s,
        "Rf": rf,
        "total": total,
        "polarity": ZERO if total == 0 else (s - rf) / total,
        "icc_support": sum(1 for k in counted if k["stance"] == "support"),
        "icc_refute": sum(1 for k in counted if k["stance"] == "refute"),
        "tiers": tiers,
    }


def decide(t: dict[str, Any], config: dict[str, Any], misrepresented: bool, hops: bool) -> tuple[str, str]:
    """Step 8: (rule, label)."""
    d = config["decision"]
    polarity, total, s, rf = Decimal(d["polarity"]), t["total"], t["S"], t["Rf"]
    each_side = not d.get("conflict_needs_counted_each_side", False) or (
        t["icc_support"] >= 1 and t["icc_refute"] >= 1
    )
    if misrepresented:
        return "rule-1", "misleading"
    low, high = min(s, rf), max(s, rf)
    ratio = Decimal(d["conflict_ratio"])
    if each_side and total >= Decimal(d["minimum_total"]) and low > 0 and low >= ratio * high:
        return "rule-2", "misleading"
    if each_side and abs(s - rf) < polarity * total and total >= Decimal(d["mixed_total"]):
        return "rule-3", "misleading"
    if not hops and total > 0 and s - rf >= polarity * total and t["icc_support"] >= d["minimum_icc"]:
        return "rule-4", "supported"
    if not hops and total > 0 and s - rf <= -polarity * total and t["icc_refute"] >= d["minimum_icc"]:
        return "rule-5", "not_supported"
    return "rule-6", "unverifiable"


def score_pass(recorded: dict[str, Any], config: dict[str, Any], misrepresented: bool) -> dict[str, Any]:
    threshold = Decimal(config["weighting"]["counting_threshold"])
    items = {i["evidence_id"]: _item(i, config) for i in recorded["items"]}
    clusters = [_cluster(k, items, threshold) for k in recorded["clusters"]]
    claim_totals = totals(clusters)
    max_hops = config["decision"]["max_inference_hops"]  # 7
    hops = any(k["counted"] and k["strongest"]["source"]["inference_hops"] > max_hops for k in clusters)
    rule, label = decide(claim_totals, config, misrepresented, hops)
    return {
        "name": recorded["pass"],
        "recorded": recorded,
        "items": items,
        "clusters": clusters,
        "totals": claim_totals,
        "hops": hops,
        "rule": rule,
        "label": label,
    }


def pass_output(p: dict[str, Any]) -> dict[str, Any]:
    t = p["totals"]
    return {
        "pass": p["name"],
        "items": [
            {
                "evidence_id": i["id"],
                "stance": i["stance"],
                "V": fmt6(i["V"]),
                "P": fmt(i["P"]),
                "weight": fmt6(i["weight"]),
            }
            for _, i in sorted(p["items"].items())
        ],
        "clusters": [
            {
                "cluster_id": k["source"]["cluster_id"],
                "weight": fmt6(k["weight"]),
                "stance": k["stance"],
                "strongest": k["strongest"]["id"],
                "counted": k["counted"],
            }
            for k in p["clusters"]
        ],
        "totals": {
            "S": fmt6(t["S"]),
            "Rf": fmt6(t["Rf"]),
            "polarity": fmt6(t["polarity"]),
            "icc_support": t["icc_support"],
            "icc_refute": t["icc_refute"],
            "diversity": len(t["tiers"]),
            "tiers": t["tiers"],
        },
        "too_many_hops": p["hops"],
        "decision": {"rule": p["rule"], "label": p["label"]},
    }
