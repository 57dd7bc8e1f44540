"""Random EvidenceVerify claims for the engine-against-reference comparison (``bench.reference_check``).

A case is a claim item, an evidence store, a table of stance answers (what the judge says about each
record and search hit), a criticality answer and a search outcome. The engine runs its front door
(``run_evidence_verify``: the search rule, then the six steps) with a judge that answers from the table; the
engine's ``verification_inputs`` writes the inputs document, and the reference recomputes the result from
it. Cases come with missing and repeated ids, shared URLs, publishers and wire credits (ties in the
independence keys), every tier, source type, flag, freshness and track, failed and empty answers, every
current status, searches that ran, did not run or found social hits, and half of them under a config whose
stance threshold is moved onto one answer's confidence (±1e-6) or whose source counts are moved onto the
claim's own count (±1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from icarus.evidenceverify.service import run_evidence_verify
from icarus.judges.protocol import AttributionVerdict, FailureReason, JudgeRequest, StanceVerdict
from icarus.ledger import Stance
from icarus.research.excerpts import best_excerpt
from icarus.scoring.evidenceverify.criticality import CriticalityAnswer
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    ClaimStatus,
    CredibilityTier,
    EvidenceStore,
    EvidenceTrack,
    EvidenceVerifyConfig,
    FreshnessStatus,
    SocialCredibilityFlag,
    SourceType,
    VerificationPriority,
    load_evidenceverify_config,
)
from icarus.scoring.evidenceverify.trace import verification_inputs
from icarus.scoring.evidenceverify.verify import SearchOutcome
from reference import evidenceverify

Pick = Callable[[Sequence[Any]], Any]
FAMILY = "evidenceverify"
REF = "evidenceverify@1.0"
AS_OF = datetime(2026, 8, 1, tzinfo=UTC)
CLAIM = "The Halden central bank raised its policy rate to 5.25% in July 2026."
TEXTS = (
    "The Halden central bank raised its policy rate to 5.25% in July 2026, officials said.",
    "HALDEN (Reuters) - The central bank raised its rate to 5.25% in July.",
    "By Associated Press: rates went up in Halden.",
    "",
    "   ",
)
URLS = ("https://a.example/story", "https://b.example/story", "https://a.example/story?utm_source=x")
PUBLISHERS = ("Reuters", "Daily A", "Daily B", "Halden Central Bank")
CONFIDENCES = ("0.5", "0.49", "0.51", "0.9", "0.9", "0.8", "1", "0.500001", "0.499999", "0")
NEAR = (Decimal("-0.000001"), Decimal(0), Decimal("0.000001"))
IDS = ("e0", "e1", "e2", "e3", "e4", "e5")
CONSTANTS = evidenceverify.load_spec()[1]


@dataclass(frozen=True)
class Hit:
    """A search hit as step 5 reads one."""

    url: str
    domain: str
    publisher: str
    text: str
    quotable_snippet: str


class TableJudge:
    """Answers from a table keyed by evidence id (a search hit is ``search-N``); neutral when absent."""

    def __init__(self, answers: dict[str, tuple[str, str, bool]]) -> None:
        self.answers = answers

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        stance, confidence, failed = self.answers.get(request.evidence_id, ("neutral", "0", False))
        return StanceVerdict(
            claim_id=request.claim_id,
            evidence_id=request.evidence_id,
            stance=Stance.NEUTRAL if failed else Stance(stance),
            confidence=Decimal(0) if failed else Decimal(confidence),
            inference_hops=0,
            raw_answer="table",
            provider="table",
            version="1",
            calibration_id="none",
            prompt_hash="",
            failure=FailureReason.UNAVAILABLE if failed else None,
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return []


class FixedCriticality:
    name = "fixed@1"

    def __init__(self, critical: bool) -> None:
        self.answer = CriticalityAnswer(critical, "drawn", "fixed@1")

    def criticality(self, claim: ClaimItem, config: EvidenceVerifyConfig) -> CriticalityAnswer:
        return self.answer


def _record(pick: Pick, evidence_id: str) -> dict[str, Any]:
    source_type = pick((SourceType.WEB, SourceType.WEB, SourceType.GOVERNMENT, *SourceType))
    twitter = source_type is SourceType.TWITTER
    return {
        "evidence_id": evidence_id,
        "url": pick(URLS + (f"https://x.com/p/{evidence_id}",) + (f"https://{evidence_id}.example/",) * 4),
        "publisher": pick(PUBLISHERS + (f"Outlet {evidence_id}",) * 3),
        "publisher_group": pick((None, None, "Group G")),
        "wire_service": pick((None, None, None, "Reuters", "AP")),
        "source_type": source_type.value,
        "credibility_tier": pick(
            (CredibilityTier.TIER4,) * 2 + tuple(CredibilityTier)
            if twitter
            else (CredibilityTier.TIER1, CredibilityTier.TIER2, *CredibilityTier)
        ).value,
        "freshness_status": pick((FreshnessStatus.CURRENT, FreshnessStatus.CURRENT, *FreshnessStatus)).value,
        "evidence_track": pick(list(EvidenceTrack)).value,
        "snippet": pick(TEXTS[:3] * 3 + TEXTS[3:]),
        "title": pick(("", "A headline")),
        "social_credibility_flag": pick((None, *SocialCredibilityFlag)) if twitter else None,
        "verification_priority": pick((None, None, *VerificationPriority)),
        "source_reachable": pick((None, None, True, False)),
    }


def _answer(pick: Pick) -> tuple[str, str, bool]:
    stance = pick(("support", "support", "support", "refute", "neutral"))
    return stance, pick(CONFIDENCES), pick((False,) * 7 + (True,))


def random_case(pick: Pick) -> dict[str, Any]:
    held = [i for i in IDS if pick((True, False))]
    records = [_record(pick, i) for i in held]
    choices = tuple(held) * 4 + IDS + ("e9",)
    cited = [pick(choices) for _ in range(pick((0, 1, 2, 2, 3, 3, 4, 5)))]
    hits = [
        Hit(
            url=f"https://h{n}.example/",
            domain=pick(("h.example", "x.com", "reddit.com", "")),
            publisher=pick(("", "Hit News", "Reuters")),
            text=pick(TEXTS),
            quotable_snippet=pick(TEXTS),
        )
        for n in range(pick(range(4)))
    ]
    answers = {i: _answer(pick) for i in IDS if pick((True, True, True, False))}
    answers |= {f"search-{n}": _answer(pick) for n in range(1, len(hits) + 1)}
    search = pick(("ran", "ran", "failed", "unconfigured"))
    return {
        "claim": {
            "claim_id": "c1",
            "text": CLAIM,
            "evidence_ids": cited,
            "status": pick(list(ClaimStatus)).value,
            "evidence_track": pick((EvidenceTrack.FACT, EvidenceTrack.FACT, EvidenceTrack.REASONING)).value,
        },
        "store": {"evidence": records},
        "answers": answers,
        "critical": pick((True, False)),
        "requested": pick((True, False)),
        "search": (
            SearchOutcome(ran=True, hits=tuple(hits))
            if search == "ran"
            else SearchOutcome(ran=False, detail="provider down" if search == "failed" else "")
        ),
    }


def _run(case: dict[str, Any], config: EvidenceVerifyConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """The engine's result and the inputs document it publishes for this case."""
    claim = ClaimItem.model_validate(case["claim"])
    store = EvidenceStore.model_validate(case["store"])
    judge, criticality = TableJudge(case["answers"]), FixedCriticality(case["critical"])
    run = run_evidence_verify(
        claim,
        store,
        config,
        stance_judge=judge,
        criticality_judge=criticality,
        providers=(),
        independent=case["requested"],
        as_of=AS_OF,
        searched=case["search"],
        every_record=True,
    )
    inputs = verification_inputs(
        claim,
        store,
        answers=run.answers,
        excerpt=best_excerpt,
        criticality=run.criticality,
        search=run.search,
        independent_search_requested=case["requested"],
    )
    result = run.result
    return result.model_dump(mode="json"), inputs


