"""One EvidenceVerify run: decide whether to search, search if so, ask the stance judge the six steps'
questions, then apply the pure six steps to its answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from icarus.evidenceverify.search import independent_search
from icarus.judges.parallel import judge_all
from icarus.judges.protocol import Judge, JudgeRequest, StanceVerdict
from icarus.judges.registry import OPENAI_COMPATIBLE_JUDGE
from icarus.research.excerpts import best_excerpt
from icarus.research.providers import SearchProvider
from icarus.scoring.evidenceverify.criticality import CriticalityAnswer, CriticalityJudge
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    EvidenceStore,
    EvidenceVerifyConfig,
    VerificationResult,
)
from icarus.scoring.evidenceverify.verify import (
    SearchOutcome,
    StanceAnswers,
    search_needed,
    stance_requests,
    verify_claim,
)
from icarus.settings import Settings

__all__ = [
    "DEFAULT_STANCE_JUDGE",
    "Verification",
    "default_stance_judge",
    "evidence_verify",
    "judge_stances",
    "run_evidence_verify",
]

DEFAULT_STANCE_JUDGE: Final = "offline-lexical@1"
"""The judge a run uses when none is named and no LLM endpoint is configured."""


def default_stance_judge(settings: Settings) -> str:
    """The judge a run uses when the caller names none: the configured LLM endpoint, else the offline one."""
    return OPENAI_COMPATIBLE_JUDGE if settings.llm_base_url and settings.llm_model else DEFAULT_STANCE_JUDGE


@dataclass(frozen=True, slots=True)
class Verification:
    """A run's result with what the six steps read: the judge's answers, the search and the criticality."""

    result: VerificationResult
    answers: StanceAnswers
    search: SearchOutcome | None
    criticality: CriticalityAnswer


def judge_stances(judge: Judge, requests: Sequence[JudgeRequest]) -> dict[JudgeRequest, StanceVerdict]:
    """The judge's answer to each question, each asked once; several at once where the judge gains from it
    (an LLM endpoint does)."""
    unique = list(dict.fromkeys(requests))
    verdicts = judge_all(judge, lambda worker, request: worker.stance(request), unique)
    return dict(zip(unique, verdicts, strict=True))


def run_evidence_verify(
    claim: ClaimItem,
    store: EvidenceStore,
    config: EvidenceVerifyConfig,
    *,
    stance_judge: Judge,
    criticality_judge: CriticalityJudge,
    providers: Sequence[SearchProvider],
    independent: bool,
    as_of: datetime,
    searched: SearchOutcome | None = None,
    every_record: bool = False,
) -> Verification:
    """``searched``: the outcome of a search already run for this claim (a replay reuses the stored one)
    instead of searching again. ``every_record``: also ask about the expired records the steps skip, for
    the inputs document (``verification_inputs``)."""
    reasons = search_needed(claim, store, independent)
    search: SearchOutcome | None = None
    if reasons:
        search = searched or independent_search(claim, store, providers, config, as_of)
    asked = stance_requests(claim, store, best_excerpt, search, every_record=every_record)
    answers = judge_stances(stance_judge, asked)
    criticality = criticality_judge.criticality(claim, config)
    result = verify_claim(
        claim,
        store,
        config,
        answers=answers,
        excerpt=best_excerpt,
        criticality=criticality,
        search=search,
    )
    if reasons:
        notes = ["independent search: " + "; ".join(reasons), *result.verification_notes]
        result = result.model_copy(update={"verification_notes": notes})
    return Verification(result=result, answers=answers, search=search, criticality=criticality)


def evidence_verify(
    claim: ClaimItem,
    store: EvidenceStore,
    config: EvidenceVerifyConfig,
    *,
    stance_judge: Judge,
    criticality_judge: CriticalityJudge,
    providers: Sequence[SearchProvider],
    independent: bool,
    as_of: datetime,
    searched: SearchOutcome | None = None,
) -> VerificationResult:
    """The result of ``run_evidence_verify``."""
    return run_evidence_verify(
        claim,
        store,
        config,
        stance_judge=stance_judge,
        criticality_judge=criticality_judge,
        providers=providers,
        independent=independent,
        as_of=as_of,
        searched=searched,
    ).result
