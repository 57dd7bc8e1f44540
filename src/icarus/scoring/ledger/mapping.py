"""How an Icarus evidence ledger becomes ledger-model input: claims, links and review checks.

Every link field has one source, in this order: the value a ledger states directly (a judgment's ``link``,
a claim's ``ledger_claim``), else the value derived here from the ordinary ledger fields:

- direction from the judged stance (a failed stance answer is NEUTRAL);
- relevance from stance strength (``stance_strength`` on the item, else the stance confidence), capped by
  directness, scope and access;
- observation kind and source kind from the source class and directness;
- interpretive steps from the judgment's inference hops (at most the model's maximum);
- authenticity from the excerpt (an exact slice with a content hash is VERIFIED, a slice that does not
  match is DOUBTFUL, no excerpt is UNVERIFIED); extraction is UNVERIFIED (a judge's reading);
- independence group from the provenance clusters (a cluster of two or more items is one group);
  origin from the canonical URL; SELF provenance for a self-citation or the subject's own page;
- claim type and not-evaluable reason from the claim type and disposition.

The thresholds and tables are :data:`MAPPING` (versioned and hashed; each result names the mapping it
used). The mapping is pure: it reads nothing but the ledger.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from typing import Any

from icarus.ledger import (
    Access,
    Authenticity,
    Claim,
    ClaimJudgment,
    ClaimType,
    Directness,
    Disposition,
    EditionKind,
    EvidenceItem,
    Extraction,
    Ledger,
    LedgerClaimType,
    LedgerLink,
    LinkDirection,
    LinkProvenance,
    NotEvaluableReason,
    ObservationKind,
    Relevance,
    SourceClass,
    SourceKind,
    Stance,
)
from icarus.ledger.links import MAX_INTERPRETIVE_STEPS
from icarus.provenance import ProvenanceGraph, build_graph, canonical_url
from icarus.scoring.canonical import canonical_json, sha256_hex
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.ledger.calculate import ClaimInput, LinkInput

MAPPING_VERSION = "icarus-to-ledger@1"
# Provenance clusters are built with a released policy's provenance settings, named here so that a new
# policy version never changes a ledger model's groups.
PROVENANCE_SETTINGS_FROM = "icarus@1.1"
SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")

# Stance strength at or above each threshold reaches that relevance (first match wins); above zero and
# below the last threshold is WEAK; zero is CONTEXT_ONLY.
RELEVANCE_THRESHOLDS: tuple[tuple[Decimal, Relevance], ...] = (
    (Decimal("0.90"), Relevance.DIRECT),
    (Decimal("0.75"), Relevance.STRONG),
    (Decimal("0.50"), Relevance.MODERATE),
)
# The highest relevance each directness allows.
DIRECTNESS_CAP: dict[Directness, Relevance] = {
    Directness.PRIMARY_DOCUMENT: Relevance.DIRECT,
    Directness.ORIGINAL_REPORTING: Relevance.DIRECT,
    Directness.SECONDARY_NAMED: Relevance.STRONG,
    Directness.RELEASE: Relevance.MODERATE,
    Directness.OUT_OF_SCOPE: Relevance.CONTEXT_ONLY,
}
# Limited access caps relevance too: what could not be read in full cannot state the claim outright.
ACCESS_CAP: dict[Access, Relevance] = {
    Access.FULL: Relevance.DIRECT,
    Access.PAYWALL: Relevance.MODERATE,
    Access.ABSTRACT_ONLY: Relevance.MODERATE,
    Access.SNIPPET_ONLY: Relevance.MODERATE,
    Access.INACCESSIBLE: Relevance.CONTEXT_ONLY,
}
RELEVANCE_ORDER: tuple[Relevance, ...] = (
    Relevance.CONTEXT_ONLY,
    Relevance.WEAK,
    Relevance.MODERATE,
    Relevance.STRONG,
    Relevance.DIRECT,
)

# Observation kind of an item that is the primary document itself, and of reporting by source class.
PRIMARY_DOCUMENT_OBSERVATION: dict[SourceClass, ObservationKind] = {
    SourceClass.SCHOLARLY: ObservationKind.DATASET_RESULT,
    SourceClass.PREPRINT_SERVER: ObservationKind.DATASET_RESULT,
}
REPORTING_OBSERVATION: dict[SourceClass, ObservationKind] = {
    SourceClass.PRIMARY_OFFICIAL: ObservationKind.DIRECT_TEXT,
    SourceClass.SCHOLARLY: ObservationKind.DATASET_RESULT,
    SourceClass.PREPRINT_SERVER: ObservationKind.DATASET_RESULT,
    SourceClass.WIRE: ObservationKind.EYEWITNESS,
    SourceClass.NEWS: ObservationKind.EYEWITNESS,
    SourceClass.FACT_CHECKER: ObservationKind.EXPERT_ANALYSIS,
    SourceClass.NGO: ObservationKind.EXPERT_ANALYSIS,
    SourceClass.RELEASE_SERVICE: ObservationKind.OTHER,
    SourceClass.BLOG: ObservationKind.OTHER,
    SourceClass.AGGREGATOR: ObservationKind.HEARSAY,
    SourceClass.CONTENT_FARM: ObservationKind.HEARSAY,
    SourceClass.SATIRE: ObservationKind.OTHER,
    SourceClass.PLATFORM: ObservationKind.HEARSAY,
    SourceClass.OTHER: ObservationKind.OTHER,
}
# Secondary reporting (naming its primary) is hearsay unless the class is analysis anyway.
SECONDARY_OBSERVATION = ObservationKind.HEARSAY

SOURCE_KIND: dict[SourceClass, SourceKind] = {
    SourceClass.PRIMARY_OFFICIAL: SourceKind.PRIMARY_TEXT,
    SourceClass.WIRE: SourceKind.NEWS_REPORT,
    SourceClass.NEWS: SourceKind.NEWS_REPORT,
    SourceClass.FACT_CHECKER: SourceKind.COMMENTARY,
    SourceClass.SCHOLARLY: SourceKind.SCHOLARLY_ARTICLE,
    SourceClass.PREPRINT_SERVER: SourceKind.SCHOLARLY_ARTICLE,
    SourceClass.NGO: SourceKind.COMMENTARY,
    SourceClass.RELEASE_SERVICE: SourceKind.OTHER,
    SourceClass.BLOG: SourceKind.COMMENTARY,
    SourceClass.AGGREGATOR: SourceKind.OTHER,
    SourceClass.CONTENT_FARM: SourceKind.OTHER,
    SourceClass.SATIRE: SourceKind.OTHER,
    SourceClass.PLATFORM: SourceKind.SOCIAL_POST,
    SourceClass.OTHER: SourceKind.OTHER,
}

# The primary document itself: a study's own results are a dataset, anything else the primary text.
PRIMARY_DOCUMENT_SOURCE_KIND: dict[SourceClass, SourceKind] = {
    SourceClass.SCHOLARLY: SourceKind.DATASET,
    SourceClass.PREPRINT_SERVER: SourceKind.DATASET,
}

DIRECTION: dict[Stance, LinkDirection] = {
    Stance.SUPPORT: LinkDirection.SUPPORT,
    Stance.REFUTE: LinkDirection.CONTRADICT,
    Stance.NEUTRAL: LinkDirection.NEUTRAL,
}

CLAIM_TYPE: dict[ClaimType, LedgerClaimType] = {
    ClaimType.EVENT: LedgerClaimType.HISTORICAL,
    ClaimType.STATISTIC: LedgerClaimType.QUANTITATIVE,
    ClaimType.QUOTE: LedgerClaimType.TEXTUAL,
    ClaimType.SCIENTIFIC: LedgerClaimType.OBSERVATIONAL,
    ClaimType.IMAGE_CONTEXT: LedgerClaimType.OBSERVATIONAL,
    ClaimType.OTHER: LedgerClaimType.OBSERVATIONAL,
}
# A disposition other than checkable: the ledger type it implies (if any) and why it is not evaluable.
DISPOSITION: dict[Disposition, tuple[LedgerClaimType | None, NotEvaluableReason]] = {
    Disposition.OPINION: (LedgerClaimType.NORMATIVE, NotEvaluableReason.NORMATIVE_OR_VALUE),
    Disposition.PERSONAL_ADVICE: (LedgerClaimType.NORMATIVE, NotEvaluableReason.NORMATIVE_OR_VALUE),
    Disposition.PREDICTION: (LedgerClaimType.FORECAST, NotEvaluableReason.UNRESOLVED_FORECAST),
    Disposition.SATIRE: (LedgerClaimType.RHETORICAL, NotEvaluableReason.RHETORICAL),
    Disposition.JOKE: (LedgerClaimType.RHETORICAL, NotEvaluableReason.RHETORICAL),
    Disposition.IMPLIED_NEEDS_INTENT: (None, NotEvaluableReason.UNTESTABLE_CURRENT_METHODS),
    Disposition.PRIVATE_INDIVIDUAL: (None, NotEvaluableReason.UNTESTABLE_CURRENT_METHODS),
}


def mapping_table() -> dict[str, Any]:
    """Every table above as JSON data: what the mapping hash is taken over and the methodology page shows."""
    return {
        "version": MAPPING_VERSION,
        "provenance_settings_from": PROVENANCE_SETTINGS_FROM,
        "relevance_thresholds": [[str(t), r.value] for t, r in RELEVANCE_THRESHOLDS],
        "directness_cap": {k.value: v.value for k, v in DIRECTNESS_CAP.items()},
        "access_cap": {k.value: v.value for k, v in ACCESS_CAP.items()},
        "primary_document_observation": {k.value: v.value for k, v in PRIMARY_DOCUMENT_OBSERVATION.items()},
        "primary_document_observation_default": ObservationKind.DIRECT_TEXT.value,
        "reporting_observation": {k.value: v.value for k, v in REPORTING_OBSERVATION.items()},
        "secondary_observation": SECONDARY_OBSERVATION.value,
        "source_kind": {k.value: v.value for k, v in SOURCE_KIND.items()},
        "primary_document_source_kind": {k.value: v.value for k, v in PRIMARY_DOCUMENT_SOURCE_KIND.items()},
        "primary_document_source_kind_default": SourceKind.PRIMARY_TEXT.value,
        "direction": {k.value: v.value for k, v in DIRECTION.items()},
        "claim_type": {k.value: v.value for k, v in CLAIM_TYPE.items()},
        "disposition": {
            k.value: {"claim_type": t.value if t else None, "not_evaluable": r.value}
            for k, (t, r) in DISPOSITION.items()
        },
        "max_interpretive_steps": MAX_INTERPRETIVE_STEPS,
    }


@cache
def mapping_hash() -> str:
    return "sha256:" + sha256_hex(canonical_json(mapping_table()))


def ledger_graph(ledger: Ledger) -> ProvenanceGraph:
    urls = list(ledger.subject.artifact_urls)
    if ledger.subject.url:
        urls.append(ledger.subject.url)
    return build_graph(ledger.evidence, urls, load_policy(PROVENANCE_SETTINGS_FROM).provenance)


def claim_inputs(ledger: Ledger, graph: ProvenanceGraph | None = None) -> list[ClaimInput]:
    """One input per assessed claim, in ledger order (claims marked not assessed are left out)."""
    graph = graph if graph is not None else ledger_graph(ledger)
    subject_urls = {canonical_url(url) for url in _subject_urls(ledger)}
    inputs = []
    for claim in ledger.claims:
        if claim.not_assessed is not None:
            continue
        links = tuple(
            link_input(item, judgment, graph, subject_urls)
            for item in ledger.evidence
            if (judgment := item.judgment_for(claim.claim_id)) is not None
        )
        inputs.append(claim_input(claim, links))
    return inputs


def claim_input(claim: Claim, links: tuple[LinkInput, ...]) -> ClaimInput:
    stated = claim.ledger_claim
    implied_type, reason = DISPOSITION.get(claim.disposition, (None, None))
    claim_type = (stated and stated.claim_type) or implied_type or CLAIM_TYPE[claim.claim_type]
    not_evaluable = stated.not_evaluable if stated and stated.not_evaluable else reason
    return ClaimInput(
        claim_id=claim.claim_id,
        claim_type=claim_type,
        links=links,
        not_evaluable=not_evaluable,
        recorded_by=stated.recorded_by if stated else None,
        review_checks=tuple(stated.review_checks) if stated else (),
    )


def link_input(
    item: EvidenceItem, judgment: ClaimJudgment, graph: ProvenanceGraph, subject_urls: set[str]
) -> LinkInput:
    stated = judgment.link or LedgerLink()
    derived_group = _cluster_group(item.evidence_id, graph)
    url = graph.canonical_urls.get(item.evidence_id) or canonical_url(item.url)
    self_origin = item.flags.self_citation or url in subject_urls
    return LinkInput(
        link_id=stated.link_id or item.evidence_id,
        evidence_id=item.evidence_id,
        direction=stated.direction or _direction(judgment),
        relevance=stated.relevance or _relevance(item, judgment),
        observation=stated.observation or _observation(item),
        interpretive_steps=(
            stated.interpretive_steps
            if stated.interpretive_steps is not None
            else min(judgment.inference_hops, MAX_INTERPRETIVE_STEPS)
        ),
        authenticity=stated.authenticity or _authenticity(item),
        extraction=stated.extraction or Extraction.UNVERIFIED,
        source_kind=stated.source_kind or _source_kind(item),
        group=stated.independence_group or derived_group,
        origin=stated.origin or url,
        provenance=stated.provenance or (LinkProvenance.SELF if self_origin else LinkProvenance.INDEPENDENT),
        edition=stated.edition or EditionKind.NAMED,
        recorded_by=stated.recorded_by,
    )


def _subject_urls(ledger: Ledger) -> list[str]:
    return [ledger.subject.url] if ledger.subject.url else []


def _cluster_group(evidence_id: str, graph: ProvenanceGraph) -> str | None:
    for cluster_id, members in graph.cluster_members.items():
        if evidence_id in members:
            return cluster_id if len(members) > 1 else None
    return None


def _direction(judgment: ClaimJudgment) -> LinkDirection:
    if judgment.stance.failure is not None:
        return LinkDirection.NEUTRAL
    return DIRECTION[judgment.stance.stance]


def _relevance(item: EvidenceItem, judgment: ClaimJudgment) -> Relevance:
    strength = item.stance_strength if item.stance_strength is not None else judgment.stance.confidence
    relevance = Relevance.CONTEXT_ONLY if strength <= 0 else Relevance.WEAK
    for threshold, level in RELEVANCE_THRESHOLDS:
        if strength >= threshold:
            relevance = level
            break
    caps = [DIRECTNESS_CAP[item.directness], ACCESS_CAP[item.flags.access]]
    if not judgment.scope.matches:
        caps.append(Relevance.CONTEXT_ONLY)
    if item.source_class is SourceClass.SATIRE and not judgment.claim_is_about_source:
        caps.append(Relevance.CONTEXT_ONLY)
    return min([relevance, *caps], key=RELEVANCE_ORDER.index)


def _observation(item: EvidenceItem) -> ObservationKind:
    if item.directness is Directness.PRIMARY_DOCUMENT:
        return PRIMARY_DOCUMENT_OBSERVATION.get(item.source_class, ObservationKind.DIRECT_TEXT)
    reporting = REPORTING_OBSERVATION[item.source_class]
    if item.directness is Directness.SECONDARY_NAMED and reporting is ObservationKind.EYEWITNESS:
        return SECONDARY_OBSERVATION
    return reporting


def _source_kind(item: EvidenceItem) -> SourceKind:
    if item.directness is Directness.PRIMARY_DOCUMENT:
        return PRIMARY_DOCUMENT_SOURCE_KIND.get(item.source_class, SourceKind.PRIMARY_TEXT)
    return SOURCE_KIND[item.source_class]


def _authenticity(item: EvidenceItem) -> Authenticity:
    excerpt = item.excerpt
    if excerpt is None:
        return Authenticity.UNVERIFIED
    if excerpt.span.slice(item.text) != excerpt.text:
        return Authenticity.DOUBTFUL
    if item.content_sha256 and SHA256_HEX.fullmatch(item.content_sha256):
        return Authenticity.VERIFIED
    return Authenticity.UNVERIFIED