def boundary_config(base: EvidenceVerifyConfig, case: dict[str, Any], pick: Pick) -> EvidenceVerifyConfig:
    """``base``, or base with its stance threshold or one source count moved onto the case's own value."""
    if pick((True, False)):
        return base
    data = base.model_dump(mode="json")
    limit = pick(("stance_confidence", "min_independent_sources_critical", "high_confidence_sources",
                  "strong_independent_sources", "min_sources_peripheral"))  # fmt: skip
    if limit == "stance_confidence":
        confidences = sorted({Decimal(c) for _, c, _ in case["answers"].values()})
        if not confidences:
            return base
        data[limit] = str(pick(confidences) + pick(NEAR))
    else:
        result, _ = _run(case, base)
        data[limit] = max(1, len(result["independent_sources"]) + pick((-1, 0, 1)))
    return EvidenceVerifyConfig.model_validate(data)


def differences(case: dict[str, Any], config: EvidenceVerifyConfig) -> list[str]:
    """The result fields on which the engine and the reference disagree (none: agreement)."""
    engine, inputs = _run(case, config)
    mine = evidenceverify.verify(inputs, _spec_config(config), CONSTANTS)
    return [k for k in evidenceverify.OUTPUTS if engine.get(k) != mine.get(k)]


def _spec_config(config: EvidenceVerifyConfig) -> dict[str, Any]:
    data: dict[str, Any] = config.model_dump(mode="json")
    for key in ("reputable_tiers", "non_social_tiers"):
        data[key] = sorted(data[key])
    return data


def draw(pick: Pick) -> tuple[dict[str, Any], EvidenceVerifyConfig]:
    """One case under its (maybe moved) config."""
    case = random_case(pick)
    return case, boundary_config(load_evidenceverify_config(REF), case, pick)


def engine_status(case: dict[str, Any], config: EvidenceVerifyConfig) -> str:
    return str(_run(case, config)[0]["status"])
