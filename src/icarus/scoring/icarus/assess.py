"""Per-item validity rules and the evidence weight R x D x V x C x P of one item against one claim.

Every factor that moves a weight is recorded as a ``Factor`` naming its rule, so the trace can show
why an item weighs what it weighs. Rules that act on clusters (H14, G4's whole-cluster retraction) and
on the claim (H12/H13 subject figures, H20) live in ``engine`` and ``selfevidence``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal

from icarus.ledger import (
    Access,
    C2paState,
    Claim,
    ClaimJudgment,
    ClaimType,
    Directness,
    EvidenceItem,
    LookupName,
    LookupStatus,
    PublicationType,
    RiskRating,
    ScopeDimension,
    SourceClass,
    SourceTier,
    Stance,
    UpdateType,
)
from icarus.provenance import ProvenanceGraph, UncertainReason
from icarus.scoring.icarus import markers
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.statistics import (
    arithmetic_fails,
    conflates_percent_and_points,
    lacks_base_rate,
)

ONE = Decimal(1)
ZERO = Decimal(0)

ZERO_WEIGHT_CLASSES = {
    SourceClass.AGGREGATOR: "pure aggregator",
    SourceClass.CONTENT_FARM: "content farm",
    SourceClass.PLATFORM: "platform post or platform search result",
}
RETRACTION_UPDATES = frozenset(
    {UpdateType.RETRACTION, UpdateType.PARTIAL_RETRACTION, UpdateType.WITHDRAWAL, UpdateType.REMOVAL}
)
CORRECTION_UPDATES = frozenset({UpdateType.CORRECTION, UpdateType.ERRATUM, UpdateType.CORRIGENDUM})
LIMITED_ACCESS = frozenset({Access.PAYWALL, Access.ABSTRACT_ONLY, Access.SNIPPET_ONLY})
SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")


@dataclass(frozen=True, slots=True)
class Factor:
    """One recorded adjustment: which rule, which term, by how much, and why."""

    rule: str
    term: str
    value: Decimal
    note: str


@dataclass(frozen=True, slots=True)
class ItemAssessment:
    evidence_id: str
    judged_stance: Stance
    stance: Stance  # after the neutral threshold and H23
    confidence: Decimal  # C
    reputation: Decimal  # R
    directness: Decimal  # D
    validity: Decimal  # V
    provenance_discount: Decimal  # P
    excluded_by: tuple[tuple[str, str], ...]  # (rule, reason) pairs that zero the weight
    factors: tuple[Factor, ...]
    flags: tuple[str, ...]  # rule codes that fired on this item, in rule order
    caveats: tuple[str, ...]
    inference_hops: int
    tier: SourceTier
    estimated: bool
    retracted: bool
    open_correction: bool  # unresolved EoC or correction pending (penalty and G5)
    last_change: tuple[datetime, str] | None  # latest correction, update or content change, and which (G5)
    live_coverage: bool
    anchored: bool
    anchor_problem: str
    is_primary: bool
    first_seen: datetime | None
    election_eligible: bool
    uncertain_if_elected: tuple[UncertainReason, ...]
    inaccessible: bool

    @property
    def weight(self) -> Decimal:
        """R x D x V x C x P, or 0 when any exclusion applies."""
        if self.excluded_by:
            return ZERO
        return self.reputation * self.directness * self.validity * self.confidence * self.provenance_discount

    @property
    def directional_weight(self) -> Decimal:
        """The weight this item lends to a side: a neutral item lends none."""
        return ZERO if self.stance is Stance.NEUTRAL else self.weight


@dataclass(slots=True)
class _Builder:
    factors: list[Factor] = field(default_factory=list)
    exclusions: list[tuple[str, str]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)

    def flag(self, rule: str) -> None:
        if rule not in self.flags:
            self.flags.append(rule)

    def multiply(self, rule: str, term: str, value: Decimal, note: str) -> None:
        self.factors.append(Factor(rule, term, value, note))
        self.flag(rule)

    def exclude(self, rule: str, reason: str) -> None:
        self.exclusions.append((rule, reason))
        self.flag(rule)


def assess_item(
    item: EvidenceItem,
    judgment: ClaimJudgment,
    claim: Claim,
    graph: ProvenanceGraph,
    policy: PolicyConfig,
    as_of: datetime,
    *,
    apply_retraction: bool,
    magnitude_rival: bool = False,
) -> ItemAssessment:
    """Apply the per-item rules to one (item, claim) pair. Pure; ``apply_retraction`` exists for G4;
    ``magnitude_rival``: the item states a figure an order of magnitude from another cluster's (H14)."""
    b = _Builder()
    signals = markers.text_signals(item.text, item.title or "", item.excerpt.text if item.excerpt else "")

    reputation = _reputation(item, judgment, claim, policy, b)
    directness = _directness(item, judgment, graph, policy, b, magnitude_rival=magnitude_rival)
    validity_factors_start = len(b.factors)
    retracted = _validity(item, signals, policy, b, apply_retraction=apply_retraction)
    validity = ONE
    for factor in b.factors[validity_factors_start:]:
        if factor.term == "V":
            validity *= factor.value

    estimated = item.reputation.estimated
    provenance_discount = policy.weighting.estimated_reputation_discount if estimated else ONE
    if estimated:
        b.flag("H4")
        b.caveats.append("reputation estimated, not on file")

    _zero_weight_classes(item, judgment, graph, b)
    if signals.instruction_injection:
        b.exclude("H30", "text addressed to an AI model; held at weight 0 pending review")
        b.caveats.append("instruction-like text removed before any model call")
    if item.flags.superseded:
        b.exclude("H27", "superseded by a newer release of the same series")
    inaccessible = item.flags.access is Access.INACCESSIBLE
    if inaccessible:
        b.exclude("H28", "inaccessible")
    _soft_404(item, signals, policy, b)
    for result in item.lookups:
        if result.status is not LookupStatus.OK:
            b.caveats.append(
                f"{result.name.value.replace('_', ' ')} look-up {result.status.value.replace('_', ' ')}"
            )

    stance, confidence = _stance(item, judgment, claim, policy, b)
    first_seen, uncertain = _chronology(item, claim, policy, b)
    election_eligible = not ("H9" in b.flags and policy.live("H9.exclusion"))
    anchored, anchor_problem = anchoring(item)
    open_correction = (
        item.flags.expression_of_concern_open
        or item.flags.correction_pending
        or signals.correction_pending
        or UpdateType.EXPRESSION_OF_CONCERN in _scholarly_updates(item, policy, None)
    )
    return ItemAssessment(
        evidence_id=item.evidence_id,
        judged_stance=judgment.stance.stance,
        stance=stance,
        confidence=confidence,
        reputation=reputation,
        directness=directness,
        validity=validity,
        provenance_discount=provenance_discount,
        excluded_by=tuple(b.exclusions),
        factors=tuple(b.factors),
        flags=tuple(b.flags),
        caveats=tuple(b.caveats),
        inference_hops=judgment.inference_hops,
        tier=_tier(item, judgment, claim),
        estimated=estimated,
        retracted=retracted,
        open_correction=open_correction,
        last_change=_last_change(item, signals, policy),
        live_coverage=item.flags.live_coverage or signals.live_title,
        anchored=anchored,
        anchor_problem=anchor_problem,
        is_primary=item.source_class is SourceClass.PRIMARY_OFFICIAL
        or item.directness is Directness.PRIMARY_DOCUMENT,
        first_seen=first_seen,
        election_eligible=election_eligible,
        uncertain_if_elected=uncertain,
        inaccessible=inaccessible,
    )


