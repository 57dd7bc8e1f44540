"""The ledger-model algorithm for one claim: a pure function of (claim input, config) → trace.

Steps, each named where it happens: 0 applicability; 1 weigh every link (magnitude = the product of its
factors, rounded to the weight places); 2 independence (per group and direction only the strongest link
counts); 3 combine (prior log-odds + kept weights → probability); 4 state; 5 stability from the variants;
6 the review checklist and coverage. The returned trace holds every factor of every link, so a person can
recompute the answer by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Any

from icarus.ledger import (
    Authenticity,
    EditionKind,
    Extraction,
    LedgerClaimType,
    LinkDirection,
    LinkProvenance,
    NotEvaluableReason,
    ObservationKind,
    Relevance,
    ReviewCheck,
    ReviewCheckName,
    SourceKind,
)
from icarus.scoring.ledger.arithmetic import (
    CONTEXT,
    ONE,
    ZERO,
    fixed,
    log_odds,
    logistic,
    near_rounding_boundary,
    product,
    round_half_even,
)
from icarus.scoring.ledger.config import LedgerModelConfig

NOT_SCORED_BY_MODEL = "NOT_SCORED_BY_MODEL"
NON_DIRECTIONAL = "non_directional"
DEPENDENT = "dependent_strongest_only"
OTHER_EDITION = "other_edition"
NOT_APPLICABLE_LINK = "not_applicable"
PRIOR_PLACES = 2  # priors are stated to two places in every config

NOT_APPLICABLE = "NOT_APPLICABLE"
INSUFFICIENT_EVIDENCE = "INSUFFICIENT_EVIDENCE"
SUPPORTED = "SUPPORTED"
LEANS_SUPPORTED = "LEANS_SUPPORTED"
CONTRADICTED = "CONTRADICTED"
LEANS_CONTRADICTED = "LEANS_CONTRADICTED"
UNRESOLVED = "UNRESOLVED"
STATES: tuple[str, ...] = (
    NOT_APPLICABLE,
    INSUFFICIENT_EVIDENCE,
    SUPPORTED,
    LEANS_SUPPORTED,
    CONTRADICTED,
    LEANS_CONTRADICTED,
    UNRESOLVED,
)
HIGH, MEDIUM, LOW = "HIGH", "MEDIUM", "LOW"
_LEVEL_RANK = {LOW: 0, MEDIUM: 1, HIGH: 2}


@dataclass(frozen=True, slots=True)
class LinkInput:
    """One (claim, evidence) link with every field the algorithm reads, already resolved."""

    link_id: str
    evidence_id: str
    direction: LinkDirection
    relevance: Relevance
    observation: ObservationKind
    interpretive_steps: int
    authenticity: Authenticity = Authenticity.UNVERIFIED
    extraction: Extraction = Extraction.UNVERIFIED
    source_kind: SourceKind = SourceKind.OTHER
    group: str | None = None
    origin: str | None = None
    provenance: LinkProvenance = LinkProvenance.INDEPENDENT
    edition: EditionKind = EditionKind.NAMED
    recorded_by: str | None = None


@dataclass(frozen=True, slots=True)
class ClaimInput:
    """One claim with its links and review checks, already resolved."""

    claim_id: str
    claim_type: LedgerClaimType
    links: tuple[LinkInput, ...] = ()
    not_evaluable: NotEvaluableReason | None = None
    recorded_by: str | None = None
    review_checks: tuple[ReviewCheck, ...] = ()


@dataclass(frozen=True, slots=True)
class _Weighed:
    link: LinkInput
    factors: dict[str, Decimal]
    magnitude: Decimal
    sign: int
    group_key: str
    other_edition: bool


def assess_claim(claim: ClaimInput, config: LedgerModelConfig) -> dict[str, Any]:
    """The claim's trace under ``config``: every factor, the state, stability and review coverage."""
    with localcontext(CONTEXT):  # the same digits whatever decimal context the caller has set
        return _assess(claim, config)


