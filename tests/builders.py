"""Small factories for ledger records, so tests state only what matters to them."""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from icarus.ledger import (
    CapturedField,
    Claim,
    ClaimJudgment,
    Directness,
    EvidenceItem,
    Excerpt,
    FieldName,
    JudgeProvenance,
    Ledger,
    ReputationMethod,
    ReputationRecord,
    Snapshot,
    SourceClass,
    SourceTier,
    Span,
    Stance,
    StanceAnswer,
    Subject,
    SubjectKind,
)

AS_OF = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
JUDGE = JudgeProvenance(provider="test-judge", version="1", calibration_id="identity")
POST_TEXT = "The city council approved the new transit budget on Monday."

_VOCABULARY = [
    "river",
    "harbor",
    "council",
    "budget",
    "transit",
    "vote",
    "mayor",
    "school",
    "bridge",
    "report",
    "annual",
    "figure",
    "office",
    "committee",
    "hearing",
    "review",
    "audit",
    "water",
    "energy",
    "housing",
    "plan",
    "policy",
    "agency",
    "district",
    "county",
    "program",
    "service",
    "public",
    "project",
    "funding",
    "market",
    "price",
    "growth",
    "rate",
    "survey",
    "study",
    "trial",
    "season",
    "storm",
    "flood",
    "fire",
    "road",
    "rail",
    "port",
    "airport",
    "station",
    "museum",
    "library",
    "garden",
    "festival",
    "contract",
    "worker",
    "union",
    "strike",
    "court",
    "judge",
    "ruling",
    "appeal",
    "statement",
    "record",
    "data",
    "census",
    "index",
    "forecast",
]


SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ren",
    "tu",
    "sa",
    "vel",
    "dor",
    "pi",
    "an",
    "qu",
    "ber",
    "ix",
    "on",
    "shi",
    "ta",
)


def pseudo_words(rng: random.Random, count: int) -> list[str]:
    """``count`` words of two to four syllables: texts from different generators barely overlap."""
    return ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(count)]


def unique_text(seed: str, words: int = 60) -> str:
    """Deterministic prose-like text that shares no 5-word run with another seed's text."""
    out: list[str] = []
    counter = 0
    while len(out) < words:
        digest = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        out.extend(_VOCABULARY[b % len(_VOCABULARY)] for b in digest[:8])
        counter += 1
    return f"{seed} " + " ".join(out[:words]) + "."


def record(
    domain: str,
    score: str = "0.85",
    tier: SourceTier = SourceTier.NATIONAL_NEWS,
    method: ReputationMethod = ReputationMethod.MANUAL,
    **extra: Any,
) -> ReputationRecord:
    return ReputationRecord(
        domain=domain,
        score=Decimal(score),
        tier=tier,
        method=method,
        produced_by="manual-review" if method is not ReputationMethod.HEURISTIC else "heuristic@1",
        version="1",
        **extra,
    )


def judgment(
    claim_id: str = "c1", stance: str = "support", confidence: str = "0.90", **extra: Any
) -> ClaimJudgment:
    return ClaimJudgment(
        claim_id=claim_id,
        stance=StanceAnswer(stance=Stance(stance), confidence=Decimal(confidence), judge=JUDGE),
        **extra,
    )


def item(
    evidence_id: str,
    *,
    stance: str = "support",
    confidence: str = "0.90",
    claim_id: str = "c1",
    domain: str | None = None,
    publisher: str | None = None,
    text: str | None = None,
    score: str = "0.85",
    tier: SourceTier = SourceTier.NATIONAL_NEWS,
    method: ReputationMethod = ReputationMethod.MANUAL,
    source_class: SourceClass = SourceClass.NEWS,
    directness: Directness = Directness.ORIGINAL_REPORTING,
    published_at: datetime | None = None,
    hops: int = 0,
    judgments: list[ClaimJudgment] | None = None,
    reputation: ReputationRecord | None = None,
    **extra: Any,
) -> EvidenceItem:
    domain = domain or f"{evidence_id}.example"
    body = text if text is not None else unique_text(evidence_id)
    excerpt_end = min(len(body), 40)
    digest = hashlib.sha256(body.encode()).hexdigest()
    fields: dict[str, Any] = {
        "evidence_id": evidence_id,
        "url": f"https://{domain}/story/{evidence_id}",
        "publisher": publisher or domain.split(".")[0].title(),
        "domain": domain,
        "published_at": published_at or AS_OF - timedelta(days=2),
        "retrieved_at": AS_OF - timedelta(hours=1),
        "content_sha256": digest,
        "snapshot": Snapshot(ref="sha256:" + digest),
        "text": body,
        "excerpt": Excerpt(span=Span(start=0, end=excerpt_end), text=body[:excerpt_end]),
        "reputation": reputation or record(domain, score, tier, method),
        "source_class": source_class,
        "directness": directness,
        "judgments": judgments
        if judgments is not None
        else [judgment(claim_id, stance, confidence, inference_hops=hops)],
    }
    return EvidenceItem(**(fields | extra))


def subject(text: str = POST_TEXT, field: FieldName = FieldName.POST_TEXT, **extra: Any) -> Subject:
    return Subject(
        kind=extra.pop("kind", SubjectKind.X_POST),
        subject_id=extra.pop("subject_id", "1790000000000000001"),
        url=extra.pop("url", "https://x.com/example/status/1790000000000000001"),
        captured_at=AS_OF - timedelta(hours=2),
        fields=[CapturedField(name=field, text=text, artifact_id="post-1")],
        **extra,
    )


def claim(
    claim_id: str = "c1",
    text: str = POST_TEXT,
    source: str = POST_TEXT,
    field: FieldName = FieldName.POST_TEXT,
    **extra: Any,
) -> Claim:
    start = source.index(text)
    return Claim(
        claim_id=claim_id,
        source_field=field,
        span=Span(start=start, end=start + len(text)),
        text=text,
        **extra,
    )


def ledger(evidence: list[EvidenceItem], claims: list[Claim] | None = None, **extra: Any) -> Ledger:
    return Ledger(
        ledger_id=extra.pop("ledger_id", "test-ledger"),
        as_of=extra.pop("as_of", AS_OF),
        subject=extra.pop("subject", subject()),
        claims=claims if claims is not None else [claim()],
        evidence=evidence,
        **extra,
    )