def zero_validity(assessment: ItemAssessment, rule: str, note: str) -> ItemAssessment:
    """Set V to 0 (a retracted elected origin takes its whole cluster down: resolved reading 8)."""
    factor = Factor(rule, "V", ZERO, note)
    return replace(assessment, validity=ZERO, factors=(*assessment.factors, factor))


def exclude(assessment: ItemAssessment, rule: str, reason: str) -> ItemAssessment:
    flags = assessment.flags if rule in assessment.flags else (*assessment.flags, rule)
    return replace(assessment, excluded_by=(*assessment.excluded_by, (rule, reason)), flags=flags)


def multiply_validity(assessment: ItemAssessment, rule: str, value: Decimal, note: str) -> ItemAssessment:
    flags = assessment.flags if rule in assessment.flags else (*assessment.flags, rule)
    return replace(
        assessment,
        validity=assessment.validity * value,
        factors=(*assessment.factors, Factor(rule, "V", value, note)),
        flags=flags,
    )


def anchoring(item: EvidenceItem) -> tuple[bool, str]:
    """G3's anchoring test: a server id, a SHA-256 snapshot hash, and an exact excerpt at its offsets."""
    if not item.evidence_id.strip():
        return False, "no server-assigned id"
    digest = (item.content_sha256 or "").removeprefix("sha256:")
    if SHA256_HEX.fullmatch(digest) is None:
        return False, "no SHA-256 snapshot hash"
    if item.excerpt is None:
        return False, "no excerpt"
    if not excerpt_matches(item):
        return False, "excerpt is not the snapshot text at its stored offsets"
    return True, ""


