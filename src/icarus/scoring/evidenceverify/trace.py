"""What EvidenceVerify's status rules read for one claim, as docs/spec/evidenceverify.md states the inputs.

The clustering (each record's and hit's independence key) and the judging (each stance answer) are done
here, by the engine's own functions; the status rules then need nothing else, so a published result can be
recomputed from these inputs without the engine. The judge is asked the same questions ``verify_claim``
asks it: the registered model's judge reads the ledger's recorded answers, so asking again is free; a judge
that might answer differently a second time (an LLM) is wrapped in ``RememberingJudge`` for both.
"""

from __future__ import annotations

import threading
from typing import Any

from icarus.judges.parallel import WrappedTwin
from icarus.judges.protocol import AttributionVerdict, Judge, JudgeRequest, StanceVerdict
from icarus.scoring.canonical import format_decimal
from icarus.scoring.evidenceverify.criticality import CriticalityAnswer
from icarus.scoring.evidenceverify.models import ClaimItem, EvidenceStore
from icarus.scoring.evidenceverify.verify import (
    ExcerptPicker,
    SearchOutcome,
    hit_identity,
    merge_by_url,
)

__all__ = ["RememberingJudge", "verification_inputs"]


class RememberingJudge:
    """A stance judge that keeps every answer it gave, so asking again returns the answer the six steps
    read. Its parallel twin (when the judge it wraps has one) shares the same memory."""

    def __init__(
        self,
        base: Judge,
        memory: dict[tuple[str, str, str, str], StanceVerdict] | None = None,
        lock: threading.Lock | None = None,
    ) -> None:
        self._base = base
        self._memory = {} if memory is None else memory
        self._lock = lock or threading.Lock()
        self._twin = WrappedTwin(lambda twin: RememberingJudge(twin, self._memory, self._lock))

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        key = (request.claim_id, request.evidence_id, request.excerpt, request.evidence_text)
        with self._lock:
            known = self._memory.get(key)
        if known is not None:
            return known
        verdict = self._base.stance(request)
        with self._lock:
            return self._memory.setdefault(key, verdict)

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return self._base.attribution(request)

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        return self._twin.plan(self, self._base, requests)


def _answer(
    judge: Judge, excerpt: ExcerptPicker, claim: ClaimItem, evidence_id: str, text: str
) -> dict[str, Any] | None:
    """The judge's answer as the rules read it; None when there was no text to ask about."""
    if not text.strip():
        return None
    verdict = judge.stance(
        JudgeRequest(
            claim_id=claim.claim_id,
            claim_text=claim.text,
            evidence_id=evidence_id,
            excerpt=excerpt(text, claim.text).slice(text),
            evidence_text=text,
        )
    )
    return {
        "stance": verdict.stance.value,
        "confidence": format_decimal(verdict.confidence),
        "failed": verdict.failure is not None,
    }


def verification_inputs(
    claim: ClaimItem,
    store: EvidenceStore,
    *,
    stance_judge: Judge,
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
                    stance_judge, excerpt, claim, record.evidence_id, record.snippet or record.title
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
                    "answer": _answer(stance_judge, excerpt, claim, f"search-{index}", text),
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
