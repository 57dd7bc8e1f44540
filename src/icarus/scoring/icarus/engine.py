"""Score a ledger under an Icarus policy: rules, clusters, decision, confidence, gates, overall result.

``score_ledger`` is a pure function of (ledger, policy): it reads no clock and does no I/O beyond hashing
its own source once. Its result carries the policy name@version, config hash, code hash and a canonical
trace of every factor with its own hash.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from icarus.ledger import Claim, ClaimJudgment, EvidenceItem, Ledger, SourceClass, TemporalScope
from icarus.provenance import Cluster, ElectionFacts, ProvenanceGraph, build_graph, elect_origins
from icarus.scoring.canonical import canonical_json, code_hash, format_decimal, sha256_hex
from icarus.scoring.icarus.aggregate import ClusterSummary, Totals, summarise_cluster, totals
from icarus.scoring.icarus.assess import (
    ItemAssessment,
    assess_item,
    exclude,
    multiply_validity,
    zero_validity,
)
from icarus.scoring.icarus.confidence import Confidence, confidence
from icarus.scoring.icarus.config import PolicyConfig, load_policy
from icarus.scoring.icarus.decision import Decision, decide
from icarus.scoring.icarus.gates import (
    GateEvent,
    g0_ineligibility,
    g2_unreliable_image_text,
    g3_rejected_drafts,
    g5_correction_window,
    g6_hold,
    g6_is_ongoing,
    g7_violations,
)
from icarus.scoring.icarus.selfevidence import SelfEvidenceCheck, check_claim
from icarus.scoring.icarus.statistics import magnitude_conflict
from icarus.scoring.labels import Band, Label, lower_band, most_adverse

ZERO = Decimal(0)
ONE = Decimal(1)
TRACE_VERSION = "icarus-trace/1"
_CORE_PACKAGES = ("ledger", "provenance", "scoring")


@cache
def core_code_hash() -> str:
    """Hash of the pure core's source: which code produced a result."""
    root = Path(__file__).resolve().parents[2]
    return "sha256:" + sha256_hex("".join(code_hash(root / name) for name in _CORE_PACKAGES))


@dataclass(frozen=True, slots=True)
class Pass:
    """One scoring pass over a claim's evidence (G3 and G4 compare passes)."""

    name: str
    assessments: dict[str, ItemAssessment]
    clusters: tuple[Cluster, ...]
    summaries: list[ClusterSummary]
    totals: Totals
    too_many_hops: bool
    decision: Decision


@dataclass(slots=True)
class ClaimOutcome:
    claim: Claim
    label: Label
    scored_label: Label  # after G0-G4, before G6 holds it: what the next run compares against
    band: Band
    decision: Decision
    confidence: Confidence
    final: Pass
    passes: list[Pass]
    gates: list[GateEvent]
    selfcheck: SelfEvidenceCheck
    freshness: Decimal
    caveats: list[str] = field(default_factory=list)
    recheck_triggers: list[str] = field(default_factory=list)
    review_requests: list[dict[str, str]] = field(default_factory=list)


def score_ledger(
    ledger: Ledger, policy: PolicyConfig | None = None, graph: ProvenanceGraph | None = None
) -> dict[str, Any]:
    """Score every claim and assemble the published result (a JSON-ready dict with its trace).

    ``graph`` lets a caller that already built this ledger's provenance graph (with this policy's
    provenance settings) skip rebuilding it; the result is the same either way.
    """
    policy = policy or load_policy()
    if graph is None:
        graph = provenance_graph(ledger, policy)
    items = {item.evidence_id: item for item in ledger.evidence}
    outcomes: list[ClaimOutcome] = []
    not_assessed: list[dict[str, str]] = []
    for claim in ledger.claims:
        if claim.not_assessed is not None:
            not_assessed.append(
                {"id": claim.claim_id, "text": claim.text, "reason": claim.not_assessed.value}
            )
            continue
        outcomes.append(_score_claim(claim, ledger, items, graph, policy))
    return _assemble(ledger, policy, graph, outcomes, not_assessed)


def provenance_graph(ledger: Ledger, policy: PolicyConfig) -> ProvenanceGraph:
    return build_graph(ledger.evidence, _artifact_urls(ledger), policy.provenance)