def excerpt_matches(item: EvidenceItem) -> bool:
    """Whether the item's excerpt is non-empty and exactly its text at the stored offsets (G3). Only such an
    excerpt may be shown to a reader as a quote."""
    excerpt = item.excerpt
    return excerpt is not None and bool(excerpt.text) and excerpt.span.slice(item.text) == excerpt.text


def _reputation(
    item: EvidenceItem, judgment: ClaimJudgment, claim: Claim, policy: PolicyConfig, b: _Builder
) -> Decimal:
    record = item.reputation
    score: Decimal = record.score
    if record.estimated:
        # An estimate lies in the published range whoever produced it (a ledger may carry any number).
        low, high = policy.reputation.heuristic_min, policy.reputation.heuristic_max
        bounded = min(max(score, low), high)
        if bounded != score:
            b.factors.append(Factor("H4", "R", bounded, f"estimated reputation held within {low}–{high}"))
            score = bounded
    if record.risk_rating is RiskRating.DEPRECATED:
        b.exclude("H5", "source deprecated on a risk list")
    elif record.on_iffy_index and policy.live("H5.iffy"):
        b.exclude("H5", "source on the Iffy Index")
    elif record.risk_rating is RiskRating.GENERALLY_UNRELIABLE:
        cap = policy.reputation.generally_unreliable_cap
        if score > cap:
            b.factors.append(Factor("H5", "R", cap, "generally unreliable: R capped"))
            score = cap
        b.flag("H5")
    if _valid_claim_review(item, claim):
        floor = policy.reputation.ifcn_signatory
        if score < floor:
            b.factors.append(
                Factor("H8", "R", floor, "IFCN signatory's ClaimReview: one high-reputation origin")
            )
            score = floor
        b.flag("H8")
    return score


def _valid_claim_review(item: EvidenceItem, claim: Claim) -> bool:
    review = item.claim_review
    return (
        review is not None and review.publisher_ifcn_verified and claim.claim_id in review.matches_claim_ids
    )


def _tier(item: EvidenceItem, judgment: ClaimJudgment, claim: Claim) -> SourceTier:
    if _valid_claim_review(item, claim):
        return SourceTier.FACT_CHECKER
    return item.reputation.tier


def _directness(
    item: EvidenceItem,
    judgment: ClaimJudgment,
    graph: ProvenanceGraph,
    policy: PolicyConfig,
    b: _Builder,
    *,
    magnitude_rival: bool = False,
) -> Decimal:
    values = policy.directness
    base = {
        Directness.PRIMARY_DOCUMENT: values.primary_document,
        Directness.ORIGINAL_REPORTING: values.original_reporting,
        Directness.SECONDARY_NAMED: values.secondary_named,
        Directness.RELEASE: values.release,
        Directness.OUT_OF_SCOPE: values.out_of_scope,
    }[item.directness]
    directness = base
    if item.source_class is SourceClass.RELEASE_SERVICE or item.directness is Directness.RELEASE:
        b.flag("H19")
        if directness > values.release:
            directness = values.release
            b.factors.append(Factor("H19", "D", directness, "release host or release wire"))
    if item.evidence_id in graph.release_overlap:
        b.flag("H19")  # clustered with the release in every version; demoted only where live
        if policy.live("H19.overlap_demotion") and directness > values.release:
            directness = values.release
            overlap = graph.release_overlap[item.evidence_id]
            b.factors.append(Factor("H19", "D", directness, f"{overlap} of its shingles come from a release"))
    # A quantity ten times another cluster's is H14's to judge, not a different quantity (magnitude.py).
    quantity_only = tuple(judgment.scope.mismatched) == (ScopeDimension.QUANTITY,)
    if not judgment.scope.matches and not (magnitude_rival and quantity_only):
        dims = ", ".join(d.value for d in judgment.scope.mismatched) or "scope"
        directness = values.out_of_scope
        b.factors.append(Factor("H26", "D", directness, f"out of scope ({dims}): context only"))
        b.flag("H26")
    if item.flags.access in LIMITED_ACCESS:
        b.flag("H28")  # flagged even when D is already at or below the cap
        if directness > values.limited_access_cap:
            directness = values.limited_access_cap
            b.factors.append(Factor("H28", "D", directness, f"access limited ({item.flags.access.value})"))
    return directness


