"""The sources a panel cites: one ``Citation`` per admitted evidence item, with where it stands.

* ``published_at``: the page's recorded publication time, else the search row's; null when neither knows
  it. The time a page was fetched is never put in its place.
* ``source_origin``: ``official_site`` for an official page speaking about its own entity (scoped official
  admission wins), ``fact_checker`` for a fact-checking desk's page, ``curated`` for a source on file by
  review or a named dataset; null otherwise (an estimate is not curation).
* ``official_entity_label``: the entity an official page speaks for, as the registry or page names it.
* ``is_primary`` / ``primary_kind``: for admitted evidence only. A self-scoped official page is primary
  (``official_data`` when it states figures, ``official_text`` for legal text, else ``official_site``); a
  page by the claim's own speaker is ``own_statement``; the elected origin of a cluster that others relay is
  ``first_publisher``; a primary document that is not official is ``other``. A page that credits another
  source, or sits in a cluster whose origin is another page, is a relay and never primary.
* ``diagnostics``: provenance details for administrators (cluster, origin, class, tier, credits).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from icarus.debates.model import Citation, PrimaryKind, ScopeDecision, SourceOrigin
from icarus.ledger import Directness, EvidenceItem, SourceClass
from icarus.ledger.judgments import Stance
from icarus.ledger.reputation import ReputationMethod, SourceTier
from icarus.provenance import ProvenanceGraph
from icarus.reputation import Registry
from icarus.research import SearchHit
from icarus.text import words as tx

__all__ = ["EXCERPT_MAX_CHARS", "CitationContext", "cite"]

EXCERPT_MAX_CHARS: Final = 400
_LEGAL_TEXT = re.compile(r"\b(?:act|law|decree|regulation|statute|article|section|ordinance|bill)\b", re.I)


@dataclass(frozen=True)
class CitationContext:
    """What the panel knows beyond the item itself."""

    claim_id: str
    registry: Registry
    graph: ProvenanceGraph
    origins: Mapping[str, str]  # cluster id -> elected origin evidence id (the scorer's election)
    search_rows: Mapping[str, SearchHit]  # url -> the search result that found it
    speaker: str | None = None


def cite(item: EvidenceItem, context: CitationContext, scope: ScopeDecision | None) -> Citation:
    """The citation of admitted evidence ``item`` under ``scope`` (null when scope was not checked)."""
    entry = context.registry.lookup(item.url)
    judgment = item.judgment_for(context.claim_id)
    stance = judgment.stance.stance if judgment is not None else Stance.NEUTRAL
    official = _self_scoped_official(item, entry.note)
    entity = (entry.note or item.publisher or None) if official else None
    cluster = (
        context.graph.cluster_of(item.evidence_id)
        if item.evidence_id in context.graph.canonical_urls
        else None
    )
    origin = context.origins.get(cluster) if cluster is not None else None
    kind = _primary_kind(item, official, cluster, origin, context)
    row = context.search_rows.get(item.url)
    return Citation(
        url=item.url,
        domain=item.domain,
        title=item.title or "",
        excerpt=(item.excerpt.text if item.excerpt is not None else "")[:EXCERPT_MAX_CHARS],
        stance=stance.value,
        trust=float(item.reputation.score),
        published_at=_published(item, row),
        source_origin=_source_origin(item, official),
        official_entity_label=entity,
        is_primary=kind is not None,
        primary_kind=kind,
        scope_decision=scope,
        diagnostics=_diagnostics(item, cluster, origin, context),
    )


def _published(item: EvidenceItem, row: SearchHit | None) -> datetime | None:
    # Never item.retrieved_at: a crawl time is not a publication time.
    if item.published_at is not None:
        return item.published_at
    return row.published_at if row is not None else None


def _source_origin(item: EvidenceItem, official: bool) -> SourceOrigin | None:
    if official:
        return SourceOrigin.OFFICIAL_SITE
    if item.source_class is SourceClass.FACT_CHECKER or item.reputation.tier is SourceTier.FACT_CHECKER:
        return SourceOrigin.FACT_CHECKER
    if item.reputation.method is not ReputationMethod.HEURISTIC:
        return SourceOrigin.CURATED
    return None


def _self_scoped_official(item: EvidenceItem, entity_note: str | None) -> bool:
    """An official page that speaks about its own entity: it names itself (its publisher or the entity on
    file) in its title or text, rather than reporting on someone else."""
    if item.source_class is not SourceClass.PRIMARY_OFFICIAL:
        return False
    text = f"{item.title or ''}\n{item.text}".casefold()
    names = [name for name in (item.publisher, entity_note) if name]
    return any(name.casefold() in text for name in names) or not item.attributions


def _primary_kind(
    item: EvidenceItem,
    official: bool,
    cluster: str | None,
    origin: str | None,
    context: CitationContext,
) -> PrimaryKind | None:
    relay = bool(item.attributions) or (origin is not None and origin != item.evidence_id)
    if official:
        if _LEGAL_TEXT.search(item.title or ""):
            return PrimaryKind.OFFICIAL_TEXT
        return PrimaryKind.OFFICIAL_DATA if tx.stated_figures(item.text) else PrimaryKind.OFFICIAL_SITE
    if relay:
        return None
    if context.speaker and _speaks_for(item, context.speaker):
        return PrimaryKind.OWN_STATEMENT
    members = context.graph.cluster_members.get(cluster, ()) if cluster is not None else ()
    if origin == item.evidence_id and len(members) > 1:
        return PrimaryKind.FIRST_PUBLISHER
    if item.directness is Directness.PRIMARY_DOCUMENT:
        return PrimaryKind.OTHER
    return None


def _speaks_for(item: EvidenceItem, speaker: str) -> bool:
    folded = speaker.casefold()
    return folded in (item.publisher or "").casefold() or folded.replace(" ", "") in item.domain


def _diagnostics(
    item: EvidenceItem, cluster: str | None, origin: str | None, context: CitationContext
) -> dict[str, Any]:
    return {
        "evidence_id": item.evidence_id,
        "cluster_id": cluster,
        "cluster_origin": origin,
        "source_class": item.source_class.value,
        "tier": item.reputation.tier.value,
        "reputation_method": item.reputation.method.value,
        "credits": [a.target_name or a.target_url for a in item.attributions],
        "snapshot": item.snapshot.ref if item.snapshot is not None else None,
    }
