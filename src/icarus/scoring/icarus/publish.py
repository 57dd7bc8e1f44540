"""The published result and its trace: JSON-ready, canonical, hashed.

Everything a person or program reads about a scored ledger is assembled here from the claims' outcomes;
G7 checks the assembled result before it is released.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from icarus.ledger import EvidenceItem, Figure, Ledger
from icarus.provenance import ProvenanceGraph
from icarus.scoring.canonical import canonical_json, code_hash, format_decimal, ledger_hash, sha256_hex
from icarus.scoring.icarus.aggregate import ClusterSummary
from icarus.scoring.icarus.assess import ItemAssessment
from icarus.scoring.icarus.blockers import BlockerCode
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.gates import g7_violations
from icarus.scoring.icarus.outcome import ClaimOutcome, Pass
from icarus.scoring.labels import Band, Label, lower_band, most_adverse

TRACE_VERSION = "icarus-trace/2"  # 2: item and claim inputs of docs/spec/icarus-policy.md
_CORE_PACKAGES = ("ledger", "provenance", "scoring")


@cache
def core_code_hash() -> str:
    """Hash of the pure core's source: which code produced a result."""
    root = Path(__file__).resolve().parents[2]
    return "sha256:" + sha256_hex("".join(code_hash(root / name) for name in _CORE_PACKAGES))


