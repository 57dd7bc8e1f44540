"""The ledger models (ledger-strict and ledger-default), as docs/spec/ledger-models.md states them.

The constants are read from the spec's own config blocks; the steps below follow the spec's numbered
steps. Every computation is exact decimal arithmetic in one fixed context.
"""

from __future__ import annotations

import hashlib
import json
import re
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parents[1] / "docs" / "spec" / "ledger-models.md"
CONTEXT = Context(prec=34, rounding=ROUND_HALF_EVEN)
CONFIG_BLOCK = re.compile(r"<!-- config: (\S+) (sha256:[0-9a-f]{64}) -->\n```json\n(.*?)\n```", re.S)
PRIOR_PLACES = 2
ZERO, ONE = Decimal(0), Decimal(1)
PRIMARY = "primary_source_reviewed"
INDEPENDENCE = "independence_reviewed"


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def load_configs(spec: Path = SPEC) -> dict[str, dict[str, Any]]:
    """Every model's config from the spec, each checked against the hash the spec states for it."""
    configs = {}
    for ref, digest, body in CONFIG_BLOCK.findall(spec.read_text(encoding="utf-8")):
        config = json.loads(body)
        actual = "sha256:" + hashlib.sha256(canonical(config).encode("utf-8")).hexdigest()
        if actual != digest:
            raise ValueError(f"{ref}: the spec's config block hashes to {actual}, not {digest}")
        configs[ref] = config
    return configs


def config_hash(config: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical(config).encode("utf-8")).hexdigest()


def round_even(value: Decimal, places: int) -> Decimal:
    rounded = value.quantize(ONE.scaleb(-places), rounding=ROUND_HALF_EVEN)
    return abs(rounded) if rounded.is_zero() else rounded


def fixed(value: Decimal, places: int) -> str:
    return format(round_even(value, places), "f")


def near_boundary(value: Decimal, places: int, guard: Decimal) -> bool:
    step = ONE.scaleb(-places)
    return abs(abs(value % step) - step / 2) <= guard


def logistic(x: Decimal) -> Decimal:
    return ONE / (ONE + (-x).exp())


