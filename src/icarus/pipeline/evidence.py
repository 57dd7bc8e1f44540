"""Turn a retrieved document into a ledger evidence item: id, snapshot hash, excerpt, reputation."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime

from icarus.judges.text import sentence_spans, stem
from icarus.ledger import (
    Directness,
    EvidenceItem,
    EvidenceRole,
    Excerpt,
    Snapshot,
    SourceClass,
    Span,
)
from icarus.pipeline.reported_claims import is_about_a_statement, reports_a_claim
from icarus.reputation import Registry, domain_of

_WORD = re.compile(r"[a-z0-9%]+")
_ATTRIBUTION = re.compile(
    r"\b(?:according to|said in a statement|told|first reported by|as reported by)\b", re.I
)
_STOPWORDS = frozenset(
    "the a an of in on at to for and or is are was were be been by with as that this it its from than".split()
)
EXCERPT_MAX_CHARS = 600


@dataclass(frozen=True)
class RetrievedDocument:
    """What a search provider or a fetch returned about one document."""

    url: str
    title: str
    text: str
    publisher: str
    published_at: datetime | None
    links: list[str] = field(default_factory=list)


def evidence_id_for(url: str) -> str:
    """Server-assigned id, stable for a URL so a replay or recheck refers to the same item."""
    return "ev-" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]


# A shared figure ("12%", "2019", "41,200") says more about which sentence is the evidence than a shared word.
FIGURE_WEIGHT = 2


def _is_figure(word: str) -> bool:
    return any(c.isdigit() for c in word)


def _content_words(text: str) -> set[str]:
    """Words that carry content, stemmed (``declined`` and ``decline`` match); figures kept as written."""
    return {
        word if _is_figure(word) else stem(word)
        for word in _WORD.findall(text.lower())
        if word not in _STOPWORDS
    }


def best_excerpt(text: str, claim_text: str) -> Span:
    """The sentence sharing most content with the claim, a shared figure counting ``FIGURE_WEIGHT`` times a
    shared word (first on ties), as offsets into ``text``. Sentences are the judges' (``sentence_spans``), so
    a decimal point or a thousands separator does not end one and the judge reads the same sentence. How
    often it picks a gold evidence sentence is measured by ``icarus.evaluation.excerpts`` (docs/checking.md).

    A sentence that reports a claim instead of asserting it (``reported_claims.reports_a_claim``: "Posts
    claim that X", "Was X?") is taken only when no other sentence shares a word with the claim, unless the
    claim is itself about a statement (``reported_claims.is_about_a_statement``)."""
    wanted = _content_words(claim_text)
    skip_reports = not is_about_a_statement(claim_text)
    best = Span(start=0, end=min(len(text), EXCERPT_MAX_CHARS))
    best_key = (False, -1)
    for start, end in sentence_spans(text):
        shared = wanted & _content_words(text[start:end])
        score = sum(FIGURE_WEIGHT if _is_figure(word) else 1 for word in shared)
        if (True, score) <= best_key:
            continue  # cannot win even as an assertion: spare the report patterns (long pages)
        # an asserting sentence wins over a report only if it shares something with the claim: one that
        # shares nothing says nothing about it, and a judge reading it would be reading noise
        asserts = score > 0 and not (skip_reports and reports_a_claim(text[start:end]))
        key = (asserts, score)
        if key > best_key:
            best_key = key
            best = Span(start=start, end=min(end, start + EXCERPT_MAX_CHARS))
    return best


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
) -> EvidenceItem:
    """An anchored evidence item (G3): the snapshot hash, and an excerpt that is the exact text slice."""
    entry = registry.lookup(document.url)
    span = best_excerpt(document.text, claim_text)
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
        reputation=entry.record,
        source_class=entry.source_class,
        directness=directness_for(entry.source_class, document.text),
        role=role,
        links=list(links or []),
    )
