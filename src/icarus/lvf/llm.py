"""An LVF assessor backed by an OpenAI-compatible chat endpoint (the same plumbing as the LLM judge).

The model sees the claim, the counts the provenance graph established (independent origins, never article
counts) and the excerpts of the counted evidence, each quarantined (H30) inside a data block, and must
return a strict JSON object with one 0-10 score per criterion. Any network error, refusal or reply that
does not validate fails the assessor closed: it then has no scores and does not count toward the minimum
number of assessors, so the run is held rather than scored on one opinion. The prompt hash and the raw
reply are kept on the private run record and never published.
"""

from __future__ import annotations

import logging
from decimal import Decimal

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from icarus.llm.client import DEFAULT_TIMEOUT_S, UNREADABLE_COMPLETION, prompt_hash
from icarus.llm.quarantine import DATA_RULES, data_block, quarantine
from icarus.scoring.lvf.assessors import (
    LLM_ASSESSOR,
    AssessmentRequest,
    AssessorResult,
    AssessorStatus,
    clamp_score,
)
from icarus.scoring.lvf.config import Criterion
from icarus.settings import Settings

__all__ = [
    "LLM_ASSESSOR",
    "MAX_EXCERPTS",
    "CriterionScores",
    "OpenAICompatibleAssessor",
    "assessor_from_settings",
]

MAX_EXCERPTS = 12
_MAX_EXCERPT_CHARS = 1_500
_log = logging.getLogger(__name__)


class CriterionScores(BaseModel):
    """What the model must return. Every field is required (strict mode)."""

    model_config = ConfigDict(extra="forbid")

    claim_id: str = Field(description="The claim id exactly as given.")
    source_provenance: float = Field(ge=0, le=10)
    corroboration: float = Field(ge=0, le=10)
    internal_consistency: float = Field(ge=0, le=10)
    specificity: float = Field(ge=0, le=10)
    temporal_validity: float = Field(ge=0, le=10)
    bias_signal: float = Field(ge=0, le=10)
    rationale: str = Field(description="Two sentences at most; private, never shown to readers.")


_TASK = (
    "You are one of several independent assessors for an evidence-review engine. Score one claim on six "
    "criteria from 0 (worst) to 10 (best): source_provenance (directness, traceability and quality of the "
    "cited sources), corroboration (agreement from independent origins; copies of one report count once), "
    "internal_consistency (claim and evidence coherent, without material contradictions), specificity "
    "(precise enough to test), temporal_validity (evidence current enough for the claim), bias_signal "
    "(10 when framing and source incentives do not weaken confidence). Use the counts you are given for "
    "independence; do not count articles. " + DATA_RULES
)


class OpenAICompatibleAssessor:
    name = LLM_ASSESSOR

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: SecretStr | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        *,
        max_retries: int = 2,
    ) -> None:
        self.base_url = base_url
        self.model = model
        # A placeholder key, never None, so the SDK never reads OPENAI_API_KEY meant for another service.
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key.get_secret_value() if api_key is not None else "no-key",
            timeout=timeout,
            max_retries=max_retries,
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleAssessor(base_url={self.base_url!r}, model={self.model!r})"

    def _messages(self, request: AssessmentRequest) -> list[ChatCompletionMessageParam]:
        facts = request.facts
        claim = facts.claim
        parts = [
            f"Claim id: {claim.claim_id}",
            data_block(f"claim {claim.claim_id}", quarantine(claim.text).text),
            f"Checked as of: {request.ledger.as_of.isoformat()}; temporal scope: {claim.temporal_scope.value}",
            f"Independent origins supporting: {len(facts.supporting)}; refuting: {len(facts.refuting)}; "
            f"counted evidence items: {len(facts.counted)}",
        ]
        for entry in facts.counted[:MAX_EXCERPTS]:
            item = entry.item
            passage = item.excerpt.text if item.excerpt is not None else item.text
            passage = quarantine(passage[:_MAX_EXCERPT_CHARS]).text
            dated = item.published_at.date().isoformat() if item.published_at else "undated"
            parts.append(
                f"Evidence {item.evidence_id} ({item.source_class.value}, {item.directness.value}, {dated}), "
                f"judged {entry.stance.value}:\n" + data_block(f"evidence {item.evidence_id}", passage)
            )
        parts.append("Answer with the JSON object the schema describes.")
        return [{"role": "system", "content": _TASK}, {"role": "user", "content": "\n\n".join(parts)}]

    def assess(self, request: AssessmentRequest) -> AssessorResult:
        messages = self._messages(request)
        digest = prompt_hash({"model": self.model, "messages": messages, "schema": "lvf_criteria@1"})
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {
                "name": "lvf_criteria",
                "schema": CriterionScores.model_json_schema(),
                "strict": True,
            },
        }
        raw = ""
        try:
            completion = self._client.chat.completions.create(
                model=self.model, messages=messages, temperature=0, response_format=response_format
            )
            raw = completion.choices[0].message.content or ""
            answer = CriterionScores.model_validate_json(raw)
        except openai.OpenAIError as error:
            status = getattr(error, "status_code", None)
            detail = type(error).__name__ + (f" (HTTP {status})" if status is not None else "")
            return self._failed(digest, raw, f"assessor unavailable: {detail}")
        except ValidationError as error:
            return self._failed(
                digest, raw, f"reply does not match the schema ({error.error_count()} problem(s))"
            )
        except UNREADABLE_COMPLETION as error:
            return self._failed(digest, raw, f"unreadable completion: {type(error).__name__}")
        if answer.claim_id != request.facts.claim.claim_id:
            return self._failed(
                digest, raw, f"answers for claim {answer.claim_id!r}, which was not asked about"
            )
        scores = {c: clamp_score(_decimal(getattr(answer, c.value))) for c in Criterion}
        return AssessorResult(
            assessor=self.name,
            provider="openai-compatible",
            version=self.model,
            status=AssessorStatus.OK,
            scores=scores,
            prompt_hash=digest,
            raw_response=raw,
        )

    def _failed(self, digest: str, raw: str, detail: str) -> AssessorResult:
        _log.warning("LVF assessor %s failed closed: %s", self.name, detail)
        return AssessorResult(
            assessor=self.name,
            provider="openai-compatible",
            version=self.model,
            status=AssessorStatus.FAILED,
            failure=detail,
            prompt_hash=digest,
            raw_response=raw or None,
        )


def _decimal(value: float) -> Decimal:
    return Decimal(repr(float(value)))


def assessor_from_settings(settings: Settings) -> OpenAICompatibleAssessor | None:
    """The LLM assessor when ``ICARUS_LLM_BASE_URL`` and ``ICARUS_LLM_MODEL`` are both set, else None."""
    if settings.llm_base_url and settings.llm_model:
        return OpenAICompatibleAssessor(settings.llm_base_url, settings.llm_model, settings.llm_api_key)
    return None
