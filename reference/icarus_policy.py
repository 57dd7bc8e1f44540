"""The Icarus policy (icarus@1.0, 1.1, 1.2), as docs/spec/icarus-policy.md states it.

The constants are read from the spec's own config blocks; the numbered comments follow the spec's steps.
Every computation is exact decimal arithmetic in Python's default decimal context.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from pathlib import Path
from typing import Any

from reference.icarus_pass import SIDES, decide, fmt6, pass_output, score_pass, totals, when
from reference.ledger_models import config_hash, load_configs

SPEC = Path(__file__).resolve().parents[1] / "docs" / "spec" / "icarus-policy.md"
CONTEXT = Context(prec=28, rounding=ROUND_HALF_EVEN)  # Python's default context
TRACE_VERSION = "icarus-trace/2"
ZERO, ONE = Decimal(0), Decimal(1)
DECIDED = ("supported", "misleading", "not_supported")
ADVERSITY = ("not_supported", "misleading", "supported")
BAND_RANK = {"low": 0, "medium": 1, "high": 2}
RETRACTED = "evidence retracted"


def lower(a: str, b: str) -> str:
    return a if BAND_RANK[a] <= BAND_RANK[b] else b


# --- one claim (steps 9-18) --------------------------------------------------------------------------------


def _recorded(claim: dict[str, Any], gate: str, effect: str) -> list[dict[str, Any]]:
    return [g for g in claim["gates"] if g["gate"] == gate and g["effect"] == effect]


def _freshness(
    claim: dict[str, Any], final: dict[str, Any], as_of: datetime, config: dict[str, Any]
) -> Decimal:
    if claim["temporal_scope"] == "historical":  # 12
        return ONE
    dates = [
        when(k["strongest"]["source"]["first_seen"])
        for k in final["clusters"]
        if k["counted"] and k["strongest"]["source"]["first_seen"] is not None
    ]
    if not dates:
        return ZERO
    age = Decimal((as_of - max(dates)).total_seconds()) / Decimal(86400)
    full, zero = Decimal(config["freshness"]["full_days"]), Decimal(config["freshness"]["zero_days"])
    if age <= full:
        return ONE
    if age >= zero:
        return ZERO
    return (zero - age) / (zero - full)


def _band(score: Decimal, config: dict[str, Any]) -> str:
    bands = config["bands"]
    if score >= Decimal(bands["high"]):
        return "high"
    return "medium" if score >= Decimal(bands["medium"]) else "low"


def confidence(final: dict[str, Any], freshness: Decimal, config: dict[str, Any]) -> dict[str, Any]:
    """Step 13: terms, penalties, score and band."""
    w, t = config["confidence"], final["totals"]
    clusters = final["clusters"]
    strongest_c = [k["strongest"]["C"] for k in clusters if k["weight"] > 0 and k["stance"] in SIDES]
    mean_c = sum(strongest_c, ZERO) / len(strongest_c) if strongest_c else ZERO
    icc = Decimal(max(t["icc_support"], t["icc_refute"]))
    terms = {
        "evidence_mass": Decimal(w["evidence_mass"])
        * min(ONE, t["total"] / Decimal(w["evidence_mass_saturation"])),
        "independent_origins": Decimal(w["independent_origins"])
        * min(ONE, icc / Decimal(w["independent_origins_saturation"])),
        "diversity": Decimal(w["diversity"])
        * min(ONE, Decimal(len(t["tiers"])) / Decimal(w["diversity_saturation"])),
        "polarity": Decimal(w["polarity"]) * abs(t["polarity"]),
        "stance_confidence": Decimal(w["stance_confidence"]) * mean_c,
        "freshness": Decimal(w["freshness"]) * freshness,
    }
    p = config["penalties"]
    counted = [k for k in clusters if k["counted"]]
    penalties: dict[str, Decimal] = {}
    if any(k["source"]["origin_uncertain"] for k in counted):
        penalties["uncertain_origin"] = Decimal(p["uncertain_origin"])
    heuristic = sum(1 for k in counted if k["strongest"]["source"]["estimated_reputation"])
    if heuristic:
        penalties["heuristic_reputation"] = min(
            Decimal(p["heuristic_cap"]), Decimal(p["heuristic_cluster"]) * heuristic
        )
    if any(k["source"]["in_cycle"] for k in clusters):
        penalties["circular_reporting"] = Decimal(p["circular_reporting"])
    if any(m["source"]["open_correction"] for k in counted for m in k["members"]):
        penalties["open_correction"] = Decimal(p["open_correction"])
    raw = sum(terms.values(), ZERO) - sum(penalties.values(), ZERO)
    score = min(ONE, max(ZERO, raw))
    return {"terms": terms, "penalties": penalties, "score": score, "band": _band(score, config)}


def _correction_window(final: dict[str, Any], as_of: datetime, config: dict[str, Any]) -> str | None:
    window = timedelta(hours=config["gates"]["correction_window_hours"])  # 16
    for cluster in final["clusters"]:
        if not cluster["counted"]:
            continue
        for member in cluster["members"]:
            item = member["source"]
            if item["open_correction"]:
                return f"{member['id']} has an unresolved correction or expression of concern"
            change = item["last_change"]
            if change is not None and as_of - when(change["at"]) < window:
                return f"{member['id']} was {change['what']} within the correction window"
    return None


def _review_requests(
    final: dict[str, Any], config: dict[str, Any], misrepresented: bool
) -> list[dict[str, str]]:
    threshold = Decimal(config["weighting"]["counting_threshold"])  # 18
    requests = []
    for index, cluster in enumerate(final["clusters"]):
        top = cluster["strongest"]
        if not top["source"]["estimated_reputation"] or cluster["stance"] not in SIDES:
            continue
        top_weight = ONE * top["D"] * top["V"] * top["C"]
        for weight, counted in ((ZERO, False), (top_weight, top_weight >= threshold)):
            variant = {**cluster, "weight": weight, "counted": counted}
            clusters = [*final["clusters"][:index], variant, *final["clusters"][index + 1 :]]
            _, label = decide(totals(clusters), config, misrepresented, final["hops"])
            if label != final["label"]:
                requests.append(
                    {
                        "evidence_id": top["id"],
                        "cluster_id": cluster["source"]["cluster_id"],
                        "reason": "reputation estimate could change the label",
                    }
                )
                break
    return requests


def score_claim(
    claim: dict[str, Any], triggers: list[str], as_of: datetime, config: dict[str, Any]
) -> dict[str, Any]:
    """Every step for one claim of a trace; ``triggers`` are the result's recorded recheck triggers."""
    with localcontext(CONTEXT):
        return _score_claim(claim, triggers, as_of, config)


