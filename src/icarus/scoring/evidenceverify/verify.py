"""EvidenceVerify's six steps over one claim, as pure functions of (claim, store, config, answers, search).

1. Resolve the claim's evidence ids in the store; an id that is not there is noted ``evidence_missing``.
2. Source independence: items of one publisher group are one source, every item redistributing one wire
   story is one source (AP, Reuters, AFP; named in ``wire_service`` or read from a dateline or credit in
   the snippet), and items at one canonical URL are one source.
3. Twitter items: the verification priority follows the social-credibility flag; high and medium priority
   items trigger an independent search; each gets a corroboration status from independent non-social
   sources (store items and search hits): contradicted, corroborated, or uncorroborated.
4. Cross-source agreement: a stance judge reads each snippet against the claim; any independent non-social
   source that contradicts the claim makes it contested, with the points of disagreement listed.
5. Independent re-search (``--independent-search``, or forced by twitter priority): hits are judged the same
   way and join the count as sources of their own; no hits is "no independent confirmation found", and a
   search that could not run is "not run": neither ever rejects a claim.
6. The status: contested on disagreement; stale when fact-track evidence has expired; verified with enough
   independent non-social sources (a critical claim needs more than a peripheral one, which may rest on one
   reputable source); otherwise unverified. Twitter rules and missing evidence can only cap a verified
   result. The result then goes through the allowed status transitions.

Criticality is a judge's typed answer; the embedded judge is deterministic (``criticality.py``). The stance
questions are written here (``stance_requests``: the sentence each source is read on is chosen by the
``excerpt`` passed in); the front door asks the judge and passes the answers in, as it passes what the
search found, so nothing here runs a model, reads the network or the research providers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from icarus.judges.protocol import JudgeRequest, StanceVerdict
from icarus.ledger import Span, Stance
from icarus.provenance.canonical import canonical_url, registered_domain
from icarus.provenance.citations import normalise_name
from icarus.scoring.evidenceverify.criticality import CriticalityAnswer
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    ClaimStatus,
    ConfidenceLevel,
    CorroborationStatus,
    CredibilityTier,
    EvidenceRecord,
    EvidenceStore,
    EvidenceTrack,
    EvidenceVerifyConfig,
    FreshnessStatus,
    SocialCredibilityFlag,
    SourceType,
    VerificationPriority,
    VerificationResult,
)

__all__ = [
    "ALLOWED_TRANSITIONS",
    "SOCIAL_HOSTS",
    "ExcerptPicker",
    "FoundSource",
    "SearchOutcome",
    "StanceAnswers",
    "answer_to",
    "hit_identity",
    "merge_by_url",
    "search_needed",
    "source_key",
    "stance_request",
    "stance_requests",
    "transition",
    "verify_claim",
]

ALLOWED_TRANSITIONS: dict[ClaimStatus, frozenset[ClaimStatus]] = {
    ClaimStatus.UNVERIFIED: frozenset({ClaimStatus.VERIFIED, ClaimStatus.CONTESTED, ClaimStatus.STALE}),
    ClaimStatus.VERIFIED: frozenset({ClaimStatus.CONTESTED, ClaimStatus.STALE}),
    ClaimStatus.CONTESTED: frozenset({ClaimStatus.VERIFIED, ClaimStatus.STALE}),
    ClaimStatus.STALE: frozenset({ClaimStatus.VERIFIED}),
}
SOCIAL_HOSTS = frozenset(
    {
        "x.com",
        "twitter.com",
        "facebook.com",
        "instagram.com",
        "tiktok.com",
        "reddit.com",
        "threads.net",
        "t.me",
    }
)
NO_CONFIRMATION = "no independent confirmation found"
_WIRE_MARK = re.compile(
    r"\((?P<a>AP|Reuters|AFP)\)\s*[\u2014\u2013-]|\b(?:[Bb]y|[Ss]ource:|\u00a9)\s+(?:[Tt]he\s+)?"
    r"(?P<b>Associated Press|Reuters|AFP|Agence France[- ]Presse)\b"
)


ExcerptPicker = Callable[[str, str], Span]
"""``(text, claim_text) -> span``: the sentence of a source's text that the stance judge is given to read."""