def _artifact_urls(ledger: Ledger) -> list[str]:
    urls = list(ledger.subject.artifact_urls)
    if ledger.subject.url:
        urls.append(ledger.subject.url)
    return urls


# --- one claim -------------------------------------------------------------------------------------------


def _score_claim(
    claim: Claim, ledger: Ledger, items: dict[str, EvidenceItem], graph: ProvenanceGraph, policy: PolicyConfig
) -> ClaimOutcome:
    judged = [(item, j) for item in ledger.evidence if (j := item.judgment_for(claim.claim_id)) is not None]
    selfcheck = check_claim(claim, ledger, policy)
    misrepresentation = tuple(f"{m.rule}: {m.message}" for m in selfcheck.misrepresentations)

    def run(name: str, drop_unanchored: bool, apply_retraction: bool) -> Pass:
        return _run_pass(
            name,
            claim,
            judged,
            items,
            graph,
            policy,
            ledger.as_of,
            misrepresentation,
            drop_unanchored,
            apply_retraction,
        )

    raw = run("raw", drop_unanchored=False, apply_retraction=False)
    passes = [raw]
    has_unanchored = any(not a.anchored for a in raw.assessments.values())
    anchored = run("anchored", drop_unanchored=True, apply_retraction=False) if has_unanchored else raw
    if has_unanchored:
        passes.append(anchored)
    has_retraction = any(a.retracted for a in raw.assessments.values())
    final = run("final", drop_unanchored=True, apply_retraction=True) if has_retraction else anchored
    if has_retraction:
        passes.append(final)

    gates: list[GateEvent] = []
    label = final.decision.label
    ineligible = g0_ineligibility(claim, ledger)
    unreadable = g2_unreliable_image_text(claim, ledger, policy)
    if ineligible is not None:
        gates.append(GateEvent("G0", "unverifiable", f"INELIGIBLE_DISPOSITION: {ineligible}"))
        label = Label.UNVERIFIABLE
    elif unreadable is not None:
        gates.append(
            GateEvent("G2", "unverifiable", f"text read from image could not be read reliably: {unreadable}")
        )
        label = Label.UNVERIFIABLE
    elif anchored.decision.label != raw.decision.label:
        if raw.decision.label.decided:
            gates.append(
                GateEvent("G3", "unverifiable", "the label does not hold without unanchored evidence")
            )
        label = Label.UNVERIFIABLE
    elif final.decision.label != anchored.decision.label:
        if anchored.decision.label.decided:
            gates.append(GateEvent("G4", "unverifiable", "evidence retracted"))
        label = Label.UNVERIFIABLE
    for item_id, assessment in sorted(raw.assessments.items()):
        if not assessment.anchored:
            gates.append(GateEvent("G3", "dropped", f"{item_id} dropped: {assessment.anchor_problem}"))
    for problem in g3_rejected_drafts(ledger):
        gates.append(GateEvent("G3", "rejected_draft", problem))
    if any(a.retracted for a in raw.assessments.values()) and not any(g.gate == "G4" for g in gates):
        gates.append(
            GateEvent("G4", "recomputed", "retracted evidence set to weight 0 and the claim recomputed")
        )

    scored_label = label
    freshness = _freshness(claim, final, ledger.as_of, policy)
    conf = confidence(
        final.totals,
        final.summaries,
        freshness,
        policy,
        claim_in_cycle=any(s.cluster.in_cycle for s in final.summaries),
    )
    band = conf.band
    if any(g.effect == "unverifiable" for g in gates):
        band = Band.LOW

    outcome = ClaimOutcome(
        claim=claim,
        label=label,
        scored_label=scored_label,
        band=band,
        decision=final.decision,
        confidence=conf,
        final=final,
        passes=passes,
        gates=gates,
        selfcheck=selfcheck,
        freshness=freshness,
    )
    _apply_late_gates(outcome, ledger, policy, eligible=ineligible is None)
    _claim_caveats(outcome, claim, graph, policy)
    if policy.live("H4.review_queue") and ineligible is None:
        outcome.review_requests = _review_requests(final, policy, misrepresentation)
    return outcome