def utc_text(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


_QUANTA = {places: Decimal(1).scaleb(-places) for places in (2, 4, 6)}


@lru_cache(maxsize=65536)  # traces repeat the same few factor values many times
def _dec(value: Decimal, places: int = 6) -> str:
    """Fixed-point text rounded half-even to ``places`` decimals (trailing zeros dropped)."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -places:
        return format_decimal(value)
    return format_decimal(value.quantize(_QUANTA[places]))


def _reasons(outcome: ClaimOutcome) -> list[dict[str, str]]:
    decision = outcome.decision
    reasons = [{"code": f"{decision.rule}@1", "message": decision.message}]
    reasons.extend({"code": f"{decision.rule}@1", "message": detail} for detail in decision.details)
    for misrep in outcome.selfcheck.misrepresentations:
        reasons.append({"code": f"{misrep.rule}@1", "message": misrep.message})
    for gate in outcome.gates:
        reasons.append({"code": f"{gate.gate}@1", "message": gate.message})
    for name, value in outcome.confidence.penalties.items():
        reasons.append({"code": "penalty@1", "message": f"{name.replace('_', ' ')} -{_dec(value, 2)}"})
    for flag, message in _fired_flags(outcome):
        reasons.append({"code": f"{flag}@1", "message": message})
    assessments = outcome.final.assessments.values()
    if assessments and all(a.inaccessible for a in assessments):
        reasons.append({"code": "H28@1", "message": "inaccessible: no evidence could be read"})
    return reasons


def _fired_flags(outcome: ClaimOutcome) -> list[tuple[str, str]]:
    """Each rule flagged on the claim, in rule order, with what it fired on: the evidence items (by id) whose
    assessment carries the flag, and the claim's own figures that the subject-side checks flagged."""
    on_items: dict[str, list[str]] = {}
    for evidence_id, assessment in sorted(outcome.final.assessments.items()):
        for flag in assessment.flags:
            on_items.setdefault(flag, []).append(evidence_id)
    on_figures: dict[str, list[str]] = {}
    for flag, figure in outcome.selfcheck.flagged_figures:
        on_figures.setdefault(flag, []).append(_figure_text(figure))
    for flag in outcome.selfcheck.flags:
        on_figures.setdefault(flag, [])
    fired: list[tuple[str, str]] = []
    for flag in sorted(on_items.keys() | on_figures.keys(), key=_rule_sort_key):
        parts: list[str] = []
        if flag in on_figures:
            figures = list(dict.fromkeys(on_figures[flag]))
            noun = "figure" if len(figures) == 1 else "figures"
            parts.append(
                f"the claim's own {noun} " + ", ".join(figures) if figures else "the claim's own text"
            )
        if flag in on_items:
            noun = "evidence item" if len(on_items[flag]) == 1 else "evidence items"
            parts.append(f"{noun} " + ", ".join(on_items[flag]))
        fired.append((flag, "fired on " + " and on ".join(parts)))
    return fired


def _figure_text(figure: Figure) -> str:
    """A stated figure as a reader would write it, with what it measures: “12 %” (container traffic)."""
    return f"\u201c{figure.value:f} {figure.unit}\u201d ({figure.measure})"


def _rule_sort_key(code: str) -> tuple[str, int]:
    digits = "".join(ch for ch in code if ch.isdigit())
    return code[0], int(digits or 0)


def _claim_result(outcome: ClaimOutcome, policy: PolicyConfig, as_of: datetime) -> dict[str, Any]:
    offsets = policy.gates.recheck_offsets_minutes if outcome.recheck_triggers else ()
    entry: dict[str, Any] = {
        "id": outcome.claim.claim_id,
        "text": outcome.claim.text,
        "label": outcome.label.value,
        "symbol": outcome.label.symbol,
        "band": outcome.band.value,
        "reasons": _reasons(outcome),
        "blockers": [blocker.as_json() for blocker in outcome.blockers],
        "caveats": outcome.caveats,
        "recheck": {
            "triggers": outcome.recheck_triggers,
            "at": [utc_text(as_of + timedelta(minutes=m)) for m in offsets],
        },
        "review_requests": outcome.review_requests,
        "scored_label": outcome.scored_label.value,
    }
    implication = outcome.claim.implication
    if implication is not None:
        # ``text`` stays the author's words it rests on; what was checked is the checker's statement.
        entry["implied"] = {"statement": implication.statement, "proposed_by": implication.proposed_by}
    return entry


def _pass_trace(p: Pass) -> dict[str, Any]:
    return {
        "pass": p.name,
        "items": [_item_trace(a) for _, a in sorted(p.assessments.items())],
        "clusters": [_cluster_trace(s) for s in p.summaries],
        "totals": {
            "S": _dec(p.totals.support),
            "Rf": _dec(p.totals.refute),
            "polarity": _dec(p.totals.polarity),
            "icc_support": p.totals.icc_support,
            "icc_refute": p.totals.icc_refute,
            "diversity": p.totals.diversity,
            "tiers": [t.value for t in p.totals.tiers],
        },
        "too_many_hops": p.too_many_hops,
        "decision": {"rule": p.decision.rule, "label": p.decision.label.value},
    }


def _item_trace(a: ItemAssessment) -> dict[str, Any]:
    return {
        "evidence_id": a.evidence_id,
        "judged_stance": a.judged_stance.value,
        "stance": a.stance.value,
        # R, D, C, P and the factors are the recomputation's inputs (docs/spec/icarus-policy.md): exact.
        "R": format_decimal(a.reputation),
        "D": format_decimal(a.directness),
        "V": _dec(a.validity),
        "C": format_decimal(a.confidence),
        "P": format_decimal(a.provenance_discount),
        "weight": _dec(a.weight),
        "excluded_by": [{"rule": rule, "reason": reason} for rule, reason in a.excluded_by],
        "factors": [
            {"rule": f.rule, "term": f.term, "value": format_decimal(f.value), "note": f.note}
            for f in a.factors
        ],
        "flags": list(a.flags),
        "tier": a.tier.value,
        "estimated_reputation": a.estimated,
        "inference_hops": a.inference_hops,
        "first_seen": utc_text(a.first_seen) if a.first_seen else None,
        "anchored": a.anchored,
        "open_correction": a.open_correction,
        "last_change": None
        if a.last_change is None
        else {"at": utc_text(a.last_change[0]), "what": a.last_change[1]},
    }


def _cluster_trace(s: ClusterSummary) -> dict[str, Any]:
    return {
        "cluster_id": s.cluster.cluster_id,
        "members": list(s.cluster.member_ids),
        "judged_members": [m.evidence_id for m in s.members],
        "origin": s.cluster.origin_id,
        "origin_uncertain": s.cluster.origin_uncertain,
        "uncertain_reasons": [r.value for r in s.cluster.uncertain_reasons],
        "in_cycle": s.cluster.in_cycle,
        "weight": _dec(s.weight),
        "stance": s.stance,
        "strongest": s.strongest_id,
        "counted": s.counted,
    }


def _claim_trace(outcome: ClaimOutcome) -> dict[str, Any]:
    conf = outcome.confidence
    return {
        "claim_id": outcome.claim.claim_id,
        "temporal_scope": outcome.claim.temporal_scope.value,
        "passes": [_pass_trace(p) for p in outcome.passes],
        "self_evidence": {
            "verified": [
                {"rule": m.rule, "message": m.message, "evidence_id": m.evidence_id}
                for m in outcome.selfcheck.misrepresentations
            ],
            "rejected": list(outcome.selfcheck.rejected_findings),
        },
        "confidence": {
            "terms": {k: _dec(v) for k, v in conf.terms.items()},
            "penalties": {k: _dec(v) for k, v in conf.penalties.items()},
            "score": _dec(conf.score),
            "band": conf.band.value,
            "temporal_freshness": _dec(outcome.freshness),
        },
        "gates": [{"gate": g.gate, "effect": g.effect, "message": g.message} for g in outcome.gates],
        "published": {"label": outcome.label.value, "band": outcome.band.value},
    }


def _graph_trace(graph: ProvenanceGraph) -> dict[str, Any]:
    return {
        "canonical_urls": dict(sorted(graph.canonical_urls.items())),
        "duplicate_of": dict(sorted(graph.duplicate_of.items())),
        "similarity_edges": [
            {"a": e.a, "b": e.b, "score": _dec(e.score, 4), "kind": e.kind} for e in graph.similarity_edges
        ],
        "citation_edges": [
            {"source": e.source, "target": e.target, "origin": e.origin.value, "detail": e.detail}
            for e in graph.citation_edges
        ],
        "cycles": [list(c) for c in graph.cycles],
        "reaches_subject": sorted(graph.reaches_subject),
        "release_overlap": {k: _dec(v, 4) for k, v in sorted(graph.release_overlap.items())},
        "amplification_groups": [list(g) for g in graph.amplification_groups],
        "clusters": {k: list(v) for k, v in sorted(graph.cluster_members.items())},
    }


def assemble(
    ledger: Ledger,
    policy: PolicyConfig,
    graph: ProvenanceGraph,
    outcomes: list[ClaimOutcome],
    not_assessed: list[dict[str, str]],
    given: Ledger | None = None,
) -> dict[str, Any]:
    """The published result of ``ledger`` as scored; ``given``, when the policy switched inputs off
    (``not_live``), is the ledger as handed in, which the result names by its hash."""
    claims = [_claim_result(o, policy, ledger.history.started_at or ledger.as_of) for o in outcomes]
    labels = [o.label for o in outcomes]
    overall_label = most_adverse(labels)
    carrying = [o.band for o in outcomes if o.label is overall_label]
    overall_band = Band.LOW
    if carrying:
        overall_band = carrying[0]
        for band in carrying[1:]:
            overall_band = lower_band(overall_band, band)
    result: dict[str, Any] = {
        "policy": policy.ref,
        "config_hash": policy.config_hash,
        "code_hash": core_code_hash(),
        "ledger_id": ledger.ledger_id,
        "ledger_hash": ledger_hash(given if given is not None else ledger),
        "as_of": utc_text(ledger.as_of),
        "overall": {
            "label": overall_label.value,
            "symbol": overall_label.symbol,
            "title": overall_label.heading,
            "band": overall_band.value,
            "reasons": [{"code": "overall@1", "message": _overall_message(labels, overall_label)}],
        },
        "claims": claims,
        "not_assessed": not_assessed,
        "evidence": [_evidence_summary(item) for item in ledger.evidence],
    }
    scores = {o.claim.claim_id: o.confidence.score for o in outcomes}
    problems = g7_violations(result, ledger, policy, scores)
    if problems:
        result = block_publication(result, problems)
    trace = {
        "trace_version": TRACE_VERSION,
        "policy": policy.ref,
        "config_hash": result["config_hash"],
        "code_hash": result["code_hash"],
        "ledger_hash": result["ledger_hash"],
        "as_of": result["as_of"],
        "provenance": _graph_trace(graph),
        "claims": [_claim_trace(o) for o in outcomes],
        "published": {
            "overall": result["overall"]["label"],
            "claims": {c["id"]: c["label"] for c in result["claims"]},
        },
    }
    result["trace"] = trace
    result["trace_hash"] = "sha256:" + sha256_hex(canonical_json(trace))
    return result


def _evidence_summary(item: EvidenceItem) -> dict[str, Any]:
    """Where each piece of evidence came from and which reputation record (and version) it was scored with."""
    record = item.reputation
    return {
        "id": item.evidence_id,
        "url": item.url,
        "publisher": item.publisher,
        "snapshot": item.snapshot.ref if item.snapshot else None,
        "archived": bool(item.snapshot and item.snapshot.archived),
        "reputation": {
            "domain": record.domain,
            "score": format_decimal(record.score),
            "tier": record.tier.value,
            "method": record.method.value,
            "produced_by": record.produced_by,
            "version": record.version,
        },
    }


def _overall_message(labels: list[Label], overall: Label) -> str:
    if not labels:
        return "no claim was assessed"
    if overall is Label.UNVERIFIABLE:
        return "every assessed claim is unresolved"
    return "the most adverse decided claim sets the overall result"


def block_publication(result: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """G7: block a version that fails publication integrity. A first version becomes 'check could not be
    completed'; callers holding a previous version keep publishing that one instead."""
    blocked = dict(result)
    message = "check could not be completed: " + "; ".join(problems)
    blocked["overall"] = {
        "label": Label.UNVERIFIABLE.value,
        "symbol": Label.UNVERIFIABLE.symbol,
        "title": Label.UNVERIFIABLE.heading,
        "band": Band.LOW.value,
        "reasons": [{"code": "G7@1", "message": message}],
    }
    blocked["claims"] = [
        {
            **claim,
            "label": Label.UNVERIFIABLE.value,
            "symbol": Label.UNVERIFIABLE.symbol,
            "band": Band.LOW.value,
            "reasons": [{"code": "G7@1", "message": message}],
            "blockers": [{"code": BlockerCode.PUBLICATION_BLOCKED.value, "gate": "G7", "message": message}],
        }
        for claim in result.get("claims", [])
        if isinstance(claim, dict)
    ]
    blocked["blocked"] = {"gate": "G7", "problems": problems}
    return blocked