def score_claim(claim: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    with localcontext(CONTEXT):
        return _score(claim, config)


def _weigh(link: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """Spec step 2: the factors and the magnitude of one link."""
    steps = link["interpretive_steps"]
    factors = {
        "relevance": Decimal(config["relevance_weight"][link["relevance"]]),
        "observation": Decimal(config["observation_weight"][link["observation"]]),
        "interpretation": max(ZERO, ONE - Decimal(config["interpretive_step_penalty"]) * steps),
        "authenticity": Decimal(config["authenticity_factor"][link["authenticity"]]),
        "extraction": Decimal(config["extraction_factor"][link["extraction"]]),
    }
    if "provenance_factor" in config:
        factors["provenance"] = Decimal(config["provenance_factor"][link["provenance"]])
    if "edition_factor" in config:
        factors["edition"] = Decimal(config["edition_factor"][link["edition"]])
    product = ONE
    for value in factors.values():
        product *= value
    if link.get("group"):
        key = link["group"]
    elif config["independence"]["fallback"] == "origin" and link.get("origin"):
        key = "origin:" + link["origin"]
    else:
        key = "solo:" + link["evidence"]
    return {
        "link": link,
        "factors": factors,
        "magnitude": round_even(product, config["rounding"]["weights"]),
        "sign": config["direction_sign"][link["direction"]],
        "key": key,
        "other_edition": "edition_factor" in config and link["edition"] == "OTHER",
    }


def _link_trace(w: dict[str, Any], config: dict[str, Any], effective: Decimal | None) -> dict[str, Any]:
    link, places = w["link"], config["rounding"]["weights"]
    entry: dict[str, Any] = {
        "link": link["link"],
        "evidence": link["evidence"],
        "direction": link["direction"],
        "group": link.get("group"),
        "group_key": w["key"],
    }
    for name in ("relevance", "observation", "interpretive_steps", "authenticity", "extraction"):
        entry[name] = link[name]
    entry["source_kind"] = link["source_kind"]
    entry["recorded_by"] = link.get("recorded_by")
    if "provenance_factor" in config:
        entry["provenance"] = link["provenance"]
    if "edition_factor" in config:
        entry["edition"] = link["edition"]
    entry["factors"] = {name: str(value) for name, value in w["factors"].items()}
    entry["magnitude"] = fixed(w["magnitude"], places)
    entry["effective_weight"] = None if effective is None else fixed(effective, places)
    return entry


def _review(
    claim: dict[str, Any], config: dict[str, Any], counted: list[dict[str, Any]]
) -> tuple[dict[str, Any], str]:
    """Spec step 7: the checklist and the coverage."""
    author = claim.get("recorded_by")
    checklist: dict[str, Any] = {}
    for check in config["review_checklist"]:
        if check == PRIMARY:
            done = [
                (w["link"]["link"], w["link"].get("recorded_by"))
                for w in counted
                if w["link"]["source_kind"] in config["primary_source_kinds"]
            ]
        else:
            done = sorted(
                (c["check_id"], c["performed_by"])
                for c in claim.get("review_checks", [])
                if c["check"] == check
            )
        counts = [i for i, who in done if author is None or who != author]
        shown = [i for i, who in done if author is not None and who == author]
        entry: dict[str, Any] = {"ok": bool(counts), "by": counts, "by_author": shown}
        if check == INDEPENDENCE:
            grouped = bool(counted) and all(w["link"].get("group") is not None for w in counted)
            entry["all_counted_grouped"] = grouped
            entry["ok"] = entry["ok"] or grouped
        checklist[check] = entry
    total = len(config["review_checklist"])
    coverage = Decimal(sum(e["ok"] for e in checklist.values())) / total if total else ZERO
    return checklist, fixed(coverage, config["rounding"]["coverage"])


def _unscored(state: str, reason: str | None) -> dict[str, Any]:
    nothing = ("prior", "prior_log_odds", "evidence_sum", "posterior_log_odds", "probability")
    return {
        "not_applicable_reason": reason,
        **dict.fromkeys(nothing),
        "rounding_boundary": False,
        "variants": None,
        "stability": None,
        "stability_capped_by": None,
        "assessment_state": state,
        "support_groups": 0,
        "contradict_groups": 0,
        "contested": False,
    }


def _score(claim: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    rounding = config["rounding"]
    weighed = [_weigh(link, config) for link in sorted(claim["links"], key=lambda link: link["link"])]
    claim_type = claim["claim_type"]
    model_dependent = claim_type in config["model_dependent_types"]
    head = {
        "claim": claim["claim"],
        "claim_type": claim_type,
        "truth_evaluable": claim.get("not_evaluable") is None,
        "model_dependent": model_dependent,
        "independence_unreviewed": len(
            {w["link"]["evidence"] for w in weighed if w["link"].get("group") is None}
        ),
    }
    # Step 1: applicability.
    reason = claim.get("not_evaluable")
    if reason is None and claim_type not in config["scored_types"]:
        reason = "NOT_SCORED_BY_MODEL"
    if reason is not None:
        checklist, coverage = _review(claim, config, [])
        links = [{**_link_trace(w, config, None), "reason": "not_applicable"} for w in weighed]
        return {
            **head,
            **_unscored("NOT_APPLICABLE", reason),
            "links": links,
            "review_checklist": checklist,
            "review_coverage": coverage,
        }
    # Step 3: independence.
    kept: dict[tuple[str, int], dict[str, Any]] = {}
    for w in weighed:
        if w["sign"] == 0:
            continue
        rank = (-w["magnitude"], w["link"]["evidence"], w["link"]["link"])
        current = kept.get((w["key"], w["sign"]))
        if current is None or rank < (
            -current["magnitude"],
            current["link"]["evidence"],
            current["link"]["link"],
        ):
            kept[(w["key"], w["sign"])] = w
    kept_ids = {w["link"]["link"] for w in kept.values()}
    links = []
    for w in weighed:
        if w["sign"] == 0:
            links.append({**_link_trace(w, config, ZERO), "reason": "non_directional"})
        elif w["other_edition"]:
            links.append({**_link_trace(w, config, ZERO), "reason": "other_edition"})
        elif w["link"]["link"] in kept_ids:
            links.append(_link_trace(w, config, w["magnitude"]))
        else:
            keeper = kept[(w["key"], w["sign"])]["link"]["link"]
            links.append(
                {**_link_trace(w, config, ZERO), "reason": "dependent_strongest_only", "kept": keeper}
            )
    counted = [w for w in kept.values() if w["magnitude"] > 0]
    support = sum(1 for w in counted if w["sign"] > 0)
    contradict = sum(1 for w in counted if w["sign"] < 0)
    checklist, coverage = _review(claim, config, counted)
    review = {"review_checklist": checklist, "review_coverage": coverage}
    if not counted:
        return {**head, **_unscored("INSUFFICIENT_EVIDENCE", None), "links": links, **review}
    # Step 4: combine.
    prior = Decimal(config["prior"][claim_type])
    prior_lo = round_even((prior / (ONE - prior)).ln(), rounding["weights"])
    total = ZERO
    for w in sorted(kept.values(), key=lambda w: w["link"]["link"]):
        total += w["sign"] * w["magnitude"]
    evidence_sum = round_even(total, rounding["weights"])
    posterior = prior_lo + evidence_sum
    raw = logistic(posterior)
    probability = round_even(raw, rounding["probability"])
    # Step 5: state.
    t = {name: Decimal(value) for name, value in config["state_thresholds"].items()}
    if probability >= t["SUPPORTED"] and support:
        state = "SUPPORTED"
    elif probability >= t["LEANS_SUPPORTED"] and support:
        state = "LEANS_SUPPORTED"
    elif probability <= t["CONTRADICTED"] and contradict:
        state = "CONTRADICTED"
    elif probability <= t["LEANS_CONTRADICTED"] and contradict:
        state = "LEANS_CONTRADICTED"
    else:
        state = "UNRESOLVED"
    # Step 6: stability.
    rules = config["stability"]
    variant_raw = {
        name: logistic(prior_lo + evidence_sum * Decimal(rules["variants"][name]))
        for name in ("conservative", "permissive")
    }
    variant_p = {name: round_even(value, rounding["probability"]) for name, value in variant_raw.items()}
    values = [probability, *variant_p.values()]
    spread = max(values) - min(values)
    if spread <= Decimal(rules["high_max_spread"]):
        level = "HIGH"
    elif spread <= Decimal(rules["medium_max_spread"]):
        level = "MEDIUM"
    else:
        level = "LOW"
    capped_by = None
    if support + contradict < rules["min_groups_for_high"] and level == "HIGH":
        level, capped_by = "MEDIUM", "fewer_groups_than_min_groups_for_high"
    if model_dependent and level != "LOW":
        level, capped_by = "LOW", "model_dependent_type"
    guard = Decimal(rounding["boundary_guard"])
    boundary = any(
        near_boundary(value, rounding["probability"], guard) for value in (raw, *variant_raw.values())
    )
    return {
        **head,
        "not_applicable_reason": None,
        "prior": fixed(prior, PRIOR_PLACES),
        "prior_log_odds": fixed(prior_lo, rounding["weights"]),
        "links": links,
        "evidence_sum": fixed(evidence_sum, rounding["weights"]),
        "posterior_log_odds": fixed(posterior, rounding["weights"]),
        "probability": fixed(probability, rounding["probability"]),
        "rounding_boundary": boundary,
        "variants": {
            **{name: fixed(p, rounding["probability"]) for name, p in variant_p.items()},
            "spread": fixed(spread, rounding["probability"]),
        },
        "stability": level,
        "stability_capped_by": capped_by,
        "assessment_state": state,
        "support_groups": support,
        "contradict_groups": contradict,
        "contested": support > 0 and contradict > 0,
        **review,
    }


LINK_DEFAULTS = {
    "authenticity": "UNVERIFIED",
    "extraction": "UNVERIFIED",
    "source_kind": "OTHER",
    "group": None,
    "origin": None,
    "provenance": "INDEPENDENT",
    "edition": "NAMED",
    "recorded_by": None,
}


def claims_from_trace(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Spec section "Reading a published trace": each claim's inputs as its trace records them."""
    claims = []
    for entry in trace["claims"]:
        links = []
        for link in entry["links"]:
            origin = None
            if link["group"] is None and link["group_key"].startswith("origin:"):
                origin = link["group_key"][len("origin:") :]
            fields = {name: link.get(name, default) for name, default in LINK_DEFAULTS.items()}
            links.append(
                {
                    **fields,
                    "origin": origin,
                    "link": link["link"],
                    "evidence": link["evidence"],
                    "direction": link["direction"],
                    "relevance": link["relevance"],
                    "observation": link["observation"],
                    "interpretive_steps": link["interpretive_steps"],
                }
            )
        checklist = entry["review_checklist"]
        primary = checklist.get(PRIMARY, {"by_author": []})
        authors = {link["recorded_by"] for link in links if link["link"] in primary["by_author"]}
        author = next(iter(authors)) if authors else None
        checks = []
        for name, item in checklist.items():
            if name == PRIMARY:
                continue
            checks += [{"check_id": i, "check": name, "performed_by": "reviewer"} for i in item["by"]]
            checks += [{"check_id": i, "check": name, "performed_by": "author"} for i in item["by_author"]]
        if author is None and any(c["performed_by"] == "author" for c in checks):
            author = "author"
        else:
            checks = [{**c, "performed_by": author} if c["performed_by"] == "author" else c for c in checks]
        if author == "reviewer":
            raise ValueError("the claim's author is recorded under the name the reader gives other reviewers")
        claims.append(
            {
                "claim": entry["claim"],
                "claim_type": entry["claim_type"],
                "not_evaluable": None if entry["truth_evaluable"] else entry["not_applicable_reason"],
                "recorded_by": author,
                "review_checks": checks,
                "links": links,
            }
        )
    return claims


def claims_from_input(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The claim-input form: claims with their links, each link's omitted fields at their defaults."""
    return [
        {
            "not_evaluable": None,
            "recorded_by": None,
            "review_checks": [],
            **claim,
            "links": [{**LINK_DEFAULTS, **link} for link in claim["links"]],
        }
        for claim in data["claims"]
    ]


def score(data: dict[str, Any], ref: str, spec: Path = SPEC) -> dict[str, Any]:
    """Score a published result, its trace, or the claim-input form under the model ``ref``."""
    configs = load_configs(spec)
    if ref not in configs:
        raise KeyError(f"unknown ledger model {ref!r}; the spec states {', '.join(sorted(configs))}")
    config = configs[ref]
    trace = data.get("trace", data)
    claims = claims_from_trace(trace) if "trace_version" in trace else claims_from_input(data)
    digest = config_hash(config)
    return {
        "model": ref,
        "config_hash": digest,
        "claims": [{"model": ref, "config_hash": digest, **score_claim(c, config)} for c in claims],
    }
