"""EvidenceVerify's status rules, as docs/spec/evidenceverify.md states them, from one claim's inputs.

The config and the constant tables are read from the spec's own blocks; the steps below follow the spec's
numbered steps. Clustering (each reading's key) and judging (each answer) are inputs.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parents[1] / "docs" / "spec" / "evidenceverify.md"
CONFIG_BLOCK = re.compile(r"<!-- config: (\S+) (sha256:[0-9a-f]{64}) -->\n```json\n(.*?)\n```", re.S)
CONSTANT_BLOCK = re.compile(r"<!-- constant: (\S+) -->\n```json\n(.*?)\n```", re.S)
NO_CONFIRMATION = "no independent confirmation found"
OUTPUTS = (
    "model",
    "config_hash",
    "claim_id",
    "previous_status",
    "recommended_status",
    "status",
    "confidence_level",
    "verification_notes",
    "critical",
    "criticality_by",
    "evidence_missing",
    "source_unreachable",
    "independent_sources",
    "disagreement",
    "twitter",
    "independent_search",
)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def config_hash(config: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical(config).encode("utf-8")).hexdigest()


def load_spec(spec: Path = SPEC) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The configs (each checked against its stated hash) and the constant tables of the spec."""
    page = spec.read_text(encoding="utf-8")
    configs = {}
    for ref, digest, body in CONFIG_BLOCK.findall(page):
        config = json.loads(body)
        if config_hash(config) != digest:
            raise ValueError(f"{ref}: the spec's config block hashes to {config_hash(config)}, not {digest}")
        configs[ref] = config
    constants = {name: json.loads(body) for name, body in CONSTANT_BLOCK.findall(page)}
    return configs, constants


@dataclass(frozen=True)
class Reading:
    label: str
    key: str
    stance: str
    non_social: bool
    reputable: bool
    authoritative: bool


def read_stance(answer: dict[str, Any] | None, threshold: Decimal) -> str:
    if answer is None or answer["failed"] or Decimal(answer["confidence"]) < threshold:
        return "neutral"
    return str(answer["stance"])


