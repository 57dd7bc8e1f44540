"""Random Icarus ledgers for comparing the engine with the reference (reference/icarus_policy.py).

``random_ledger(pick)`` draws a small ledger (one or two claims, up to six items) with every choice made by
``pick`` (random.choice, or a hypothesis draw): copies and citations that make clusters and cycles,
retractions of members and of elected origins, estimated reputations, neutral and sub-threshold stances,
out-of-scope and excluded items, unanchored excerpts, corrections inside and outside G5's window, live
coverage and recent events for G6, ineligible claims for G0, misread image text for G2, and drafts for G3
and G7. ``boundary_policy`` then moves one threshold of the policy onto the first claim's own value, or
1e-6 either side of it. ``differences`` scores the ledger under both and lists the fields that differ.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from rich.progress import Progress

from icarus.ledger import Ledger
from icarus.scoring.icarus.config import POLICY_FILES, PolicyConfig, load_policy
from icarus.scoring.icarus.engine import score_ledger
from reference import icarus_policy

Pick = Callable[[Sequence[Any]], Any]
AS_OF = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
POST = "Container traffic at Halden harbor fell 12% in October, the port authority said."
IMAGE = "Inflation in Halden hit 1.8% last year"
WORDS = "harbor council budget transit vote mayor school bridge report annual office river".split()
NEAR = (Decimal("-0.000001"), Decimal(0), Decimal("0.000001"))
SCORES = ("1.0", "0.95", "0.9", "0.85", "0.75", "0.6", "0.5", "0.3", "0.2")
CONFIDENCES = ("1.0", "0.9", "0.9", "0.75", "0.6", "0.5", "0.499999", "0.3")
TIERS = ("primary_official", "wire", "fact_checker", "national_news", "regional_news", "scholarly", "other")
CLASSES = ("news",) * 6 + ("wire", "primary_official", "scholarly", "aggregator", "preprint_server")
DIRECTNESS = ("original_reporting",) * 3 + ("primary_document", "secondary_named", "release", "out_of_scope")
AGES_HOURS = (1, 30, 24 * 5, 24 * 30, 24 * 200, 24 * 400)
FLAGS = (
    "retracted",
    "expression_of_concern_open",
    "corrected",
    "correction_pending",
    "preprint",
    "anonymous_sourcing",
    "conflict_of_interest",
    "live_coverage",
    "self_citation",
)


def _time(hours_ago: float) -> str:
    return (AS_OF - timedelta(hours=hours_ago)).isoformat().replace("+00:00", "Z")


def _text(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return seed + " " + " ".join(WORDS[b % len(WORDS)] for b in digest[:40]) + "."


def _item(index: int, pick: Pick, texts: list[str], claims: list[str], rough: bool) -> dict[str, Any]:
    """One item; a rough one may carry any flag, class or directness, a plain one weighs in full."""
    evidence_id = f"e{index}"
    text = pick(texts) if texts and pick((False, False, False, True)) else _text(evidence_id)
    texts.append(text)
    domain = f"{evidence_id}.example"
    digest = hashlib.sha256(text.encode()).hexdigest()
    broken = rough and pick((False,) * 9 + (True,))
    flags: dict[str, Any] = {}
    for _ in range(pick((0, 0, 1, 1, 2)) if rough else 0):
        flags[pick(FLAGS)] = True
    if flags.get("corrected") and pick((True, False)):
        flags["corrected_at"] = _time(pick((2, 30)))
    heuristic = pick((False, False, False, True))
    judgments = []
    for claim_id in claims:
        if pick((True,) * 5 + (False,)):
            judgments.append(
                {
                    "claim_id": claim_id,
                    "stance": {
                        "stance": pick(("support", "support", "support", "refute", "refute", "neutral")),
                        "confidence": pick(CONFIDENCES if rough else CONFIDENCES[:4]),
                        "judge": {"provider": "test-judge", "version": "1", "calibration_id": "identity"},
                    },
                    "inference_hops": pick((0, 0, 0, 1, 4)) if rough else 0,
                    "scope": {"matches": not rough or pick((True,) * 5 + (False,))},
                }
            )
    item: dict[str, Any] = {
        "evidence_id": evidence_id,
        "url": f"https://{domain}/story/{evidence_id}",
        "publisher": evidence_id.upper(),
        "domain": domain,
        "published_at": _time(pick(AGES_HOURS)),
        "retrieved_at": _time(0.5),
        "content_sha256": digest,
        "snapshot": {"ref": "sha256:" + digest},
        "text": text,
        "excerpt": {"span": {"start": 0, "end": 30}, "text": ("x" if broken else "") + text[:30]},
        "reputation": {
            "domain": domain,
            "score": pick(SCORES[1:-1]) if heuristic else pick(SCORES if rough else SCORES[:5]),
            "tier": pick(TIERS),
            "method": "heuristic" if heuristic else "manual",
            "produced_by": "heuristic@1" if heuristic else "manual-review",
            "version": "1",
        },
        "source_class": pick(CLASSES if rough else CLASSES[:8]),
        "directness": pick(DIRECTNESS if rough else DIRECTNESS[:4]),
        "flags": flags,
        "judgments": judgments,
    }
    if pick((False, False, True)):
        item["updated_at"] = _time(pick((3, 48)))
    return item


def _claim(claim_id: str, pick: Pick, image: bool) -> dict[str, Any]:
    text = IMAGE if image else POST[:50] if claim_id == "c1" else POST[51:]
    source = IMAGE if image else POST
    start = source.index(text)
    claim: dict[str, Any] = {
        "claim_id": claim_id,
        "source_field": "image_text" if image else "post_text",
        "span": {"start": start, "end": start + len(text)},
        "text": text,
        "temporal_scope": pick(("historical", "current", "current", "ongoing")),
        "disposition": pick(("checkable",) * 24 + ("opinion",)),
    }
    if pick((False,) * 5 + (True,)):
        claim["event_started_at"] = _time(pick((2, 0.1, 40)))
    return claim


def random_ledger(pick: Pick) -> dict[str, Any]:
    """One ledger in its JSON form, every choice made by ``pick``."""
    image = pick((False,) * 7 + (True,))
    claim_ids = ["c1", "c2"] if not image and pick((False, False, True)) else ["c1"]
    claims = [_claim(c, pick, image) for c in claim_ids]
    texts: list[str] = []
    rough = pick((True, False))
    evidence = [_item(i, pick, texts, claim_ids, rough) for i in range(pick((0, 1, 2, 2, 3, 3, 4, 4, 5, 6)))]
    urls = [e["url"] for e in evidence]
    for item in evidence:  # citations: derivatives, and a loop when two items cite each other
        if urls and pick((False, False, False, True)):
            target = pick(urls)
            if target != item["url"]:
                item["links"] = [target]
    if evidence and pick((False,) * 11 + (True,)):  # rule 1: the post misquotes material it cites
        cited = evidence[0]
        cited["role"] = "cited_by_subject"
        excerpt = cited["text"][:20]
        finding = {"kind": "dropped_qualifier", "evidence_id": cited["evidence_id"], "excerpt": excerpt}
        claims[0]["self_evidence"] = [finding | {"span": {"start": 0, "end": 20}}]
    fields = [{"name": "post_text", "text": POST, "artifact_id": "post-1"}]
    subject: dict[str, Any] = {
        "kind": "x_post",
        "subject_id": "1790000000000000001",
        "url": "https://x.com/example/status/1790000000000000001",
        "captured_at": _time(2),
        "fields": fields,
        "language": pick(("en",) * 39 + ("fr",)),
    }
    if image:
        fields.append({"name": "image_text", "text": IMAGE, "artifact_id": "img-1"})
        token = {"text": "1.8%", "span": {"start": 24, "end": 28}, "confidence": pick(("0.62", "0.97"))}
        subject["images"] = [{"image_id": "img-1", "ocr_text": IMAGE, "tokens": [token]}]
    ledger: dict[str, Any] = {
        "ledger_id": "random",
        "as_of": _time(0),
        "subject": subject,
        "claims": claims,
        "evidence": evidence,
    }
    draft = pick((None,) * 18 + ("unknown", "honesty"))
    if draft == "unknown":
        ledger["drafts"] = [{"claim_id": "c1", "text": "See the report.", "cited_evidence_ids": ["e9"]}]
    elif draft == "honesty":
        ledger["drafts"] = [{"claim_id": "c1", "text": "The author is lying on purpose."}]
    if pick((False, False, True)):
        started = pick((0.1, 1, 30))
        prior = pick(("supported", "unverifiable", "not_supported"))
        ledger["history"] = {
            "started_at": _time(started),
            "prior_runs": [{"as_of": _time(started), "scored_labels": {c: prior for c in claim_ids}}],
        }
    return ledger


# (config path, what of the first claim's final pass the limit is moved onto)
LIMITS = (
    (("weighting", "counting_threshold"), "cluster_weight"),
    (("weighting", "neutral_below_confidence"), "confidence"),
    (("decision", "polarity"), "polarity"),
    (("decision", "conflict_ratio"), "ratio"),
    (("decision", "minimum_total"), "total"),
    (("decision", "mixed_total"), "total"),
    (("bands", "high"), "score"),
    (("bands", "medium"), "score"),
)


def _limit_value(result: dict[str, Any], source: str, pick: Pick) -> Decimal | None:
    claims = result["trace"]["claims"]
    if not claims:
        return None
    claim = claims[0]
    final = claim["passes"][-1]
    totals = final["totals"]
    s, rf = Decimal(totals["S"]), Decimal(totals["Rf"])
    values = {
        "cluster_weight": [Decimal(c["weight"]) for c in final["clusters"] if Decimal(c["weight"]) > 0],
        "confidence": [Decimal(i["C"]) for i in final["items"] if Decimal(i["C"]) > 0],
        "polarity": [abs(Decimal(totals["polarity"]))] if s + rf > 0 else [],
        "ratio": [min(s, rf) / max(s, rf)] if min(s, rf) > 0 else [],
        "total": [s + rf] if s + rf > 0 else [],
        "score": [Decimal(claim["confidence"]["score"])],
    }[source]
    return pick(values) if values else None


def boundary_policy(base: PolicyConfig, ledger: Ledger, pick: Pick) -> PolicyConfig:
    """``base``, or base with one limit moved onto the first claim's own value (exactly or ±1e-6)."""
    if pick((True, False)):
        return base
    (section, key), source = pick(LIMITS)
    value = _limit_value(score_ledger(ledger, base), source, pick)
    if value is None:
        return base
    moved = value + pick(NEAR)
    if not Decimal(0) < moved < Decimal(1) and section != "decision":
        return base
    data = base.canonical()
    data[section] = {**data[section], key: str(moved)}
    return PolicyConfig.model_validate(data)