def _validity(
    item: EvidenceItem,
    signals: markers.TextSignals,
    policy: PolicyConfig,
    b: _Builder,
    *,
    apply_retraction: bool,
) -> bool:
    """Multiply in every validity factor; return whether the item is retracted."""
    v = policy.validity
    updates = _scholarly_updates(item, policy, b)
    retracted = item.flags.retracted or bool(updates & RETRACTION_UPDATES)
    if retracted:
        b.flag("G4")
        if apply_retraction:
            b.multiply("H16", "V", v.retracted, "retracted, withdrawn or removed")
    if item.flags.expression_of_concern_open or UpdateType.EXPRESSION_OF_CONCERN in updates:
        b.multiply("H16", "V", v.expression_of_concern, "expression of concern")
    corrected = item.flags.corrected or bool(updates & CORRECTION_UPDATES)
    if corrected or signals.correction_marker:
        b.multiply("H25", "V", v.corrected, "corrected")
    preprint = _preprint_reason(item, signals, policy)
    if preprint is not None:
        b.multiply("H17", "V", v.preprint, preprint)
    if item.flags.anonymous_sourcing or signals.anonymous_sourcing:
        b.multiply("H11", "V", v.anonymous_sourcing, "anonymous sourcing")
    if item.flags.conflict_of_interest or signals.conflict_of_interest:
        b.multiply("H18", "V", v.conflict_of_interest, "disclosed conflict of interest")
    _statistical_flags(item, policy, b)
    c2pa = _c2pa_state(item, policy)
    if c2pa is C2paState.INVALID:
        b.multiply("H22", "V", v.c2pa_invalid, "invalid C2PA manifest")
    return retracted


def _scholarly_updates(item: EvidenceItem, policy: PolicyConfig, b: _Builder | None) -> frozenset[UpdateType]:
    """H16: notices from the look-up adapter (when wired) and from any other route (always); ``b``, when
    given, records the caveat of a look-up the policy does not read."""
    found: set[UpdateType] = set()
    lookup = item.lookup(LookupName.SCHOLARLY_UPDATES)
    if lookup is not None and lookup.status is LookupStatus.OK:
        if policy.live("H16.lookup"):
            found.update(
                u.update_type for u in lookup.updates if u.source in ("crossref", "retraction_watch")
            )
        elif b is not None:
            b.caveats.append("scholarly update look-up not wired under this policy")
    if lookup is not None:
        found.update(
            u.update_type for u in lookup.updates if u.source not in ("crossref", "retraction_watch")
        )
    return frozenset(found)


def _c2pa_state(item: EvidenceItem, policy: PolicyConfig) -> C2paState:
    state = item.flags.c2pa_state
    lookup = item.lookup(LookupName.C2PA)
    if (
        lookup is not None
        and lookup.status is LookupStatus.OK
        and policy.live("H22.lookup")
        and lookup.c2pa_state
    ):
        state = lookup.c2pa_state
    return state


def _preprint_reason(item: EvidenceItem, signals: markers.TextSignals, policy: PolicyConfig) -> str | None:
    """H17: why the item counts as not peer reviewed, or None. A preprint flag, class or host always counts.
    Where the metadata part is live the item's own metadata is read before its wording: a journal article
    (journal title, ISSN or that type) is not discounted for the word "preprint" on its page (an earlier
    version, a link), a DOI alone settles nothing (preprints have DOIs), and a scholarly item with no DOI,
    ISSN or journal is discounted. Crossref's record of the DOI, where its look-up is live and answered,
    says the kind before the page does (posted content is Crossref's type for preprints)."""
    if item.flags.preprint or item.source_class is SourceClass.PREPRINT_SERVER:
        return _PREPRINT
    if item.domain.lower().removeprefix("www.") in markers.PREPRINT_HOSTS:
        return _PREPRINT
    metadata = policy.live("H17.metadata")
    kind, said_by = _publication_type(item, policy)
    if metadata and kind in _UNREVIEWED_TYPES:
        return f"{_UNREVIEWED_TYPES[kind]} by {said_by}, not peer reviewed"
    journal = kind is PublicationType.JOURNAL_ARTICLE or item.issn or item.container_title
    if metadata and journal:
        return None
    if signals.preprint_wording:
        return _PREPRINT
    if metadata and item.source_class is SourceClass.SCHOLARLY and not item.doi:
        return _PREPRINT
    return None


