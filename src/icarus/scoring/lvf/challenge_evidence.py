"""Evidence from accepted challenges, turned into ledger items that a later run reads. Pure.

Each evidence entry of an accepted challenge becomes one evidence item of the ledger, judged against the
challenged claim only:

* its id is ``<challenge id>/e<n>``; address, title, publisher and publication date are as submitted and
  the domain is the address's host;
* its text and excerpt are the quoted excerpt, because that is all Icarus holds of the source: access is
  ``snippet_only`` (limited access caps directness, as for any partly read source) and there is no content
  hash or snapshot (the deterministic assessor's untraceable penalty applies);
* reputation and source class come from the reputation registry, exactly as for a researched item;
* the stance is the submitted one (``supports`` is support, ``refutes`` refute, ``context`` neutral), and
  the reviewer's acceptance stands in for a stance judge with the fixed confidence
  ``REVIEWED_STANCE_CONFIDENCE``.

The items then pass through the same provenance graph and origin election as every other item, so a
submitted copy of a story already in the ledger, or one source submitted in two challenges, joins that
origin's cluster and adds no independent origin: independence is counted by origin, never by article.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final
from urllib.parse import urlsplit

from icarus.ledger import (
    Access,
    ClaimJudgment,
    EvidenceItem,
    Excerpt,
    JudgeProvenance,
    Ledger,
    ReputationRecord,
    SourceClass,
    Span,
    Stance,
    StanceAnswer,
    ValidityFlags,
)
from icarus.scoring.canonical import canonical_json, sha256_hex
from icarus.scoring.lvf.challenges import AcceptedChallenge, SubmittedEvidence

__all__ = [
    "REVIEWED_STANCE_CONFIDENCE",
    "REVIEW_JUDGE",
    "FedChallenge",
    "ReputationLookup",
    "feed_challenge",
    "with_challenge_evidence",
]

ReputationLookup = Callable[[str], tuple[ReputationRecord, SourceClass]]
"""``Registry.ledger_lookup``: the record on file for a host or URL (or a labelled heuristic estimate) and
its source class, as ledger types."""

REVIEWED_STANCE_CONFIDENCE: Final = Decimal("0.75")
"""A reviewer accepted the challenge, not a calibrated judge: a confident stance, below a typical judge's
answer on the ledger's own items, so a submitted item never outranks those as its cluster's representative
on confidence alone."""

REVIEW_JUDGE: Final = JudgeProvenance(
    provider="lvf-challenge-review", version="1", calibration_id="reviewer-accepted"
)

_STANCES: Final = {"supports": Stance.SUPPORT, "refutes": Stance.REFUTE, "context": Stance.NEUTRAL}


@dataclass(frozen=True, slots=True)
class FedChallenge:
    """An accepted challenge ready for a run: its evidence as ledger items, and a hash of what was submitted."""

    challenge_id: str
    challenged_run_id: int
    ledger_id: str
    claim_id: str
    items: tuple[EvidenceItem, ...]
    evidence_hash: str


def _evidence_hash(evidence: Sequence[SubmittedEvidence]) -> str:
    return "sha256:" + sha256_hex(canonical_json([e.model_dump(mode="json") for e in evidence]))


def _item(
    evidence_id: str, evidence: SubmittedEvidence, claim_id: str, lookup: ReputationLookup
) -> EvidenceItem:
    reputation, source_class = lookup(evidence.url)
    host = (urlsplit(evidence.url).hostname or "").lower()
    judgment = ClaimJudgment(
        claim_id=claim_id,
        stance=StanceAnswer(
            stance=_STANCES[evidence.stance], confidence=REVIEWED_STANCE_CONFIDENCE, judge=REVIEW_JUDGE
        ),
    )
    return EvidenceItem(
        evidence_id=evidence_id,
        url=evidence.url,
        publisher=evidence.publisher or host,
        domain=host,
        title=evidence.title or None,
        published_at=evidence.published_at,
        text=evidence.excerpt,
        excerpt=Excerpt(span=Span(start=0, end=len(evidence.excerpt)), text=evidence.excerpt),
        reputation=reputation,
        source_class=source_class,
        flags=ValidityFlags(access=Access.SNIPPET_ONLY),
        judgments=[judgment],
    )


def feed_challenge(accepted: AcceptedChallenge, lookup: ReputationLookup) -> FedChallenge:
    items = tuple(
        _item(f"{accepted.challenge_id}/e{n}", evidence, accepted.claim_id, lookup)
        for n, evidence in enumerate(accepted.evidence, start=1)
    )
    return FedChallenge(
        challenge_id=accepted.challenge_id,
        challenged_run_id=accepted.challenged_run_id,
        ledger_id=accepted.ledger_id,
        claim_id=accepted.claim_id,
        items=items,
        evidence_hash=_evidence_hash(accepted.evidence),
    )


def with_challenge_evidence(ledger: Ledger, fed: Sequence[FedChallenge]) -> Ledger:
    """The ledger with the challenges' items appended (validated again: ids stay unique). Unchanged when
    ``fed`` is empty, so a run without challenges reads exactly the ledger it was given."""
    if not fed:
        return ledger
    strangers = sorted({f.challenge_id for f in fed if f.ledger_id != ledger.ledger_id})
    if strangers:
        raise ValueError(f"challenges {', '.join(strangers)} are not about ledger {ledger.ledger_id}")
    added = [item for f in fed for item in f.items]
    return Ledger.model_validate({**dict(ledger), "evidence": [*ledger.evidence, *added]})