def _assess(claim: ClaimInput, config: LedgerModelConfig) -> dict[str, Any]:
    places = config.rounding
    links = sorted(claim.links, key=lambda link: link.link_id)
    weighed = [_weigh(link, config) for link in links]
    model_dependent = claim.claim_type in config.model_dependent_types
    base: dict[str, Any] = {
        "claim": claim.claim_id,
        "claim_type": claim.claim_type.value,
        "truth_evaluable": claim.not_evaluable is None,
        "model_dependent": model_dependent,
        "independence_unreviewed": len({w.link.evidence_id for w in weighed if w.link.group is None}),
    }

    # Step 0: applicability.
    reason = _not_applicable_reason(claim, config)
    if reason is not None:
        checklist, coverage = _review(claim, config, counted=[])
        return {
            **base,
            **_unscored(NOT_APPLICABLE, reason),
            "links": [_link_trace(w, config, effective=None, reason=NOT_APPLICABLE_LINK) for w in weighed],
            "review_checklist": checklist,
            "review_coverage": coverage,
        }

    # Step 2: independence, strongest only per (group, sign).
    kept = _strongest(weighed)
    kept_ids = {w.link.link_id for w in kept.values()}
    link_traces = []
    for w in weighed:
        if w.sign == 0:
            link_traces.append(_link_trace(w, config, effective=ZERO, reason=NON_DIRECTIONAL))
        elif w.other_edition:
            link_traces.append(_link_trace(w, config, effective=ZERO, reason=OTHER_EDITION))
        elif w.link.link_id in kept_ids:
            link_traces.append(_link_trace(w, config, effective=w.magnitude, reason=None))
        else:
            keeper = kept[(w.group_key, w.sign)]
            link_traces.append(
                _link_trace(w, config, effective=ZERO, reason=DEPENDENT, kept=keeper.link.link_id)
            )
    counted = [w for w in kept.values() if w.magnitude > ZERO]
    support = sum(1 for w in counted if w.sign > 0)
    contradict = sum(1 for w in counted if w.sign < 0)
    checklist, coverage = _review(claim, config, counted=counted)
    reviewed = {"review_checklist": checklist, "review_coverage": coverage}
    if not counted:
        return {**base, **_unscored(INSUFFICIENT_EVIDENCE, None), "links": link_traces, **reviewed}

    # Step 3: combine, in ascending link id.
    prior = config.prior[claim.claim_type]
    prior_log_odds = round_half_even(log_odds(prior), places.weights)
    total = ZERO
    for w in sorted(kept.values(), key=lambda w: w.link.link_id):
        total += w.sign * w.magnitude
    evidence_sum = round_half_even(total, places.weights)
    posterior = prior_log_odds + evidence_sum
    raw_probability = logistic(posterior)
    probability = round_half_even(raw_probability, places.probability)

    # Step 4: state; a directional state needs evidence pointing that way.
    state = state_for(probability, support, contradict, config)

    # Step 5: stability from the variants.
    variant_raw = {
        name: logistic(prior_log_odds + evidence_sum * factor)
        for name, factor in (
            ("conservative", config.stability.variants.conservative),
            ("permissive", config.stability.variants.permissive),
        )
    }
    variant_p = {name: round_half_even(raw, places.probability) for name, raw in variant_raw.items()}
    values = [probability, *variant_p.values()]
    spread = max(values) - min(values)
    stability, capped_by = stability_level(spread, support + contradict, model_dependent, config)
    guard = places.boundary_guard
    boundary = any(
        near_rounding_boundary(raw, places.probability, guard)
        for raw in (raw_probability, *variant_raw.values())
    )
    return {
        **base,
        "not_applicable_reason": None,
        "prior": fixed(prior, PRIOR_PLACES),
        "prior_log_odds": fixed(prior_log_odds, places.weights),
        "links": link_traces,
        "evidence_sum": fixed(evidence_sum, places.weights),
        "posterior_log_odds": fixed(posterior, places.weights),
        "probability": fixed(probability, places.probability),
        "rounding_boundary": boundary,
        "variants": {
            **{name: fixed(p, places.probability) for name, p in variant_p.items()},
            "spread": fixed(spread, places.probability),
        },
        "stability": stability,
        "stability_capped_by": capped_by,
        "assessment_state": state,
        "support_groups": support,
        "contradict_groups": contradict,
        "contested": support > 0 and contradict > 0,
        **reviewed,
    }


def _unscored(state: str, reason: str | None) -> dict[str, Any]:
    return {
        "not_applicable_reason": reason,
        "prior": None,
        "prior_log_odds": None,
        "evidence_sum": None,
        "posterior_log_odds": None,
        "probability": None,
        "rounding_boundary": False,
        "variants": None,
        "stability": None,
        "stability_capped_by": None,
        "assessment_state": state,
        "support_groups": 0,
        "contradict_groups": 0,
        "contested": False,
    }


def _not_applicable_reason(claim: ClaimInput, config: LedgerModelConfig) -> str | None:
    if claim.not_evaluable is not None:
        return claim.not_evaluable.value
    if claim.claim_type not in config.scored_types:
        return NOT_SCORED_BY_MODEL
    return None


def _weigh(link: LinkInput, config: LedgerModelConfig) -> _Weighed:
    """Step 1: one link's factors and magnitude."""
    factors = {
        "relevance": config.relevance_weight[link.relevance],
        "observation": config.observation_weight[link.observation],
        "interpretation": max(ZERO, ONE - config.interpretive_step_penalty * link.interpretive_steps),
        "authenticity": config.authenticity_factor[link.authenticity],
        "extraction": config.extraction_factor[link.extraction],
    }
    if config.provenance_factor is not None:
        factors["provenance"] = config.provenance_factor[link.provenance]
    other_edition = False
    if config.edition_factor is not None:
        factors["edition"] = config.edition_factor[link.edition]
        other_edition = link.edition is EditionKind.OTHER
    magnitude = round_half_even(product(list(factors.values())), config.rounding.weights)
    return _Weighed(
        link=link,
        factors=factors,
        magnitude=magnitude,
        sign=config.direction_sign[link.direction],
        group_key=_group_key(link, config),
        other_edition=other_edition,
    )