def _run_pass(
    name: str,
    claim: Claim,
    judged: list[tuple[EvidenceItem, ClaimJudgment]],
    items: dict[str, EvidenceItem],
    graph: ProvenanceGraph,
    policy: PolicyConfig,
    as_of: datetime,
    misrepresentation: tuple[str, ...],
    drop_unanchored: bool,
    apply_retraction: bool,
) -> Pass:
    assessments: dict[str, ItemAssessment] = {}
    for item, judgment in judged:
        assessment = assess_item(
            item, judgment, claim, graph, policy, as_of, apply_retraction=apply_retraction
        )
        if drop_unanchored and not assessment.anchored:
            assessment = exclude(assessment, "G3", f"dropped: {assessment.anchor_problem}")
        assessments[item.evidence_id] = assessment

    clusters = elect_origins(graph, _election_facts(items, assessments))
    by_cluster: dict[str, list[ItemAssessment]] = {}
    for cluster in clusters:
        members = [assessments[m] for m in cluster.member_ids if m in assessments]
        if not members:
            continue
        if apply_retraction and cluster.origin_id in assessments and assessments[cluster.origin_id].retracted:
            members = [zero_validity(m, "G4", "the cluster's elected origin is retracted") for m in members]
        by_cluster[cluster.cluster_id] = members
    if policy.live("H14.magnitude"):
        _order_of_magnitude(by_cluster, items, policy)
    for members in by_cluster.values():
        for member in members:
            assessments[member.evidence_id] = member

    threshold = policy.weighting.counting_threshold
    summaries = [
        summarise_cluster(cluster, tuple(by_cluster[cluster.cluster_id]), threshold)
        for cluster in clusters
        if cluster.cluster_id in by_cluster
    ]
    claim_totals = totals(summaries)
    max_hops = policy.decision.max_inference_hops
    too_many_hops = any(
        s.counted and s.strongest is not None and s.strongest.inference_hops > max_hops for s in summaries
    )
    decision = decide(claim_totals, policy, misrepresentation=misrepresentation, too_many_hops=too_many_hops)
    return Pass(name, assessments, clusters, summaries, claim_totals, too_many_hops, decision)


def _election_facts(
    items: dict[str, EvidenceItem], assessments: dict[str, ItemAssessment]
) -> dict[str, ElectionFacts]:
    facts: dict[str, ElectionFacts] = {}
    for evidence_id, item in items.items():
        assessment = assessments.get(evidence_id)
        precedence = (
            2
            if item.source_class is SourceClass.PRIMARY_OFFICIAL
            else int(item.source_class is SourceClass.WIRE)
        )
        if assessment is None:
            facts[evidence_id] = ElectionFacts(
                item.published_at or item.retrieved_at, item.reputation.score, precedence
            )
        else:
            facts[evidence_id] = ElectionFacts(
                assessment.first_seen,
                assessment.reputation,
                precedence,
                eligible=assessment.election_eligible,
                uncertain_if_elected=assessment.uncertain_if_elected,
            )
    return facts


def _order_of_magnitude(
    by_cluster: dict[str, list[ItemAssessment]], items: dict[str, EvidenceItem], policy: PolicyConfig
) -> None:
    """H14: clusters giving one quantity an order of magnitude apart. Both sides are flagged; the
    non-primary side is excluded, and if neither or both sides are primary, neither counts."""
    threshold = policy.statistics.order_of_magnitude
    factor = policy.validity.statistical_flag
    with_figures = {
        cluster_id: [m for m in members if items[m.evidence_id].figures]
        for cluster_id, members in by_cluster.items()
    }
    cluster_ids = sorted(c for c, members in with_figures.items() if members)
    conflicted: dict[str, set[str]] = {}
    for i, first in enumerate(cluster_ids):
        for second in cluster_ids[i + 1 :]:
            for a in with_figures[first]:
                for b in with_figures[second]:
                    fig_a, fig_b = items[a.evidence_id].figures, items[b.evidence_id].figures
                    if any(magnitude_conflict(x, y, threshold) for x in fig_a for y in fig_b):
                        conflicted.setdefault(a.evidence_id, set()).add(b.evidence_id)
                        conflicted.setdefault(b.evidence_id, set()).add(a.evidence_id)
    if not conflicted:
        return
    for members in by_cluster.values():
        for index, member in enumerate(members):
            rivals = conflicted.get(member.evidence_id)
            if not rivals:
                continue
            updated = multiply_validity(
                member, "H14", factor, "order-of-magnitude conflict with another cluster"
            )
            rival_primary = any(items[r].source_class is SourceClass.PRIMARY_OFFICIAL for r in rivals)
            own_primary = items[member.evidence_id].source_class is SourceClass.PRIMARY_OFFICIAL
            if not own_primary or rival_primary:
                reason = (
                    "unresolved order-of-magnitude conflict"
                    if own_primary == rival_primary
                    else ("order-of-magnitude conflict with a primary source")
                )
                updated = exclude(updated, "H14", reason)
            members[index] = updated