def _score_claim(
    claim: dict[str, Any], triggers: list[str], as_of: datetime, config: dict[str, Any]
) -> dict[str, Any]:
    misrepresented = bool(claim["self_evidence"]["verified"])
    passes = [score_pass(p, config, misrepresented) for p in claim["passes"]]
    named = {p["name"]: p for p in passes}
    raw = named["raw"]
    anchored = named.get("anchored", raw)
    final = named.get("final", anchored)
    g0 = _recorded(claim, "G0", "unverifiable")
    g2 = _recorded(claim, "G2", "unverifiable")
    gates: list[dict[str, Any]] = []
    label = final["label"]  # 9
    if g0:
        gates += g0[:1]
        label = "unverifiable"
    elif g2:
        gates += g2[:1]
        label = "unverifiable"
    elif anchored["label"] != raw["label"]:
        message = (
            "the label does not hold without unanchored evidence"
            if raw["label"] in DECIDED
            else "a label reached only by dropping unanchored evidence is not published"
        )
        gates.append({"gate": "G3", "effect": "unverifiable", "message": message})
        label = "unverifiable"
    elif final["label"] != anchored["label"]:
        if anchored["label"] in ("supported", "not_supported"):
            gates.append({"gate": "G4", "effect": "unverifiable", "message": RETRACTED})
            label = "unverifiable"
        else:
            gates.append({"gate": "G4", "effect": "recomputed", "message": RETRACTED})
    for evidence_id, item in sorted(raw["items"].items()):  # 10
        if not item["source"]["anchored"]:
            reason = next(
                e["reason"]
                for e in anchored["items"][evidence_id]["source"]["excluded_by"]
                if e["rule"] == "G3"
            )
            gates.append({"gate": "G3", "effect": "dropped", "message": f"{evidence_id} {reason}"})
    gates += _recorded(claim, "G3", "rejected_draft")
    retracted = any("G4" in i["source"]["flags"] for i in raw["items"].values())
    if retracted and not any(g["gate"] == "G4" for g in gates):
        gates.append(
            {
                "gate": "G4",
                "effect": "recomputed",
                "message": "retracted evidence set to weight 0 and the claim recomputed",
            }
        )
    scored_label = label  # 11
    freshness = _freshness(claim, final, as_of, config)
    conf = confidence(final, freshness, config)  # 13
    band = "low" if any(g["effect"] == "unverifiable" for g in gates) else conf["band"]  # 14
    recheck: list[str] = []
    t = final["totals"]
    leading_icc = t["icc_support"] if t["S"] >= t["Rf"] else t["icc_refute"]
    if not g0 and final["rule"] == "rule-6" and leading_icc == 1 and label == "unverifiable":  # 15
        gates.append({"gate": "G1", "effect": "recheck", "message": "single source, developing"})
        recheck.append("G1")
    window = _correction_window(final, as_of, config)
    if window is not None:
        gates.append({"gate": "G5", "effect": "band_cap", "message": f"correction window open: {window}"})
        band = lower(band, "medium")
        recheck.append("G5")
    if "G6" in triggers:  # 17
        recheck.append("G6")
        held, capped = _recorded(claim, "G6", "unverifiable"), _recorded(claim, "G6", "band_cap")
        if held:
            gates += held[:1]
            label, band = "unverifiable", "low"
        elif capped:
            gates += capped[:1]
            band = lower(band, "medium")
    elif claim["temporal_scope"] == "ongoing":
        recheck.append("ongoing")
    live_queue = "H4.review_queue" not in config["inert"]
    requests = _review_requests(final, config, misrepresented) if live_queue and not g0 else []
    return {
        "claim_id": claim["claim_id"],
        "passes": [pass_output(p) for p in passes],
        "confidence": {
            "terms": {k: fmt6(v) for k, v in conf["terms"].items()},
            "penalties": {k: fmt6(v) for k, v in conf["penalties"].items()},
            "score": fmt6(conf["score"]),
            "band": conf["band"],
            "temporal_freshness": fmt6(freshness),
        },
        "gates": gates,
        "published": {"label": label, "band": band},
        "scored_label": scored_label,
        "recheck_triggers": recheck,
        "review_requests": requests,
    }


