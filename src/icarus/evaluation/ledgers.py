"""Evidence ledgers for evaluation cases, built with the same pieces a check uses.

A case's claim is the whole claim text (plain text, checkable, a settled past fact); gold passages become
anchored evidence items through ``build_evidence_item``; the judge's answers enter the ledger through
``judge_evidence``, exactly as in ``icarus check``. One fixed as-of time keeps every run reproducible.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

from icarus.evaluation.cases import ClaimCase, Passage
from icarus.judges import Judge, judge_all
from icarus.ledger import (
    CapturedField,
    Claim,
    EvidenceItem,
    FieldName,
    Ledger,
    Snapshot,
    Span,
    Subject,
    SubjectKind,
)
from icarus.pipeline.check import judge_evidence
from icarus.pipeline.evidence import RetrievedDocument, build_evidence_item
from icarus.reputation import Registry
from icarus.research.excerpts import EXCERPT_MAX_CHARS, best_excerpt

__all__ = ["AS_OF", "CLAIM_ID", "case_claim", "case_ledger", "excerpt_span", "passage_item", "snapshot_ref"]

AS_OF = datetime(2025, 1, 1, tzinfo=UTC)
"""The fixed "now" of every evaluation ledger: no clock is read, so a rerun gives the same numbers."""

CLAIM_ID = "c1"


def snapshot_ref(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def excerpt_span(text: str, claim_text: str) -> Span:
    """A short passage is its own excerpt; a long one is cut to its best sentence, as research does."""
    if 0 < len(text) <= EXCERPT_MAX_CHARS:
        return Span(start=0, end=len(text))
    return best_excerpt(text, claim_text)


def case_claim(case: ClaimCase) -> tuple[Subject, Claim]:
    subject = Subject(
        kind=SubjectKind.TEXT,
        subject_id=f"eval:{case.case_id}",
        captured_at=AS_OF,
        fields=[CapturedField(name=FieldName.PLAIN_TEXT, text=case.claim, artifact_id=case.case_id)],
    )
    claim = Claim(
        claim_id=CLAIM_ID,
        source_field=FieldName.PLAIN_TEXT,
        span=Span(start=0, end=len(case.claim)),
        text=case.claim,
    )
    return subject, claim


def passage_item(passage: Passage, claim_text: str, registry: Registry, evidence_id: str) -> EvidenceItem:
    """An anchored evidence item holding one gold passage, with the reputation the registry gives its URL."""
    document = RetrievedDocument(
        url=passage.url,
        title=passage.title,
        text=passage.text,
        publisher=passage.publisher,
        published_at=None,
    )
    quoted = excerpt_span(passage.text[passage.quote_start :], claim_text)
    span = Span(start=quoted.start + passage.quote_start, end=quoted.end + passage.quote_start)
    item = build_evidence_item(
        document, claim_text, registry, snapshot_ref(passage.text), AS_OF, excerpt=span
    )
    snapshot = item.snapshot
    if passage.archive_url is not None and snapshot is not None:
        snapshot = Snapshot(ref=snapshot.ref, archived=True, archive_url=passage.archive_url)
    return item.model_copy(update={"evidence_id": evidence_id, "snapshot": snapshot})


def case_ledger(
    case: ClaimCase, items: Sequence[EvidenceItem], judge: Judge
) -> tuple[Ledger, list[EvidenceItem]]:
    """The case's ledger with every item judged against its claim; also the judged items, in input order."""
    subject, claim = case_claim(case)
    judged = judge_all(judge, lambda worker, item: judge_evidence(item, [claim], worker), items)
    ledger = Ledger(
        ledger_id=f"eval-{case.case_id}",
        as_of=AS_OF,
        subject=subject,
        claims=[claim],
        evidence=sorted(judged, key=lambda item: item.evidence_id),
    )
    return ledger, judged