def _freshness(claim: Claim, final: Pass, as_of: datetime, policy: PolicyConfig) -> Decimal:
    """H27: 1 for historical claims; for current and ongoing ones, by the newest decisive evidence's age."""
    if claim.temporal_scope is TemporalScope.HISTORICAL:
        return ONE
    dates = [
        s.strongest.first_seen
        for s in final.summaries
        if s.counted and s.strongest is not None and s.strongest.first_seen is not None
    ]
    if not dates:
        return ZERO
    age_days = Decimal((as_of - max(dates)).total_seconds()) / Decimal(86400)
    full, zero = Decimal(policy.freshness.full_days), Decimal(policy.freshness.zero_days)
    if age_days <= full:
        return ONE
    if age_days >= zero:
        return ZERO
    return (zero - age_days) / (zero - full)


def _apply_late_gates(outcome: ClaimOutcome, ledger: Ledger, policy: PolicyConfig, *, eligible: bool) -> None:
    """G1, G5 and G6, in that order, on a claim whose label G0-G4 have settled."""
    final = outcome.final
    counted = [s for s in final.summaries if s.counted]
    leading_icc = (
        final.totals.icc_support if final.totals.support >= final.totals.refute else final.totals.icc_refute
    )
    if (
        eligible
        and outcome.decision.rule == "rule-6"
        and leading_icc == 1
        and outcome.label is Label.UNVERIFIABLE
    ):
        outcome.gates.append(GateEvent("G1", "recheck", "single source, developing"))
        outcome.recheck_triggers.append("G1")
    window = g5_correction_window(counted, ledger.as_of, policy)
    if window is not None:
        outcome.gates.append(GateEvent("G5", "band_cap", f"correction window open: {window}"))
        outcome.band = lower_band(outcome.band, Band.MEDIUM)
        outcome.recheck_triggers.append("G5")
    if g6_is_ongoing(outcome.claim, counted, ledger.as_of, policy):
        outcome.recheck_triggers.append("G6")
        hold, cap = g6_hold(outcome.claim, outcome.label, ledger, policy)
        as_of = _utc_text(ledger.as_of)
        if hold:
            outcome.gates.append(GateEvent("G6", "unverifiable", f"developing, as of {as_of}"))
            outcome.label = Label.UNVERIFIABLE
            outcome.band = Band.LOW
        elif cap:
            outcome.gates.append(
                GateEvent("G6", "band_cap", "ongoing situation: band capped at medium until +24 h")
            )
            outcome.band = lower_band(outcome.band, Band.MEDIUM)
    elif outcome.claim.temporal_scope is TemporalScope.ONGOING:
        outcome.recheck_triggers.append("ongoing")


def _claim_caveats(outcome: ClaimOutcome, claim: Claim, graph: ProvenanceGraph, policy: PolicyConfig) -> None:
    caveats: list[str] = []
    if claim.source_field.value == "image_text":
        caveats.append("text read from image")
    caveats.extend(outcome.selfcheck.caveats)
    for summary in outcome.final.summaries:
        for member in summary.members:
            caveats.extend(member.caveats)
    if any(s.cluster.in_cycle for s in outcome.final.summaries):
        caveats.append("circular reporting: some sources cite each other in a loop")
    members = {m.evidence_id for s in outcome.final.summaries for m in s.members}
    for group in graph.amplification_groups:
        if members.intersection(group) and policy.live("H21.caveat"):
            caveats.append(
                f"coordinated amplification: {len(group)} near-identical items published close together"
            )
    outcome.caveats = list(dict.fromkeys(caveats))