def _group_key(link: LinkInput, config: LedgerModelConfig) -> str:
    if link.group:
        return link.group
    if config.independence.fallback == "origin" and link.origin:
        return "origin:" + link.origin
    return "solo:" + link.evidence_id


def _strongest(weighed: list[_Weighed]) -> dict[tuple[str, int], _Weighed]:
    """Per (group, sign), the largest magnitude; ties go to the lowest evidence id, then link id."""
    kept: dict[tuple[str, int], _Weighed] = {}
    for w in weighed:
        if w.sign == 0:
            continue
        key = (w.group_key, w.sign)
        current = kept.get(key)
        if current is None or (-w.magnitude, w.link.evidence_id, w.link.link_id) < (
            -current.magnitude,
            current.link.evidence_id,
            current.link.link_id,
        ):
            kept[key] = w
    return kept


def state_for(probability: Decimal, support: int, contradict: int, config: LedgerModelConfig) -> str:
    t = config.state_thresholds
    if probability >= t.SUPPORTED and support:
        return SUPPORTED
    if probability >= t.LEANS_SUPPORTED and support:
        return LEANS_SUPPORTED
    if probability <= t.CONTRADICTED and contradict:
        return CONTRADICTED
    if probability <= t.LEANS_CONTRADICTED and contradict:
        return LEANS_CONTRADICTED
    return UNRESOLVED


def stability_level(
    spread: Decimal, groups: int, model_dependent: bool, config: LedgerModelConfig
) -> tuple[str, str | None]:
    """The level from the spread, then its caps: too few groups (at most MEDIUM), model-dependent (LOW)."""
    rules = config.stability
    level = HIGH if spread <= rules.high_max_spread else MEDIUM if spread <= rules.medium_max_spread else LOW
    capped_by = None
    if groups < rules.min_groups_for_high and _LEVEL_RANK[level] > _LEVEL_RANK[MEDIUM]:
        level, capped_by = MEDIUM, "fewer_groups_than_min_groups_for_high"
    if model_dependent and level != LOW:
        level, capped_by = LOW, "model_dependent_type"
    return level, capped_by


def _review(
    claim: ClaimInput, config: LedgerModelConfig, counted: list[_Weighed]
) -> tuple[dict[str, Any], str]:
    """Step 6: each declared check, who satisfied it, and who did it but cannot count (the claim's author)."""
    author = claim.recorded_by

    def by_author(who: str | None) -> bool:
        return author is not None and who == author

    checklist: dict[str, Any] = {}
    satisfied = 0
    for check in config.review_checklist:
        if check is ReviewCheckName.PRIMARY_SOURCE_REVIEWED:
            primary = [w.link for w in counted if w.link.source_kind in config.primary_source_kinds]
            counts = [link.link_id for link in primary if not by_author(link.recorded_by)]
            shown = [link.link_id for link in primary if by_author(link.recorded_by)]
            entry: dict[str, Any] = {"ok": bool(counts), "by": counts, "by_author": shown}
        else:
            done = [c for c in claim.review_checks if c.check is check]
            counts = sorted(c.check_id for c in done if not by_author(c.performed_by))
            shown = sorted(c.check_id for c in done if by_author(c.performed_by))
            entry = {"ok": bool(counts), "by": counts, "by_author": shown}
            if check is ReviewCheckName.INDEPENDENCE_REVIEWED:
                grouped = bool(counted) and all(w.link.group is not None for w in counted)
                entry["all_counted_grouped"] = grouped
                entry["ok"] = entry["ok"] or grouped
        satisfied += int(entry["ok"])
        checklist[check.value] = entry
    coverage = Decimal(satisfied) / Decimal(len(config.review_checklist)) if config.review_checklist else ZERO
    return checklist, fixed(coverage, config.rounding.coverage)


def _link_trace(
    w: _Weighed,
    config: LedgerModelConfig,
    effective: Decimal | None,
    reason: str | None,
    kept: str | None = None,
) -> dict[str, Any]:
    link = w.link
    entry: dict[str, Any] = {
        "link": link.link_id,
        "evidence": link.evidence_id,
        "direction": link.direction.value,
        "group": link.group,
        "group_key": w.group_key,
        "relevance": link.relevance.value,
        "observation": link.observation.value,
        "interpretive_steps": link.interpretive_steps,
        "authenticity": link.authenticity.value,
        "extraction": link.extraction.value,
        "source_kind": link.source_kind.value,
        "recorded_by": link.recorded_by,
    }
    if config.provenance_factor is not None:
        entry["provenance"] = link.provenance.value
    if config.edition_factor is not None:
        entry["edition"] = link.edition.value
    entry["factors"] = {name: str(value) for name, value in w.factors.items()}
    entry["magnitude"] = fixed(w.magnitude, config.rounding.weights)
    entry["effective_weight"] = None if effective is None else fixed(effective, config.rounding.weights)
    if reason is not None:
        entry["reason"] = reason
    if kept is not None:
        entry["kept"] = kept
    return entry