def _publication_type(item: EvidenceItem, policy: PolicyConfig) -> tuple[PublicationType | None, str]:
    """The item's kind and who says so: Crossref's record when its look-up is live and gave a type, else the
    page's own metadata."""
    lookup = item.lookup(LookupName.SCHOLARLY_UPDATES)
    if (
        lookup is not None
        and lookup.status is LookupStatus.OK
        and lookup.publication_type is not None
        and policy.live("H16.lookup")
    ):
        return lookup.publication_type, "Crossref's record"
    return item.publication_type, "its metadata"


_PREPRINT = "preprint, not peer reviewed"
_UNREVIEWED_TYPES: dict[PublicationType | None, str] = {
    PublicationType.PREPRINT: "a preprint",
    PublicationType.REPORT: "a report or working paper",
}


def _statistical_flags(item: EvidenceItem, policy: PolicyConfig, b: _Builder) -> None:
    """H12, H13 and H15 on the item's own figures; each flag that fires multiplies by the same factor."""
    factor = policy.validity.statistical_flag
    tolerance = policy.statistics.relative_tolerance
    conflated = [f for f in item.figures if conflates_percent_and_points(f, None, tolerance)]
    if conflated:
        b.multiply("H12", "V", factor, f"percent and percentage points conflated ({conflated[0].measure})")
    if policy.live("H13.arithmetic"):
        failing = [f for f in item.figures if f not in conflated and arithmetic_fails(f, tolerance)]
        if failing:
            b.multiply("H13", "V", factor, f"figure does not follow from its inputs ({failing[0].measure})")
    bare = [f for f in item.figures if lacks_base_rate(f)]
    if bare:
        b.multiply("H15", "V", factor, f"relative figure without a base rate ({bare[0].measure})")


def _zero_weight_classes(
    item: EvidenceItem, judgment: ClaimJudgment, graph: ProvenanceGraph, b: _Builder
) -> None:
    if item.source_class is SourceClass.SATIRE and not judgment.claim_is_about_source:
        b.exclude("H6", "satire")
    elif item.source_class in ZERO_WEIGHT_CLASSES:
        b.exclude("H6", ZERO_WEIGHT_CLASSES[item.source_class])
    if item.flags.self_citation:
        b.exclude("H6", "self-citation")
    if item.evidence_id in graph.reaches_subject:
        b.exclude("H7", "derives from the material under review")


def _soft_404(item: EvidenceItem, signals: markers.TextSignals, policy: PolicyConfig, b: _Builder) -> None:
    if item.snapshot is not None and item.snapshot.archived:
        b.flag("H24")
        b.caveats.append("archived copy used: the live page could not be snapshotted")
    if not policy.live("H24.drift"):
        return
    lookup = item.lookup(LookupName.ARCHIVE)
    soft_404 = signals.not_found_title or (
        lookup is not None and lookup.status is LookupStatus.OK and bool(lookup.soft_404)
    )
    if soft_404 and not (item.snapshot and item.snapshot.archived):
        b.exclude("H24", "soft 404: the page is a not-found template")
    if lookup is not None and lookup.status is LookupStatus.OK and lookup.content_changed:
        b.flag("H24")
        b.caveats.append("changed since retrieval")
        if lookup.excerpt_still_present is False:
            b.exclude("H24", "excerpt no longer on the page")


def _stance(
    item: EvidenceItem, judgment: ClaimJudgment, claim: Claim, policy: PolicyConfig, b: _Builder
) -> tuple[Stance, Decimal]:
    stance = judgment.stance.stance
    confidence: Decimal = judgment.stance.confidence
    match = item.image_match
    if claim.claim_type is ClaimType.IMAGE_CONTEXT and match is not None:
        event_time = claim.event_started_at
        if (
            event_time is not None
            and match.hamming_distance <= policy.media.phash_max_distance
            and match.copy_first_seen_at <= event_time - timedelta(hours=policy.media.min_age_hours)
        ):
            b.flag("H23")
            b.factors.append(
                Factor("H23", "C", ONE, "the image circulated before the event it is said to show")
            )
            return Stance.REFUTE, ONE
    if stance is not Stance.NEUTRAL and confidence < policy.weighting.neutral_below_confidence:
        b.factors.append(Factor("C", "stance", confidence, "stance confidence below threshold: neutral"))
        return Stance.NEUTRAL, confidence
    return stance, confidence


