"""Score a ledger under an Icarus policy: rules, clusters, decision, confidence, gates, overall result.

``score_ledger`` is a pure function of (ledger, policy): it reads no clock and does no I/O beyond hashing
its own source once. Its result carries the policy name@version, config hash, code hash and a canonical
trace of every factor with its own hash.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from icarus.ledger import Claim, ClaimJudgment, EvidenceItem, Ledger, SourceClass, TemporalScope
from icarus.provenance import ElectionFacts, ProvenanceGraph, build_graph, elect_origins
from icarus.scoring.icarus.aggregate import summarise_cluster, totals
from icarus.scoring.icarus.assess import (
    ItemAssessment,
    UnjudgedItem,
    assess_item,
    exclude,
    unjudged_item,
    zero_validity,
)
from icarus.scoring.icarus.blockers import claim_blockers
from icarus.scoring.icarus.confidence import confidence
from icarus.scoring.icarus.config import PolicyConfig, load_policy
from icarus.scoring.icarus.decision import decide
from icarus.scoring.icarus.gates import (
    GateEvent,
    g0_ineligibility,
    g2_unreliable_image_text,
    g3_rejected_drafts,
    g4_retraction,
    g5_correction_window,
    g6_hold,
    g6_is_ongoing,
)
from icarus.scoring.icarus.magnitude import order_of_magnitude, rivals
from icarus.scoring.icarus.not_live import inputs_in_force
from icarus.scoring.icarus.outcome import ClaimOutcome, Pass
from icarus.scoring.icarus.publish import assemble, utc_text
from icarus.scoring.icarus.selfevidence import check_claim
from icarus.scoring.labels import Band, Label, lower_band

ZERO = Decimal(0)
ONE = Decimal(1)
# R lies in [0, 1]: the most any reviewed record could give a source (H4's "maximum").
REPUTATION_SCALE_TOP = ONE
QUOTED_POST_CAVEAT = "words of the quoted post, not the post itself"
"""Shown on a claim sliced from the quoted post: the subject is still the post that quotes it."""


def score_ledger(
    ledger: Ledger, policy: PolicyConfig | None = None, graph: ProvenanceGraph | None = None
) -> dict[str, Any]:
    """Score every claim and assemble the published result (a JSON-ready dict with its trace).

    ``graph`` lets a caller that already built this ledger's provenance graph (with this policy's
    provenance settings) skip rebuilding it; the result is the same either way.
    """
    policy = policy or load_policy()
    # The graph reads no reputation, so one built from the ledger as given serves the inputs in force too.
    scored = inputs_in_force(ledger, policy)
    if graph is None:
        graph = provenance_graph(scored, policy)
    items = {item.evidence_id: item for item in scored.evidence}
    outcomes: list[ClaimOutcome] = []
    not_assessed: list[dict[str, str]] = []
    for claim in scored.claims:
        if claim.not_assessed is not None:
            not_assessed.append(
                {"id": claim.claim_id, "text": claim.text, "reason": claim.not_assessed.value}
            )
            continue
        outcomes.append(_score_claim(claim, scored, items, graph, policy))
    return assemble(scored, policy, graph, outcomes, not_assessed, given=ledger)


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
    judged_ids = {item.evidence_id for item, _ in judged}
    unjudged = {
        item.evidence_id: unjudged_item(item, claim, policy)
        for item in ledger.evidence
        if item.evidence_id not in judged_ids
    }
    selfcheck = check_claim(claim, ledger, policy)
    misrepresentation = tuple(f"{m.rule}: {m.message}" for m in selfcheck.misrepresentations)

    def run(name: str, drop_unanchored: bool, apply_retraction: bool) -> Pass:
        return _run_pass(
            name,
            claim,
            judged,
            unjudged,
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
    has_retraction = any(a.retracted for a in raw.assessments.values()) or any(
        u.retracted for u in unjudged.values()
    )
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
        # Either way the gate decides the published label, so it is named (and caps the band): a label that
        # only appears once evidence is dropped is not published either, since a gate never creates one.
        detail = (
            "the label does not hold without unanchored evidence"
            if raw.decision.label.decided
            else "a label reached only by dropping unanchored evidence is not published"
        )
        gates.append(GateEvent("G3", "unverifiable", detail))
        label = Label.UNVERIFIABLE
    elif (retracted := g4_retraction(anchored.decision.label, final.decision.label)) is not None:
        label, event = retracted
        gates.append(event)
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
    outcome.blockers = claim_blockers(outcome, items, policy)
    return outcome


def _run_pass(
    name: str,
    claim: Claim,
    judged: list[tuple[EvidenceItem, ClaimJudgment]],
    unjudged: dict[str, UnjudgedItem],
    items: dict[str, EvidenceItem],
    graph: ProvenanceGraph,
    policy: PolicyConfig,
    as_of: datetime,
    misrepresentation: tuple[str, ...],
    drop_unanchored: bool,
    apply_retraction: bool,
) -> Pass:
    assessments: dict[str, ItemAssessment] = {}
    magnitude = policy.live("H14.magnitude")
    found = (
        rivals(graph.cluster_members, (i.evidence_id for i, _ in judged), items, policy) if magnitude else {}
    )
    for item, judgment in judged:
        assessment = assess_item(
            item,
            judgment,
            claim,
            graph,
            policy,
            as_of,
            apply_retraction=apply_retraction,
            magnitude_rival=item.evidence_id in found,
        )
        if drop_unanchored and not assessment.anchored:
            assessment = exclude(assessment, "G3", f"dropped: {assessment.anchor_problem}")
        assessments[item.evidence_id] = assessment

    clusters = elect_origins(graph, _election_facts(items, assessments, unjudged))
    by_cluster: dict[str, list[ItemAssessment]] = {}
    for cluster in clusters:
        members = [assessments[m] for m in cluster.member_ids if m in assessments]
        if not members:
            continue
        origin_id = cluster.origin_id or ""
        origin = assessments.get(origin_id) or unjudged.get(origin_id)
        if apply_retraction and origin is not None and origin.retracted:
            members = [zero_validity(m, "G4", "the cluster's elected origin is retracted") for m in members]
        by_cluster[cluster.cluster_id] = members
    order_of_magnitude(by_cluster, items, found, policy)
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
    items: dict[str, EvidenceItem], assessments: dict[str, ItemAssessment], unjudged: dict[str, UnjudgedItem]
) -> dict[str, ElectionFacts]:
    """Election facts for every item; members not judged against this claim take part too, read by the same
    item-level rules (H9, H10, H11) as judged ones, with the reputation on their record."""
    facts: dict[str, ElectionFacts] = {}
    for evidence_id, item in items.items():
        precedence = (
            2
            if item.source_class is SourceClass.PRIMARY_OFFICIAL
            else int(item.source_class is SourceClass.WIRE)
        )
        assessment = assessments.get(evidence_id)
        if assessment is None:
            other = unjudged[evidence_id]
            facts[evidence_id] = ElectionFacts(
                other.first_seen,
                item.reputation.score,
                precedence,
                eligible=other.election_eligible,
                uncertain_if_elected=other.uncertain_if_elected,
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
        as_of = utc_text(ledger.as_of)
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
    elif claim.source_field.value == "quoted_post":
        caveats.append(QUOTED_POST_CAVEAT)
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
    """H4: an estimated reputation that could change the label (cluster at 0 or at its maximum) is queued.

    The maximum is what a person's review could give the cluster: a reviewed record is no estimate, so the
    provenance discount P goes, and R may be anything up to the top of its scale. Bounding the maximum by the
    estimate's own range instead would queue almost nothing, since a discounted estimate rarely moves a label.
    """
    requests: list[dict[str, str]] = []
    for index, summary in enumerate(final.summaries):
        strongest = summary.strongest
        if strongest is None or not strongest.estimated or summary.stance not in ("support", "refute"):
            continue
        at_zero = replace(summary, weight=ZERO, counted=False)
        top_weight = REPUTATION_SCALE_TOP * strongest.directness * strongest.validity * strongest.confidence
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