StanceAnswers = Mapping[JudgeRequest, StanceVerdict]
"""The stance judge's answer to each question of ``stance_requests``, as the front door collected them."""


class FoundSource(Protocol):
    """What step 5 reads of one search hit (the research providers' ``SearchHit`` is one)."""

    @property
    def url(self) -> str: ...
    @property
    def domain(self) -> str: ...
    @property
    def publisher(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def quotable_snippet(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """What the independent search returned: ``ran`` with its hits, or ``not run`` with why."""

    ran: bool
    hits: tuple[FoundSource, ...] = ()
    detail: str = ""


@dataclass(frozen=True, slots=True)
class _Reading:
    """One source's reading of the claim: a store record or a search hit."""

    label: str  # "e3 (Reuters)" or "search: example.org"
    key: str  # independence key
    stance: Stance
    non_social: bool
    reputable: bool
    tier1: bool


def search_needed(claim: ClaimItem, store: EvidenceStore, independent_search: bool) -> list[str]:
    """Why an independent search must run: asked for, or a high or medium priority twitter item."""
    reasons = ["independent search requested"] if independent_search else []
    for evidence_id in claim.evidence_ids:
        record = store.get(evidence_id)
        urgent = (VerificationPriority.HIGH, VerificationPriority.MEDIUM)
        if record is not None and record.source_type is SourceType.TWITTER and record.priority in urgent:
            reasons.append(f"{evidence_id}: twitter item of {record.priority.value} verification priority")
    return reasons


def source_key(record: EvidenceRecord) -> str:
    """The independence key: the wire for redistributed wire copy, else the publisher group."""
    wire = record.wire_service
    if wire is None:
        match = _WIRE_MARK.search(record.snippet) or _WIRE_MARK.search(record.title)
        if match is not None:
            wire = match.group("a") or match.group("b")
    if wire:
        return "wire:" + normalise_name(wire)
    return "group:" + normalise_name(record.publisher_group or record.publisher)


def merge_by_url(records: Sequence[EvidenceRecord]) -> dict[str, str]:
    """Evidence id -> independence key, where items sharing a canonical URL share one key."""
    keys = {r.evidence_id: source_key(r) for r in records}
    by_url: dict[str, str] = {}
    for record in records:
        url = canonical_url(record.url)
        if url in by_url:
            first = by_url[url]
            old, new = keys[record.evidence_id], keys[first]
            keys = {k: (new if v == old else v) for k, v in keys.items()}
        else:
            by_url[url] = record.evidence_id
    return keys


def stance_request(
    claim: ClaimItem, evidence_id: str, text: str, excerpt: ExcerptPicker
) -> JudgeRequest | None:
    """The question the judge is asked about ``text``; None when there is no text (it reads as neutral).
    The judge is given the sentence a check would quote from it (``excerpt``; the front door passes
    ``best_excerpt``: the one sharing most with the claim that asserts rather than reports it) and the
    whole text for context, as in ``icarus check``. Given a whole debunk as its excerpt, a judge weighs
    each sentence and takes the clearest side, which is the debunk's restatement of the claim ("Posts claim
    that X"): the page would be read as confirming what it refutes."""
    if not text.strip():
        return None
    return JudgeRequest(
        claim_id=claim.claim_id,
        claim_text=claim.text,
        evidence_id=evidence_id,
        excerpt=excerpt(text, claim.text).slice(text),
        evidence_text=text,
    )


def answer_to(answers: StanceAnswers, request: JudgeRequest) -> StanceVerdict:
    """The judge's answer to ``request``; a question the front door did not ask is a defect, not neutral."""
    verdict = answers.get(request)
    if verdict is None:
        raise LookupError(
            f"no stance answer for {request.evidence_id} on {request.claim_id}: "
            "ask the judge every question of stance_requests first"
        )
    return verdict


def _stance(answers: StanceAnswers, request: JudgeRequest | None, threshold: Decimal) -> Stance:
    """How a source reads on the claim: neutral without text, on a failed answer or below ``threshold``."""
    if request is None:
        return Stance.NEUTRAL
    verdict = answer_to(answers, request)
    if verdict.failure is not None or verdict.confidence < threshold:
        return Stance.NEUTRAL
    return verdict.stance


def _record_text(record: EvidenceRecord) -> str:
    return record.snippet or record.title


def _resolved(claim: ClaimItem, store: EvidenceStore) -> list[EvidenceRecord]:
    return [r for r in (store.get(i) for i in claim.evidence_ids) if r is not None]


def _expired(claim: ClaimItem, resolved: Sequence[EvidenceRecord]) -> list[str]:
    """The ids of fact-track evidence past its freshness, which a fact-track claim does not count."""
    if claim.evidence_track is not EvidenceTrack.FACT:
        return []
    return [
        r.evidence_id
        for r in resolved
        if r.evidence_track is EvidenceTrack.FACT and r.freshness_status is FreshnessStatus.STALE
    ]


def stance_requests(
    claim: ClaimItem,
    store: EvidenceStore,
    excerpt: ExcerptPicker,
    search: SearchOutcome | None,
    *,
    every_record: bool = False,
) -> list[JudgeRequest]:
    """Every question steps 4 and 5 read an answer to, each once, in order: the cited records that count,
    then the search hits (when the search ran). ``every_record`` adds the expired fact-track records the
    steps skip, whose answers the inputs document (``trace``) still states."""
    resolved = _resolved(claim, store)
    expired = set() if every_record else set(_expired(claim, resolved))
    asked = [
        stance_request(claim, r.evidence_id, _record_text(r), excerpt)
        for r in resolved
        if r.evidence_id not in expired
    ]
    if search is not None and search.ran:
        for index, hit in enumerate(search.hits, start=1):
            asked.append(stance_request(claim, f"search-{index}", hit_identity(hit)[3], excerpt))
    return list(dict.fromkeys(r for r in asked if r is not None))


def hit_identity(hit: FoundSource) -> tuple[str, str, str, str]:
    """A search hit's name, registered host, independence key and the text its stance is judged on."""
    host = registered_domain(hit.domain or "") if hit.domain else ""
    name = hit.publisher or host or hit.url
    text = hit.quotable_snippet or hit.text[:2000]
    match = _WIRE_MARK.search(text)
    key = (
        "wire:" + normalise_name(match.group("a") or match.group("b"))
        if match
        else "group:" + normalise_name(name)
    )
    return name, host, key, text


def _hit_reading(
    hit: FoundSource,
    index: int,
    claim: ClaimItem,
    answers: StanceAnswers,
    excerpt: ExcerptPicker,
    config: EvidenceVerifyConfig,
) -> _Reading:
    name, host, key, text = hit_identity(hit)
    request = stance_request(claim, f"search-{index}", text, excerpt)
    return _Reading(
        label=f"search: {name}",
        key=key,
        stance=_stance(answers, request, config.stance_confidence),
        non_social=host not in SOCIAL_HOSTS,
        reputable=False,
        tier1=False,
    )


def transition(previous: ClaimStatus, recommended: ClaimStatus) -> ClaimStatus:
    """The status after the transition rules: the recommendation when allowed, else the previous status."""
    if recommended is previous or recommended in ALLOWED_TRANSITIONS[previous]:
        return recommended
    return previous


def verify_claim(
    claim: ClaimItem,
    store: EvidenceStore,
    config: EvidenceVerifyConfig,
    *,
    answers: StanceAnswers,
    excerpt: ExcerptPicker,
    criticality: CriticalityAnswer,
    search: SearchOutcome | None,
) -> VerificationResult:
    """The six steps, reading the judge's ``answers`` to the questions of ``stance_requests`` (asked with
    the same ``excerpt`` and ``search``); ``LookupError`` when one of them was not answered."""
    notes: list[str] = []
    # Step 1: resolve.
    resolved = _resolved(claim, store)
    missing = [i for i in claim.evidence_ids if store.get(i) is None]
    if missing:
        notes.append("evidence_missing: " + ", ".join(missing) + " not in the evidence store")
    if not claim.evidence_ids:
        notes.append("the claim cites no evidence")
    unreachable = [r.evidence_id for r in resolved if r.source_reachable is False]
    if unreachable:
        notes.append("source_unreachable: " + ", ".join(unreachable) + " (kept; not invalidated)")

    # Freshness: expired fact-track evidence does not count for a fact-track claim.
    fact_claim = claim.evidence_track is EvidenceTrack.FACT
    expired = _expired(claim, resolved)
    usable = [r for r in resolved if r.evidence_id not in expired]
    if expired:
        notes.append("expired fact-track evidence not counted: " + ", ".join(expired))

    # Steps 2 and 4: independence keys and each source's reading.
    keys = merge_by_url(resolved)
    readings: list[_Reading] = []
    social_records: list[tuple[EvidenceRecord, Stance]] = []
    for record in usable:
        request = stance_request(claim, record.evidence_id, _record_text(record), excerpt)
        stance = _stance(answers, request, config.stance_confidence)
        social = (
            record.source_type is SourceType.TWITTER or record.credibility_tier not in config.non_social_tiers
        )
        if social:
            social_records.append((record, stance))
        readings.append(
            _Reading(
                label=f"{record.evidence_id} ({record.publisher})",
                key=keys[record.evidence_id],
                stance=stance,
                non_social=not social,
                reputable=record.credibility_tier in config.reputable_tiers,
                tier1=record.credibility_tier is CredibilityTier.TIER1,
            )
        )

    # Step 5: independent re-search.
    if search is None:
        search_state = "not run"
    elif not search.ran:
        search_state = f"not run: {search.detail}" if search.detail else "not run"
        notes.append(f"independent search {search_state}; this is not evidence against the claim")
    else:
        search_state = "ran"
        hits = [
            _hit_reading(hit, index, claim, answers, excerpt, config)
            for index, hit in enumerate(search.hits, start=1)
        ]
        readings += hits
        confirming = sorted({h.label for h in hits if h.stance is Stance.SUPPORT and h.non_social})
        denying = sorted({h.label for h in hits if h.stance is Stance.REFUTE and h.non_social})
        if confirming:
            notes.append("independent search confirms: " + ", ".join(confirming))
        if denying:
            notes.append("independent search contradicts: " + ", ".join(denying))
        if not confirming and not denying:
            notes.append(NO_CONFIRMATION)

    non_social = [r for r in readings if r.non_social]
    supporting = [r for r in non_social if r.stance is Stance.SUPPORT]
    refuting = [r for r in non_social if r.stance is Stance.REFUTE]
    support_keys = sorted({r.key for r in supporting})

    # Step 3: twitter corroboration, from independent non-social sources.
    twitter_rows: list[dict[str, object]] = []
    cap_unverified: list[str] = []
    contradicted_by: list[str] = []
    for record, _ in social_records:
        if record.source_type is not SourceType.TWITTER:
            continue
        if refuting:
            corroboration = CorroborationStatus.CONTRADICTED
            contradicted_by += [r.label for r in refuting]
        elif supporting:
            corroboration = CorroborationStatus.CORROBORATED
        else:
            corroboration = CorroborationStatus.UNCORROBORATED
        twitter_rows.append(
            {
                "evidence_id": record.evidence_id,
                "verification_priority": record.priority.value,
                "corroboration_status": corroboration.value,
            }
        )
        flag = record.social_credibility_flag
        if corroboration is CorroborationStatus.UNCORROBORATED:
            if flag is SocialCredibilityFlag.LIKELY_UNRELIABLE:
                cap_unverified.append(f"{record.evidence_id}: flagged (suspected misinformation)")
            else:
                cap_unverified.append(f"{record.evidence_id}: twitter-only, uncorroborated")
        elif (
            flag is SocialCredibilityFlag.LIKELY_UNRELIABLE
            and len(support_keys) < config.strong_independent_sources
        ):
            cap_unverified.append(
                f"{record.evidence_id}: flagged likely unreliable; fewer than "
                f"{config.strong_independent_sources} independent sources confirm"
            )
    if contradicted_by:
        notes.append("twitter claim contradicted by " + ", ".join(sorted(set(contradicted_by))))

    # Step 6: status.
    disagreement = []
    if refuting:
        disagreement = [f"{r.label} supports the claim" for r in supporting] + [
            f"{r.label} contradicts the claim" for r in refuting
        ]
    critical = criticality.critical
    reputable_support = sorted({r.key for r in supporting if r.reputable})
    if refuting:
        recommended = ClaimStatus.CONTESTED
        notes.append(
            "sources conflict: "
            + ("partially" if supporting else "fully, against the claim")
            + "; "
            + "; ".join(disagreement)
        )
    elif fact_claim and expired and not usable:
        recommended = ClaimStatus.STALE
        notes.append("all of the claim's fact-track evidence has expired")
    elif (critical and len(support_keys) >= config.min_independent_sources_critical) or (
        not critical and len(reputable_support) >= config.min_sources_peripheral
    ):
        recommended = ClaimStatus.VERIFIED
    else:
        recommended = ClaimStatus.UNVERIFIED
        if not readings:
            notes.append("no usable evidence")
        elif not non_social:
            notes.append("only social sources")
        elif critical:
            notes.append(
                f"{len(support_keys)} independent non-social source(s) agree; a critical claim needs "
                f"{config.min_independent_sources_critical}"
            )
        else:
            notes.append("no reputable source agrees")
    if recommended is ClaimStatus.VERIFIED and (cap_unverified or missing):
        recommended = ClaimStatus.UNVERIFIED
        notes.append(
            "capped at unverified: " + "; ".join(cap_unverified + (["evidence_missing"] if missing else []))
        )
    elif cap_unverified:
        notes += cap_unverified

    status = transition(claim.status, recommended)
    if status is not recommended:
        notes.append(
            f"the evidence points to {recommended.value}, but {claim.status.value} \u2192 {recommended.value} "
            f"is not an allowed transition; the status stays {claim.status.value}"
        )
    if recommended is ClaimStatus.VERIFIED and status is ClaimStatus.VERIFIED:
        notes.append(f"verified by {len(support_keys)} independent source(s): " + ", ".join(support_keys))

    return VerificationResult(
        model=config.ref,
        config_hash=config.config_hash,
        claim_id=claim.claim_id,
        previous_status=claim.status,
        recommended_status=recommended,
        status=status,
        confidence_level=_confidence(
            status, recommended, supporting, refuting, support_keys, config, bool(missing or unreachable)
        ),
        verification_notes=notes,
        critical=critical,
        criticality_by=criticality.judge,
        evidence_missing=missing,
        source_unreachable=unreachable,
        independent_sources=support_keys,
        disagreement=disagreement,
        twitter=twitter_rows,
        independent_search=search_state,
    )


_DOWN = {
    ConfidenceLevel.HIGH: ConfidenceLevel.MEDIUM,
    ConfidenceLevel.MEDIUM: ConfidenceLevel.LOW,
    ConfidenceLevel.LOW: ConfidenceLevel.LOW,
}


def _confidence(
    status: ClaimStatus,
    recommended: ClaimStatus,
    supporting: list[_Reading],
    refuting: list[_Reading],
    support_keys: list[str],
    config: EvidenceVerifyConfig,
    gaps: bool,
) -> ConfidenceLevel:
    """high: verified by many independent sources or with an authoritative one; medium: verified otherwise,
    or contested between reputable sources on both sides; low: everything else. A gap (missing or
    unreachable evidence) lowers it one step; a refused transition makes it low."""
    if status is not recommended:
        return ConfidenceLevel.LOW
    level = ConfidenceLevel.LOW
    if status is ClaimStatus.VERIFIED:
        strong = len(support_keys) >= config.high_confidence_sources or (
            len(support_keys) >= config.min_independent_sources_critical and any(r.tier1 for r in supporting)
        )
        level = ConfidenceLevel.HIGH if strong else ConfidenceLevel.MEDIUM
    elif status is ClaimStatus.CONTESTED:
        both = any(r.reputable for r in supporting) and any(r.reputable for r in refuting)
        level = ConfidenceLevel.MEDIUM if both else ConfidenceLevel.LOW
    return _DOWN[level] if gaps else level
