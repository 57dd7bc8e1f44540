"""Turn a retrieved document into a ledger evidence item: id, snapshot hash, excerpt, reputation."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime

from icarus.claims import extract_figures
from icarus.fetching.scholarly import ScholarlyMetadata
from icarus.ledger import (
    Directness,
    EvidenceItem,
    EvidenceRole,
    Excerpt,
    Snapshot,
    SourceClass,
    Span,
)
from icarus.reputation import Registry, domain_of
from icarus.reputation.evidence_record import evidence_record
from icarus.research.excerpts import best_excerpt

_ATTRIBUTION = re.compile(
    r"\b(?:according to|said in a statement|told|first reported by|as reported by)\b", re.I
)


@dataclass(frozen=True)
class RetrievedDocument:
    """What a search provider or a fetch returned about one document."""

    url: str
    title: str
    text: str
    publisher: str
    published_at: datetime | None
    links: list[str] = field(default_factory=list)
    scholarly: ScholarlyMetadata | None = None  # DOI, ISSN, journal, kind, from the page's markup


def evidence_id_for(url: str) -> str:
    """Server-assigned id, stable for a URL so a replay or recheck refers to the same item."""
    return "ev-" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]


def directness_for(source_class: SourceClass, text: str) -> Directness:
    """Primary documents are direct; reporting that names its source is secondary; releases are releases."""
    if source_class is SourceClass.PRIMARY_OFFICIAL:
        return Directness.PRIMARY_DOCUMENT
    if source_class is SourceClass.RELEASE_SERVICE:
        return Directness.RELEASE
    if _ATTRIBUTION.search(text):
        return Directness.SECONDARY_NAMED
    return Directness.ORIGINAL_REPORTING


def build_evidence_item(
    document: RetrievedDocument,
    claim_text: str,
    registry: Registry,
    snapshot_ref: str,
    retrieved_at: datetime,
    role: EvidenceRole = EvidenceRole.RESEARCH,
    links: list[str] | None = None,
    *,
    archived: bool = False,
    excerpt: Span | None = None,
) -> EvidenceItem:
    """An anchored evidence item (G3): the snapshot hash, and an excerpt that is the exact text slice: the
    ``excerpt`` span when the caller has chosen one, else the sentence ``best_excerpt`` picks. Its
    ``figures`` are what the excerpt states, read by the claims' figure reader in its evidence mode (H12–H15
    compare and recompute them); their spans are offsets into the item's text."""
    entry = registry.lookup(document.url)
    span = excerpt if excerpt is not None else best_excerpt(document.text, claim_text)
    digest = snapshot_ref.removeprefix("sha256:")
    return EvidenceItem(
        evidence_id=evidence_id_for(document.url),
        url=document.url,
        publisher=document.publisher or entry.record.domain,
        domain=domain_of(document.url),
        title=document.title or None,
        published_at=document.published_at,
        retrieved_at=retrieved_at,
        content_sha256=digest,
        snapshot=Snapshot(ref=snapshot_ref, archived=archived),
        text=document.text,
        excerpt=Excerpt(span=span, text=span.slice(document.text)),
        figures=extract_figures(document.text, span.start, span.end, evidence=True),
        reputation=evidence_record(entry),
        source_class=entry.source_class,
        directness=directness_for(entry.source_class, document.text),
        role=role,
        links=list(links or []),
        **(document.scholarly.evidence_fields() if document.scholarly is not None else {}),
    )