@dataclass(frozen=True, slots=True)
class UnjudgedItem:
    """What origin election and G4 need from an item with no judgment for the claim: a cluster member that
    lends no weight can still be its elected origin, and a retracted origin takes its cluster down."""

    first_seen: datetime | None
    election_eligible: bool
    uncertain_if_elected: tuple[UncertainReason, ...]
    retracted: bool


def unjudged_item(item: EvidenceItem, claim: Claim, policy: PolicyConfig) -> UnjudgedItem:
    """The item-level readings of ``assess_item`` that do not depend on a judgment (H9, H10, H11, H16)."""
    b = _Builder()
    signals = markers.text_signals(item.text, item.title or "", item.excerpt.text if item.excerpt else "")
    retracted = _validity(item, signals, policy, b, apply_retraction=False)
    first_seen, uncertain = _chronology(item, claim, policy, b)
    eligible = not ("H9" in b.flags and policy.live("H9.exclusion"))
    return UnjudgedItem(first_seen, eligible, uncertain, retracted)


@dataclass(frozen=True, slots=True)
class Dating:
    """H10's reading of an item's dates, independent of any claim."""

    first_seen: datetime | None  # publication time, or retrieval time standing in for an impossible one
    impossible_date: str  # why the publication date was set aside ("" when it was not)


def dating(item: EvidenceItem, policy: PolicyConfig) -> Dating:
    """H10: a publication date after retrieval (beyond the tolerance) or, where registration look-ups are
    live, before the domain existed, is not a date: retrieval time stands in."""
    published = item.published_at
    problem = ""
    if published is not None and item.retrieved_at is not None:
        limit = item.retrieved_at + timedelta(minutes=policy.dates.future_tolerance_minutes)
        if published > limit:
            problem = "publication date in the future: retrieval time used"
    if published is not None and not problem and policy.live("H10.registration"):
        rdap = item.lookup(LookupName.RDAP)
        created = rdap.domain_created_at if rdap is not None and rdap.status is LookupStatus.OK else None
        if created is not None and published < created:
            problem = "publication date precedes the domain's registration: retrieval time used"
    first_seen = item.retrieved_at if problem or published is None else published
    return Dating(first_seen, problem)


def _chronology(
    item: EvidenceItem, claim: Claim, policy: PolicyConfig, b: _Builder
) -> tuple[datetime | None, tuple[UncertainReason, ...]]:
    """First-seen time for origin election, with H9/H10/H11 reasons that make an election uncertain."""
    reasons: list[UncertainReason] = []
    dated = dating(item, policy)
    if dated.impossible_date:
        b.flag("H10")
        b.caveats.append(dated.impossible_date)
        reasons.append(UncertainReason.FUTURE_DATE)
    if _date_event_mismatch(item, claim, policy):
        b.flag("H9")
        reasons.append(UncertainReason.DATE_EVENT_MISMATCH)
    if "H11" in b.flags:
        reasons.append(UncertainReason.ANONYMOUS_SOURCING)
    return dated.first_seen, tuple(reasons)


def _date_event_mismatch(item: EvidenceItem, claim: Claim, policy: PolicyConfig) -> bool:
    if item.event_date is None:
        return False
    if item.published_at is not None and item.published_at.date() < item.event_date:
        return True
    if claim.event_date is not None:
        window = timedelta(days=policy.dates.event_window_days)
        return abs(item.event_date - claim.event_date) > window
    return False


def _last_change(
    item: EvidenceItem, signals: markers.TextSignals, policy: PolicyConfig
) -> tuple[datetime, str] | None:
    """G5's trigger times: a correction (flagged, or marked in the text: H25), any update the page states,
    and, where H24's drift look-up is live, a content hash that changed since retrieval. The latest wins."""
    changes: list[tuple[datetime, str]] = []
    if item.flags.corrected_at is not None:
        changes.append((item.flags.corrected_at, "corrected"))
    elif signals.correction_marker and (item.updated_at or item.published_at) is not None:
        changes.append((item.updated_at or item.published_at, "corrected"))  # type: ignore[arg-type]
    if item.updated_at is not None:
        changes.append((item.updated_at, "updated"))
    archive = item.lookup(LookupName.ARCHIVE)
    if (
        policy.live("H24.drift")
        and archive is not None
        and archive.status is LookupStatus.OK
        and archive.content_changed
        and archive.observed_at is not None
    ):
        changes.append((archive.observed_at, "changed since retrieval"))
    return max(changes, key=lambda change: change[0]) if changes else None
