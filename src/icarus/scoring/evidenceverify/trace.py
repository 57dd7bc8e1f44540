"""What EvidenceVerify's status rules read for one claim, as docs/spec/evidenceverify.md states the inputs.

The clustering (each record's and hit's independence key) is done here, by the engine's own functions, and
each stance answer is the one the six steps read (the same ``answers``, asked once by the front door); the
status rules then need nothing else, so a published result can be recomputed from these inputs without the
engine. The answers must cover ``stance_requests(..., every_record=True)``: the expired fact-track records
the steps skip are stated here too.
"""

from __future__ import annotations

from typing import Any

from icarus.judges.protocol import JudgeRequest
from icarus.scoring.canonical import format_decimal
from icarus.scoring.evidenceverify.criticality import CriticalityAnswer
from icarus.scoring.evidenceverify.models import ClaimItem, EvidenceStore
from icarus.scoring.evidenceverify.verify import (
    ExcerptPicker,
    SearchOutcome,
    StanceAnswers,
    answer_to,
    hit_identity,
    merge_by_url,
    stance_request,
)

__all__ = ["verification_inputs"]


def _answer(answers: StanceAnswers, request: JudgeRequest | None) -> dict[str, Any] | None:
    """The judge's answer as the rules read it; None when there was no text to ask about."""
    if request is None:
        return None
    verdict = answer_to(answers, request)
    return {
        "stance": verdict.stance.value,
        "confidence": format_decimal(verdict.confidence),
        "failed": verdict.failure is not None,
    }


def verification_inputs(
    claim: ClaimItem,
    store: EvidenceStore,
    *,
    answers: StanceAnswers,
    excerpt: ExcerptPicker,
    criticality: CriticalityAnswer,
    search: SearchOutcome | None,
    independent_search_requested: bool,
) -> dict[str, Any]:
    resolved = [r for r in (store.get(i) for i in claim.evidence_ids) if r is not None]
    keys = merge_by_url(resolved)
    records = []
    for record in {r.evidence_id: r for r in resolved}.values():
        records.append(
            {
                "evidence_id": record.evidence_id,
                "publisher": record.publisher,
                "source_type": record.source_type.value,
                "credibility_tier": record.credibility_tier.value,
                "evidence_track": record.evidence_track.value,
                "freshness_status": record.freshness_status.value,
                "social_credibility_flag": (
                    record.social_credibility_flag.value if record.social_credibility_flag else None
                ),
                "verification_priority": record.priority.value,
                "source_reachable": record.source_reachable,
                "key": keys[record.evidence_id],
                "answer": _answer(
                    answers,
                    stance_request(claim, record.evidence_id, record.snippet or record.title, excerpt),
                ),
            }
        )
    searched: dict[str, Any] | None = None
    if search is not None:
        hits = []
        for index, hit in enumerate(search.hits if search.ran else (), start=1):
            name, host, key, text = hit_identity(hit)
            hits.append(
                {
                    "name": name,
                    "host": host,
                    "key": key,
                    "answer": _answer(answers, stance_request(claim, f"search-{index}", text, excerpt)),
                }
            )
        searched = {"ran": search.ran, "detail": search.detail, "hits": hits}
    return {
        "claim": {
            "claim_id": claim.claim_id,
            "status": claim.status.value,
            "evidence_track": claim.evidence_track.value,
            "evidence_ids": list(claim.evidence_ids),
        },
        "criticality": {"critical": criticality.critical, "judge": criticality.judge},
        "independent_search_requested": independent_search_requested,
        "records": records,
        "search": searched,
    }