def _review_requests(
    final: Pass, policy: PolicyConfig, misrepresentation: tuple[str, ...]
) -> list[dict[str, str]]:
    """H4: an estimated reputation that could change the label (cluster at 0 or at its maximum) is queued."""
    requests: list[dict[str, str]] = []
    ceiling = policy.reputation.heuristic_max
    for index, summary in enumerate(final.summaries):
        strongest = summary.strongest
        if strongest is None or not strongest.estimated or summary.stance not in ("support", "refute"):
            continue
        at_zero = replace(summary, weight=ZERO, counted=False)
        top = strongest.directness * strongest.validity * strongest.confidence * strongest.provenance_discount
        top_weight = ceiling * top
        at_max = replace(
            summary, weight=top_weight, counted=top_weight >= policy.weighting.counting_threshold
        )
        for variant in (at_zero, at_max):
            summaries = [*final.summaries[:index], variant, *final.summaries[index + 1 :]]
            decision = decide(
                totals(summaries),
                policy,
                misrepresentation=misrepresentation,
                too_many_hops=final.too_many_hops,
            )
            if decision.label is not final.decision.label:
                requests.append(
                    {
                        "evidence_id": strongest.evidence_id,
                        "cluster_id": summary.cluster.cluster_id,
                        "reason": "reputation estimate could change the label",
                    }
                )
                break
    return requests


# --- the published result and its trace ------------------------------------------------------------------


def _utc_text(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


_QUANTA = {places: Decimal(1).scaleb(-places) for places in (2, 4, 6)}


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
    fired = sorted(
        {flag for a in outcome.final.assessments.values() for flag in a.flags} | set(outcome.selfcheck.flags),
        key=_rule_sort_key,
    )
    for flag in fired:
        reasons.append({"code": f"{flag}@1", "message": "fired on this claim's evidence"})
    assessments = outcome.final.assessments.values()
    if assessments and all(a.inaccessible for a in assessments):
        reasons.append({"code": "H28@1", "message": "inaccessible: no evidence could be read"})
    return reasons


def _rule_sort_key(code: str) -> tuple[str, int]:
    digits = "".join(ch for ch in code if ch.isdigit())
    return code[0], int(digits or 0)


def _claim_result(outcome: ClaimOutcome, policy: PolicyConfig, as_of: datetime) -> dict[str, Any]:
    offsets = policy.gates.recheck_offsets_minutes if outcome.recheck_triggers else ()
    return {
        "id": outcome.claim.claim_id,
        "text": outcome.claim.text,
        "label": outcome.label.value,
        "symbol": outcome.label.symbol,
        "band": outcome.band.value,
        "reasons": _reasons(outcome),
        "caveats": outcome.caveats,
        "recheck": {
            "triggers": outcome.recheck_triggers,
            "at": [_utc_text(as_of + timedelta(minutes=m)) for m in offsets],
        },
        "review_requests": outcome.review_requests,
        "scored_label": outcome.scored_label.value,
    }


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
        "R": _dec(a.reputation),
        "D": _dec(a.directness),
        "V": _dec(a.validity),
        "C": _dec(a.confidence),
        "P": _dec(a.provenance_discount),
        "weight": _dec(a.weight),
        "excluded_by": [{"rule": rule, "reason": reason} for rule, reason in a.excluded_by],
        "factors": [
            {"rule": f.rule, "term": f.term, "value": _dec(f.value), "note": f.note} for f in a.factors
        ],
        "flags": list(a.flags),
        "tier": a.tier.value,
        "estimated_reputation": a.estimated,
        "inference_hops": a.inference_hops,
        "first_seen": _utc_text(a.first_seen) if a.first_seen else None,
        "anchored": a.anchored,
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


def _assemble(
    ledger: Ledger,
    policy: PolicyConfig,
    graph: ProvenanceGraph,
    outcomes: list[ClaimOutcome],
    not_assessed: list[dict[str, str]],
) -> dict[str, Any]:
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
        "ledger_hash": "sha256:" + hashlib.sha256(ledger.model_dump_json().encode()).hexdigest(),
        "as_of": _utc_text(ledger.as_of),
        "overall": {
            "label": overall_label.value,
            "symbol": overall_label.symbol,
            "title": overall_label.heading,
            "band": overall_band.value,
            "reasons": [{"code": "overall@1", "message": _overall_message(labels, overall_label)}],
        },
        "claims": claims,
        "not_assessed": not_assessed,
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
        }
        for claim in result.get("claims", [])
        if isinstance(claim, dict)
    ]
    blocked["blocked"] = {"gate": "G7", "problems": problems}
    return blocked
