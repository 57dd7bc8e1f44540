"""The worked examples of docs/spec/icarus-policy.md: small ledgers, scored by the engine when the spec is
rendered, so every number the examples show is the engine's own (and the reference must reproduce them)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from icarus.ledger import Ledger
from icarus.scoring.icarus.config import DEFAULT_POLICY, load_policy
from icarus.scoring.icarus.engine import score_ledger

AS_OF = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
POST = "Container traffic at Halden harbor fell 12% in October."
JUDGE = {"provider": "worked-example", "version": "1", "calibration_id": "identity"}


def _time(hours_ago: float) -> str:
    return (AS_OF - timedelta(hours=hours_ago)).isoformat().replace("+00:00", "Z")


def _item(
    evidence_id: str,
    stance: str,
    *,
    score: str,
    tier: str,
    directness: str = "original_reporting",
    confidence: str = "0.90",
    method: str = "manual",
    **extra: Any,
) -> dict[str, Any]:
    text = f"{evidence_id}: " + " ".join(
        hashlib.sha256(f"{evidence_id}{i}".encode()).hexdigest()[:7] for i in range(40)
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    domain = f"{evidence_id}.example"
    return {
        "evidence_id": evidence_id,
        "url": f"https://{domain}/{evidence_id}",
        "publisher": evidence_id.title(),
        "domain": domain,
        "published_at": _time(48),
        "retrieved_at": _time(1),
        "content_sha256": digest,
        "snapshot": {"ref": "sha256:" + digest},
        "text": text,
        "excerpt": {"span": {"start": 0, "end": 30}, "text": text[:30]},
        "reputation": {
            "domain": domain,
            "score": score,
            "tier": tier,
            "method": method,
            "produced_by": "heuristic@1" if method == "heuristic" else "manual-review",
            "version": "1",
        },
        "source_class": "primary_official" if tier == "primary_official" else "news",
        "directness": directness,
        "judgments": [
            {"claim_id": "c1", "stance": {"stance": stance, "confidence": confidence, "judge": JUDGE}}
        ],
        **extra,
    }


def _ledger(name: str, evidence: list[dict[str, Any]]) -> Ledger:
    return Ledger.model_validate(
        {
            "ledger_id": name,
            "as_of": AS_OF.isoformat().replace("+00:00", "Z"),
            "subject": {
                "kind": "x_post",
                "subject_id": "1790000000000000001",
                "url": "https://x.com/example/status/1790000000000000001",
                "captured_at": _time(2),
                "fields": [{"name": "post_text", "text": POST, "artifact_id": "post-1"}],
            },
            "claims": [
                {
                    "claim_id": "c1",
                    "source_field": "post_text",
                    "span": {"start": 0, "end": len(POST)},
                    "text": POST,
                    "temporal_scope": "historical",
                }
            ],
            "evidence": evidence,
        }
    )


def _single_primary() -> Ledger:
    return _ledger(
        "single-primary",
        [_item("port", "support", score="1.0", tier="primary_official", directness="primary_document")],
    )


def _two_wires() -> Ledger:
    return _ledger(
        "two-wires",
        [
            _item("wire-a", "support", score="0.95", tier="wire"),
            _item("wire-b", "support", score="0.95", tier="wire"),
        ],
    )


def _estimated_at_threshold() -> Ledger:
    return _ledger(
        "estimated-at-threshold",
        [
            _item(
                name,
                "support",
                score="0.75",
                tier="other",
                method="heuristic",
                directness="primary_document",
                confidence="1.0",
            )
            for name in ("blog-a", "blog-b")
        ],
    )


def _retracted_refutation() -> Ledger:
    return _ledger(
        "retracted-refutation",
        [
            _item("wire-a", "support", score="0.95", tier="wire"),
            _item("paper", "refute", score="0.95", tier="scholarly", flags={"retracted": True}),
        ],
    )


EXAMPLES: dict[str, tuple[str, Callable[[], Ledger]]] = {
    "single-primary": ("one primary source: counted, but a single origin", _single_primary),
    "two-wires": ("two independent wires", _two_wires),
    "estimated-at-threshold": (
        "two estimated reputations landing exactly on the counting threshold",
        _estimated_at_threshold,
    ),
    "retracted-refutation": (
        "a refuting origin retracted: ⚠️ before, ❔ after (the decision recorded above)",
        _retracted_refutation,
    ),
}


def worked_ledgers() -> dict[str, Ledger]:
    return {name: build() for name, (_, build) in EXAMPLES.items()}


def _weights(trace: dict[str, Any]) -> str:
    final = trace["passes"][-1]
    return "; ".join(
        f"{i['evidence_id']}: {i['R']} × {i['D']} × {i['V']} × {i['C']} × {i['P']} = {i['weight']}"
        for i in final["items"]
    )


def worked_markdown() -> list[str]:
    """A table of the worked examples under the default policy, every number from the engine."""
    policy = load_policy(DEFAULT_POLICY)
    lines = [
        f"Each ledger is built by `icarus.scoring.icarus.spec_examples` (claim `historical`, as of "
        f"{AS_OF.isoformat().replace('+00:00', 'Z')}) and scored under {policy.ref}.",
        "",
        "| example | weights (R × D × V × C × P, final pass) | S, Rf, ICC_s, ICC_r | rules by pass | score "
        "| published | gates |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, (title, build) in EXAMPLES.items():
        result = score_ledger(build(), policy)
        trace, claim = result["trace"]["claims"][0], result["claims"][0]
        totals = trace["passes"][-1]["totals"]
        rules = " → ".join(p["decision"]["rule"] for p in trace["passes"])
        gates = ", ".join(f"{g['gate']} {g['effect']}" for g in trace["gates"]) or "none"
        score = Decimal(trace["confidence"]["score"])
        lines.append(
            f"| `{name}`: {title} | {_weights(trace)} | {totals['S']}, {totals['Rf']}, "
            f"{totals['icc_support']}, {totals['icc_refute']} | {rules} | {score} ({trace['confidence']['band']}) "
            f"| {claim['symbol']} {claim['label']}, {claim['band']} | {gates} |"
        )
    return lines
