"""EvidenceVerify as a registered scoring model (``evidenceverify@1.0``) over an Icarus evidence ledger.

The ledger is read as an evidence store and one claim item per claim:

- each claim cites the evidence items judged against it; its current status is ``unverified``;
- an evidence item's ``source_type`` comes from its source class (platform items on X are ``twitter``,
  scholarly and preprint items ``academic``, primary official sources ``government``, the rest ``web``);
- its ``credibility_tier`` from its reputation tier (primary official and wire: tier1; national and regional
  news, fact checkers, scholarly: tier2; the rest tier3; platforms: tier4);
- a wire item names itself as the wire; its snippet is the excerpt (or the start of its text); an
  inaccessible item is unreachable;
- the stance judgments already in the ledger are the cross-source agreement answers (``ledger_answers``):
  the ledger is the registry's input and already holds what the judges said, so the model runs no judge
  and reads nothing but the ledger (the snippet is already the ledger's excerpt, so it is read whole). No
  independent search runs here (``independent_search`` is "not run").

Result shape (JSON): ``model``, ``family``, ``config_hash``, ``code_hash``, ``ledger_id``, ``claims`` (one
verification result per claim, as ``icarus evidence-verify --json`` prints it), ``inputs`` (per claim, what
its status rules read: the cited records with their independence keys and stance answers, the criticality
answer; docs/spec/evidenceverify.md) and ``trace_hash``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

from icarus.judges.protocol import JudgeRequest, StanceVerdict
from icarus.ledger import Access, EvidenceItem, Ledger, SourceClass, SourceTier, Span, Stance
from icarus.scoring.canonical import canonical_json, code_hash, sha256_hex
from icarus.scoring.evidenceverify.criticality import OfflineCriticalityJudge
from icarus.scoring.evidenceverify.methodology import render_evidenceverify_methodology
from icarus.scoring.evidenceverify.models import (
    CONFIG_FILES,
    ClaimItem,
    CredibilityTier,
    EvidenceRecord,
    EvidenceStore,
    EvidenceVerifyConfig,
    SourceType,
    load_evidenceverify_config,
)
from icarus.scoring.evidenceverify.trace import verification_inputs
from icarus.scoring.evidenceverify.verify import SOCIAL_HOSTS, stance_requests, verify_claim
from icarus.scoring.registry import ItemWeight, ModelRegistry, Verdict

__all__ = [
    "FAMILY",
    "EvidenceVerifyModel",
    "ledger_answers",
    "ledger_as_store",
    "register_models",
    "whole_snippet",
]

FAMILY = "evidenceverify"
CODE_HASH = code_hash(Path(__file__).parent)
_SNIPPET_CHARS = 500
_TIERS = {
    SourceTier.PRIMARY_OFFICIAL: CredibilityTier.TIER1,
    SourceTier.WIRE: CredibilityTier.TIER1,
    SourceTier.NATIONAL_NEWS: CredibilityTier.TIER2,
    SourceTier.REGIONAL_NEWS: CredibilityTier.TIER2,
    SourceTier.FACT_CHECKER: CredibilityTier.TIER2,
    SourceTier.SCHOLARLY: CredibilityTier.TIER2,
    SourceTier.NGO_THINK_TANK: CredibilityTier.TIER3,
    SourceTier.OTHER: CredibilityTier.TIER3,
}


def _record(item: EvidenceItem) -> EvidenceRecord:
    platform = item.source_class is SourceClass.PLATFORM or item.domain in SOCIAL_HOSTS
    if platform:
        source_type = SourceType.TWITTER if item.domain in {"x.com", "twitter.com"} else SourceType.OTHER
    elif item.source_class in (SourceClass.SCHOLARLY, SourceClass.PREPRINT_SERVER):
        source_type = SourceType.ACADEMIC
    elif item.source_class is SourceClass.PRIMARY_OFFICIAL:
        source_type = SourceType.GOVERNMENT
    else:
        source_type = SourceType.WEB
    snippet = item.excerpt.text if item.excerpt is not None else item.text[:_SNIPPET_CHARS]
    return EvidenceRecord(
        evidence_id=item.evidence_id,
        url=item.url,
        publisher=item.publisher,
        wire_service=item.publisher if item.source_class is SourceClass.WIRE else None,
        source_type=source_type,
        credibility_tier=CredibilityTier.TIER4 if platform else _TIERS[item.reputation.tier],
        title=item.title or "",
        snippet=snippet,
        published_at=item.published_at,
        source_reachable=False if item.flags.access is Access.INACCESSIBLE else None,
    )


def ledger_as_store(ledger: Ledger) -> tuple[EvidenceStore, list[ClaimItem]]:
    store = EvidenceStore(evidence=[_record(item) for item in ledger.evidence])
    claims = [
        ClaimItem(
            claim_id=claim.claim_id,
            text=claim.text,
            evidence_ids=[
                i.evidence_id for i in ledger.evidence if i.judgment_for(claim.claim_id) is not None
            ],
        )
        for claim in ledger.claims
    ]
    return store, claims


def whole_snippet(text: str, claim_text: str) -> Span:
    """The excerpt of a ledger item's snippet: all of it, since the snippet is the ledger's own excerpt."""
    return Span(start=0, end=len(text))


def _recorded(items: Mapping[str, EvidenceItem], request: JudgeRequest) -> StanceVerdict:
    item = items.get(request.evidence_id)
    judgment = item.judgment_for(request.claim_id) if item is not None else None
    if judgment is None or judgment.stance.failure is not None:
        stance, confidence = Stance.NEUTRAL, Decimal(0)
        provenance = ("ledger", "1", "recorded")
    else:
        answer = judgment.stance
        stance, confidence = answer.stance, answer.confidence
        provenance = (answer.judge.provider, answer.judge.version, answer.judge.calibration_id)
    return StanceVerdict(
        claim_id=request.claim_id,
        evidence_id=request.evidence_id,
        stance=stance,
        confidence=confidence,
        inference_hops=judgment.inference_hops if judgment is not None else 0,
        raw_answer="recorded in the ledger",
        provider=provenance[0],
        version=provenance[1],
        calibration_id=provenance[2],
        prompt_hash="",
    )


def ledger_answers(ledger: Ledger, requests: Sequence[JudgeRequest]) -> dict[JudgeRequest, StanceVerdict]:
    """The answer to each stance question from the judgment already recorded in the ledger (no model
    runs); an item without one, or whose judgment failed, reads as neutral at confidence 0."""
    items = {item.evidence_id: item for item in ledger.evidence}
    return {request: _recorded(items, request) for request in requests}


class EvidenceVerifyModel:
    family = FAMILY

    def __init__(self, config: EvidenceVerifyConfig) -> None:
        self.config = config

    @property
    def ref(self) -> str:
        return self.config.ref

    @property
    def config_hash(self) -> str:
        return self.config.config_hash

    def config_data(self) -> dict[str, Any]:
        data: dict[str, Any] = self.config.model_dump(mode="json")
        for key in ("reputable_tiers", "non_social_tiers"):
            data[key] = sorted(data[key])
        return data

    def score(self, ledger: Ledger) -> dict[str, Any]:
        store, claims = ledger_as_store(ledger)
        criticality = OfflineCriticalityJudge()
        results, inputs = [], []
        for claim in claims:
            answer = criticality.criticality(claim, self.config)
            asked = stance_requests(claim, store, whole_snippet, None, every_record=True)
            answers = ledger_answers(ledger, asked)
            result = verify_claim(
                claim,
                store,
                self.config,
                answers=answers,
                excerpt=whole_snippet,
                criticality=answer,
                search=None,
            )
            results.append(result.model_dump(mode="json"))
            inputs.append(
                verification_inputs(
                    claim,
                    store,
                    answers=answers,
                    excerpt=whole_snippet,
                    criticality=answer,
                    search=None,
                    independent_search_requested=False,
                )
            )
        return {
            "model": self.ref,
            "family": FAMILY,
            "config_hash": self.config_hash,
            "code_hash": CODE_HASH,
            "ledger_id": ledger.ledger_id,
            "claims": results,
            "inputs": inputs,
            "trace_hash": "sha256:" + sha256_hex(canonical_json(results)),
        }

    def methodology(self) -> str:
        return render_evidenceverify_methodology(self.config)

    def verdicts(self, result: Mapping[str, Any]) -> list[Verdict]:
        return [
            Verdict(
                claim_id=claim["claim_id"],
                outcome=claim["status"],
                band=claim["confidence_level"],
                probability=None,
                shown_as=f"{claim['status']} (confidence {claim['confidence_level']}) under {self.ref}",
            )
            for claim in result["claims"]
        ]

    def item_weights(self, result: Mapping[str, Any]) -> list[ItemWeight]:
        return []  # EvidenceVerify counts independent sources; it weighs no item


def register_models(registry: ModelRegistry) -> None:
    for ref in sorted(CONFIG_FILES):
        registry.register(ref, FAMILY, partial(_load, ref))


def _load(ref: str) -> EvidenceVerifyModel:
    return EvidenceVerifyModel(load_evidenceverify_config(ref))