def verify(doc: dict[str, Any], config: dict[str, Any], constants: dict[str, Any]) -> dict[str, Any]:
    claim, notes = doc["claim"], []
    records = {r["evidence_id"]: r for r in doc["records"]}
    cited = claim["evidence_ids"]
    # 1. Resolve.
    missing = [i for i in cited if i not in records]
    resolved = [records[i] for i in cited if i in records]
    if missing:
        notes.append("evidence_missing: " + ", ".join(missing) + " not in the evidence store")
    if not cited:
        notes.append("the claim cites no evidence")
    unreachable = [r["evidence_id"] for r in resolved if r["source_reachable"] is False]
    if unreachable:
        notes.append("source_unreachable: " + ", ".join(unreachable) + " (kept; not invalidated)")
    # 2. Freshness.
    fact_claim = claim["evidence_track"] == "fact"
    expired = [
        r["evidence_id"]
        for r in resolved
        if fact_claim and r["evidence_track"] == "fact" and r["freshness_status"] == "stale"
    ]
    usable = [r for r in resolved if r["evidence_id"] not in expired]
    if expired:
        notes.append("expired fact-track evidence not counted: " + ", ".join(expired))
    # 3. Readings of the records.
    threshold = Decimal(config["stance_confidence"])
    readings = []
    for r in usable:
        social = r["source_type"] == "twitter" or r["credibility_tier"] not in config["non_social_tiers"]
        readings.append(
            Reading(
                label=f"{r['evidence_id']} ({r['publisher']})",
                key=r["key"],
                stance=read_stance(r["answer"], threshold),
                non_social=not social,
                reputable=r["credibility_tier"] in config["reputable_tiers"],
                authoritative=r["credibility_tier"] == "tier1_authoritative",
            )
        )
    # 4. Independent search.
    search = doc["search"]
    if search is None:
        state = "not run"
    elif not search["ran"]:
        state = f"not run: {search['detail']}" if search["detail"] else "not run"
        notes.append(f"independent search {state}; this is not evidence against the claim")
    else:
        state = "ran"
        hits = [
            Reading(
                label=f"search: {hit['name']}",
                key=hit["key"],
                stance=read_stance(hit["answer"], threshold),
                non_social=hit["host"] not in constants["social_hosts"],
                reputable=False,
                authoritative=False,
            )
            for hit in search["hits"]
        ]
        readings += hits
        confirming = sorted({h.label for h in hits if h.stance == "support" and h.non_social})
        denying = sorted({h.label for h in hits if h.stance == "refute" and h.non_social})
        if confirming:
            notes.append("independent search confirms: " + ", ".join(confirming))
        if denying:
            notes.append("independent search contradicts: " + ", ".join(denying))
        if not confirming and not denying:
            notes.append(NO_CONFIRMATION)
    # 5. Agreement.
    non_social = [r for r in readings if r.non_social]
    supporting = [r for r in non_social if r.stance == "support"]
    refuting = [r for r in non_social if r.stance == "refute"]
    sources = sorted({r.key for r in supporting})
    # 6. Twitter.
    twitter, caps, contradicted_by = [], [], []
    strong = config["strong_independent_sources"]
    for r in usable:
        if r["source_type"] != "twitter":
            continue
        if refuting:
            corroboration = "contradicted"
            contradicted_by += [x.label for x in refuting]
        elif supporting:
            corroboration = "corroborated"
        else:
            corroboration = "uncorroborated"
        twitter.append(
            {
                "evidence_id": r["evidence_id"],
                "verification_priority": r["verification_priority"],
                "corroboration_status": corroboration,
            }
        )
        unreliable = r["social_credibility_flag"] == "likely_unreliable"
        if corroboration == "uncorroborated":
            caps.append(
                f"{r['evidence_id']}: "
                + ("flagged (suspected misinformation)" if unreliable else "twitter-only, uncorroborated")
            )
        elif unreliable and len(sources) < strong:
            caps.append(
                f"{r['evidence_id']}: flagged likely unreliable; fewer than {strong} independent sources confirm"
            )
    if contradicted_by:
        notes.append("twitter claim contradicted by " + ", ".join(sorted(set(contradicted_by))))
    # 7. Recommendation.
    disagreement = []
    if refuting:
        disagreement = [f"{r.label} supports the claim" for r in supporting] + [
            f"{r.label} contradicts the claim" for r in refuting
        ]
    critical = doc["criticality"]["critical"]
    needed = config["min_independent_sources_critical"]
    reputable_sources = {r.key for r in supporting if r.reputable}
    if refuting:
        recommended = "contested"
        extent = "partially" if supporting else "fully, against the claim"
        notes.append(f"sources conflict: {extent}; " + "; ".join(disagreement))
    elif fact_claim and expired and not usable:
        recommended = "stale"
        notes.append("all of the claim's fact-track evidence has expired")
    elif (critical and len(sources) >= needed) or (
        not critical and len(reputable_sources) >= config["min_sources_peripheral"]
    ):
        recommended = "verified"
    else:
        recommended = "unverified"
        if not readings:
            notes.append("no usable evidence")
        elif not non_social:
            notes.append("only social sources")
        elif critical:
            notes.append(
                f"{len(sources)} independent non-social source(s) agree; a critical claim needs {needed}"
            )
        else:
            notes.append("no reputable source agrees")
    # 8. Caps.
    if recommended == "verified" and (caps or missing):
        recommended = "unverified"
        notes.append("capped at unverified: " + "; ".join(caps + (["evidence_missing"] if missing else [])))
    else:
        notes += caps
    # 9. Transition.
    current = claim["status"]
    allowed = recommended == current or recommended in constants["allowed_transitions"][current]
    status = recommended if allowed else current
    if not allowed:
        notes.append(
            f"the evidence points to {recommended}, but {current} \u2192 {recommended} is not an allowed "
            f"transition; the status stays {current}"
        )
    if recommended == "verified" and status == "verified":
        notes.append(f"verified by {len(sources)} independent source(s): " + ", ".join(sources))
    # 10. Confidence.
    level = "low"
    if allowed and status == "verified":
        many = len(sources) >= config["high_confidence_sources"]
        backed = len(sources) >= needed and any(r.authoritative for r in supporting)
        level = "high" if many or backed else "medium"
    elif allowed and status == "contested":
        both = any(r.reputable for r in supporting) and any(r.reputable for r in refuting)
        level = "medium" if both else "low"
    if allowed and (missing or unreachable):
        level = {"high": "medium", "medium": "low", "low": "low"}[level]
    # 11. Search note.
    reasons = ["independent search requested"] if doc["independent_search_requested"] else []
    for i in cited:
        record = records.get(i)
        if (
            record
            and record["source_type"] == "twitter"
            and record["verification_priority"] in ("high", "medium")
        ):
            reasons.append(f"{i}: twitter item of {record['verification_priority']} verification priority")
    if reasons:
        notes.insert(0, "independent search: " + "; ".join(reasons))
    return {
        "model": f"{config['name']}@{config['version']}",
        "config_hash": config_hash(config),
        "claim_id": claim["claim_id"],
        "previous_status": current,
        "recommended_status": recommended,
        "status": status,
        "confidence_level": level,
        "verification_notes": notes,
        "critical": critical,
        "criticality_by": doc["criticality"]["judge"],
        "evidence_missing": missing,
        "source_unreachable": unreachable,
        "independent_sources": sources,
        "disagreement": disagreement,
        "twitter": twitter,
        "independent_search": state,
    }


def documents(data: Any) -> list[dict[str, Any]]:
    """The input documents a file holds: a model result's ``inputs``, a list of them, or one."""
    if isinstance(data, list):
        return data
    if "inputs" in data:
        docs: list[dict[str, Any]] = data["inputs"]
        return docs
    if "records" in data and "claim" in data:
        return [data]
    raise ValueError(
        "the file holds no EvidenceVerify inputs: give a result of icarus score --model evidenceverify@VER "
        "--json (its 'inputs'), or an input document as docs/spec/evidenceverify.md states it"
    )


def score(data: Any, ref: str | None = None) -> dict[str, Any]:
    configs, constants = load_spec()
    version = ref or (data.get("model") if isinstance(data, dict) else None) or sorted(configs)[-1]
    if version not in configs:
        raise KeyError(
            f"unknown EvidenceVerify version {version!r}; the spec has {', '.join(sorted(configs))}"
        )
    claims = [verify(doc, configs[version], constants) for doc in documents(data)]
    return {"model": version, "config_hash": config_hash(configs[version]), "claims": claims}


def differing(data: Any, result: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Per published claim result: its claim and the output fields that differ (none: it agrees)."""
    if not (isinstance(data, dict) and "claims" in data):
        raise ValueError("check needs a published result with its 'claims' beside its 'inputs'")
    rows = []
    for published, mine in zip(data["claims"], result["claims"], strict=True):
        rows.append((published["claim_id"], [k for k in OUTPUTS if published.get(k) != mine.get(k)]))
    return rows