# --- the result (steps 19-20) ------------------------------------------------------------------------------


def overall(claims: list[dict[str, Any]]) -> dict[str, str]:
    labels = [c["published"]["label"] for c in claims]
    label = next((a for a in ADVERSITY if a in labels), "unverifiable")
    carrying = [c["published"]["band"] for c in claims if c["published"]["label"] == label]
    band = "low"
    if carrying:
        band = carrying[0]
        for other in carrying[1:]:
            band = lower(band, other)
    return {"label": label, "band": band}


def score(data: dict[str, Any], ref: str, spec: Path = SPEC) -> dict[str, Any]:
    """Recompute a result (``icarus score --json`` output or a stored version's record) under ``ref``."""
    data = unwrap(data)
    configs = load_configs(spec)
    if ref not in configs:
        raise ValueError(f"unknown Icarus policy {ref!r}; the spec states {', '.join(sorted(configs))}")
    scored_under = data.get("policy")
    if scored_under is not None and scored_under != ref:
        # The trace's factors and exclusions are the rules' findings under the record's own policy.
        raise ValueError(f"the record was scored under {scored_under}; it recomputes only under that policy")
    return recompute(data, configs[ref], ref)


def unwrap(data: dict[str, Any]) -> dict[str, Any]:
    """The result itself: a stored version as the API serves it wraps it in ``result``."""
    inner = data.get("result")
    return inner if "trace" not in data and isinstance(inner, dict) else data


def recompute(data: dict[str, Any], config: dict[str, Any], ref: str) -> dict[str, Any]:
    """Every step under one resolved config (as a spec config block holds it)."""
    trace = data["trace"]
    if trace.get("trace_version") != TRACE_VERSION:
        raise ValueError(
            f"trace version {trace.get('trace_version')!r}: the spec recomputes {TRACE_VERSION} records"
        )
    as_of = when(trace["as_of"])
    published = {c["id"]: c for c in data.get("claims", [])}
    claims = [
        score_claim(c, published.get(c["claim_id"], {}).get("recheck", {}).get("triggers", []), as_of, config)
        for c in trace["claims"]
    ]
    result = {"policy": ref, "config_hash": config_hash(config), "overall": overall(claims), "claims": claims}
    if data.get("blocked"):  # 20
        result["overall"] = {"label": "unverifiable", "band": "low"}
        for claim in claims:
            claim["published"] = {"label": "unverifiable", "band": "low"}
        result["blocked"] = data["blocked"]
    return result


def published_view(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The engine's record projected onto the fields the reference recomputes, claim by claim."""
    data = unwrap(data)
    entries = {c["id"]: c for c in data.get("claims", [])}
    view = []
    for claim in data["trace"]["claims"]:
        entry = entries.get(claim["claim_id"], {})
        view.append(
            {
                "claim_id": claim["claim_id"],
                "passes": [
                    {
                        "pass": p["pass"],
                        "items": [
                            {k: i[k] for k in ("evidence_id", "stance", "V", "P", "weight")}
                            for i in p["items"]
                        ],
                        "clusters": [
                            {k: c[k] for k in ("cluster_id", "weight", "stance", "strongest", "counted")}
                            for c in p["clusters"]
                        ],
                        "totals": p["totals"],
                        "too_many_hops": p["too_many_hops"],
                        "decision": p["decision"],
                    }
                    for p in claim["passes"]
                ],
                "confidence": claim["confidence"],
                "gates": claim["gates"],
                "published": {"label": entry.get("label"), "band": entry.get("band")},
                "scored_label": entry.get("scored_label"),
                "recheck_triggers": entry.get("recheck", {}).get("triggers"),
                "review_requests": entry.get("review_requests"),
            }
        )
    return view


def differing(data: dict[str, Any], result: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Claim by claim (then the overall result), the recomputed fields that differ from the record."""
    data = unwrap(data)
    rows = []
    for ours, theirs in zip(result["claims"], published_view(data), strict=True):
        rows.append((ours["claim_id"], sorted(k for k in ours if ours[k] != theirs[k])))
    recorded = {"label": data["overall"]["label"], "band": data["overall"]["band"]}
    rows.append(("overall", [] if result["overall"] == recorded else ["overall"]))
    return rows