def differences(ledger: Ledger, policy: PolicyConfig) -> list[str]:
    """The fields on which the engine and the reference disagree for this ledger (none: agreement)."""
    published = json.loads(json.dumps(score_ledger(ledger, policy)))
    mine = icarus_policy.recompute(published, policy.canonical(), policy.ref)
    found = []
    for ours, theirs in zip(mine["claims"], icarus_policy.published_view(published), strict=True):
        found += [f"{ours['claim_id']}.{key}" for key in ours if ours[key] != theirs[key]]
    overall = {"label": published["overall"]["label"], "band": published["overall"]["band"]}
    if mine["overall"] != overall:
        found.append("overall")
    if mine["config_hash"] != published["config_hash"]:
        found.append("config_hash")
    return sorted(found)


def run(cases: int, seed: int, progress: Progress | None = None) -> dict[str, Any]:
    """``cases`` random ledgers under a random released policy each: how many agree on every field."""
    rng = random.Random(seed)
    refs = sorted(POLICY_FILES)
    task = progress.add_task("icarus", total=cases) if progress else None
    disagreed: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    agree = 0
    started = time.perf_counter()
    for _ in range(cases):
        ledger = Ledger.model_validate(random_ledger(rng.choice))
        policy = boundary_policy(load_policy(rng.choice(refs)), ledger, rng.choice)
        found = differences(ledger, policy)
        agree += not found
        disagreed.update(key.split(".", 1)[-1] for key in found)
        labels.update(f"{c['label']}/{c['band']}" for c in score_ledger(ledger, policy)["claims"])
        if progress and task is not None:
            progress.advance(task)
    return {
        "family": "icarus",
        "cases": cases,
        "agree": agree,
        "agreement": f"{100 * agree / cases:.3f} %",
        "fields_differing": dict(disagreed) or "none",
        "label_bands_seen": len(labels),
        "seconds": round(time.perf_counter() - started, 1),
    }
