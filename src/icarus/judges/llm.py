"""A judge backed by any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp, a hosted API).

The model is asked for a strict JSON-schema answer built from a pydantic model, and the reply is validated
with the same model. Evidence and claim text are quarantined (H30) and sent inside data blocks; the model
names evidence by the server-assigned id it was given, and any other id, any reply that is not valid JSON
for the schema, and any network or HTTP error fail closed: neutral, confidence 0, the reason recorded.
The API key is a ``SecretStr`` and appears in no repr, log line or verdict.
"""

from __future__ import annotations

import logging
from typing import Literal

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from icarus.judges.protocol import (
    AttributionVerdict,
    FailureReason,
    Judge,
    JudgeCall,
    JudgeRequest,
    Recorder,
    StanceVerdict,
    failed_stance,
    to_confidence,
)
from icarus.ledger.judgments import JudgeProvenance, ScopeDimension, Stance
from icarus.llm.client import DEFAULT_TIMEOUT_S, UNREADABLE_COMPLETION, prompt_hash
from icarus.llm.quarantine import DATA_RULES, Quarantined, data_block, quarantine

__all__ = [
    "CALIBRATION_ID",
    "MAX_EVIDENCE_CHARS",
    "PROVIDER",
    "AttributionAnswer",
    "OpenAICompatibleJudge",
    "StanceAnswerSchema",
]

PROVIDER = "openai-compatible"
CALIBRATION_ID = "openai-compatible@1-uncalibrated"
MAX_EVIDENCE_CHARS = 12_000
"""Longest evidence text sent; the excerpt is always sent whole."""

_log = logging.getLogger(__name__)


class _Strict(BaseModel):
    # extra="forbid" puts additionalProperties: false in the schema, which strict mode requires.
    model_config = ConfigDict(extra="forbid")


class StanceAnswerSchema(_Strict):
    """What the model must return for a stance question. Every field is required (strict mode)."""

    evidence_id: str = Field(description="The id of the evidence judged, exactly as given.")
    stance: Literal["support", "refute", "neutral"]
    confidence: float = Field(ge=0, le=1, description="Probability that the stance is right.")
    inference_hops: int = Field(
        ge=0, description="Unstated steps needed to get from the evidence to the claim."
    )
    scope_matches: bool = Field(description="Same quantity or definition, place and period as the claim.")
    mismatched_dimensions: list[Literal["quantity", "geography", "period"]]
    rationale: str = Field(description="One or two sentences; not shown to readers.")


class _CreditSchema(_Strict):
    target_name: str | None = Field(description="Name of the credited source, or null.")
    target_url: str | None = Field(
        description="Address of the credited source as written in the text, or null."
    )
    phrase: str = Field(description="The words of the evidence that carry the credit, copied exactly.")


class AttributionAnswer(_Strict):
    """What the model must return for an attribution question."""

    evidence_id: str = Field(description="The id of the evidence read, exactly as given.")
    attributions: list[_CreditSchema]


_STANCE_TASK = (
    "You judge one narrow question for a fact-checking engine: does the evidence support the claim, "
    "refute it, or neither (neutral)? Judge only what the evidence states. Count inference hops: 0 when "
    "the evidence states the claim outright, one more for each unstated step. Say whether the evidence "
    "is about the same quantity or definition, place and period as the claim, and list the dimensions "
    "that differ. Refer to the evidence only by the evidence id you are given. " + DATA_RULES
)
_ATTRIBUTION_TASK = (
    "You list whom a document credits for its information: sources it quotes, cites, links or says it "
    "got its story from (for example 'according to X', 'X told', a wire credit). Copy each phrase exactly "
    "from the document; give an address only if it is written in the document. Return an empty list if "
    "there are none. Refer to the evidence only by the evidence id you are given. " + DATA_RULES
)


def _response_format(name: str, model: type[BaseModel]) -> ResponseFormatJSONSchema:
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": model.model_json_schema(), "strict": True},
    }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "\n[truncated]"


class OpenAICompatibleJudge:
    """A ``Judge`` that asks a chat model. Provider ``openai-compatible``; version is the model name."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: SecretStr | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        *,
        max_retries: int = 2,
        recorder: Recorder | None = None,
        parallel_requests: int = 1,
    ) -> None:
        if parallel_requests < 1:
            raise ValueError(f"parallel_requests must be at least 1, not {parallel_requests}")
        self.base_url = base_url
        self.model = model
        self.timeout = timeout
        self.parallel_requests = parallel_requests
        self._recorder = recorder
        self._provenance = JudgeProvenance(provider=PROVIDER, version=model, calibration_id=CALIBRATION_ID)
        # A placeholder key, never None: the SDK would otherwise read OPENAI_API_KEY from the environment
        # and send a key meant for another service to whatever endpoint is configured here.
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key.get_secret_value() if api_key is not None else "no-key",
            timeout=timeout,
            max_retries=max_retries,
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleJudge(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def provenance(self) -> JudgeProvenance:
        return self._provenance

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """Itself, on up to ``parallel_requests`` threads (``judges.parallel``): the client is thread-safe,
        and the time goes in waiting for the endpoint."""
        return self, self.parallel_requests

    # --- prompts --------------------------------------------------------------------------------------

    def _evidence_blocks(self, request: JudgeRequest) -> tuple[str, bool]:
        excerpt = quarantine(request.excerpt)
        text = quarantine(request.evidence_text)
        blocks = [f"Evidence id: {request.evidence_id}"]
        if excerpt.text:
            blocks.append(data_block(f"evidence {request.evidence_id} excerpt", excerpt.text))
        if text.text and text.text != excerpt.text:
            blocks.append(
                data_block(f"evidence {request.evidence_id} full text", _cut(text.text, MAX_EVIDENCE_CHARS))
            )
        return "\n\n".join(blocks), excerpt.flagged or text.flagged

    def _stance_messages(
        self, request: JudgeRequest, claim: Quarantined
    ) -> tuple[list[ChatCompletionMessageParam], bool]:
        evidence, flagged = self._evidence_blocks(request)
        user = "\n\n".join(
            [
                f"Claim id: {request.claim_id}",
                data_block(f"claim {request.claim_id}", claim.text),
                evidence,
                "Answer with the JSON object the schema describes.",
            ]
        )
        return [{"role": "system", "content": _STANCE_TASK}, {"role": "user", "content": user}], flagged

    def _ask(self, messages: list[ChatCompletionMessageParam], name: str, schema: type[BaseModel]) -> str:
        """The reply's text. Raises ``openai.OpenAIError`` or ``LookupError``/``ValueError`` on failure."""
        completion = self._client.chat.completions.create(
            model=self.model,
            messages=messages,
            temperature=0,
            response_format=_response_format(name, schema),
        )
        content = completion.choices[0].message.content
        if content is None:
            raise ValueError("the reply has no content (a refusal or an empty message)")
        return content

    def _record(self, call: JudgeCall) -> None:
        if self._recorder is not None:
            self._recorder(call)

    # --- questions ------------------------------------------------------------------------------------

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        claim = quarantine(request.claim_text)
        messages, evidence_flagged = self._stance_messages(request, claim)
        digest = prompt_hash({"model": self.model, "messages": messages, "schema": "stance_answer@1"})
        flagged = claim.flagged or evidence_flagged
        raw = ""
        reason: FailureReason | None = None
        detail = ""
        answer: StanceAnswerSchema | None = None
        try:
            raw = self._ask(messages, "stance_answer", StanceAnswerSchema)
        except openai.OpenAIError as error:
            reason, detail = FailureReason.UNAVAILABLE, _describe(error)
        except UNREADABLE_COMPLETION as error:
            reason, detail = FailureReason.INVALID_ANSWER, f"unreadable completion: {type(error).__name__}"
        if reason is None:
            try:
                answer = StanceAnswerSchema.model_validate_json(raw)
            except ValidationError as error:
                reason, detail = FailureReason.INVALID_ANSWER, _validation_summary(error)
            else:
                if answer.evidence_id != request.evidence_id:
                    reason = FailureReason.INVALID_ANSWER
                    detail = f"cites evidence id {answer.evidence_id!r}, which was not asked about"
        self._record(JudgeCall("stance", request.claim_id, request.evidence_id, digest, raw, reason, detail))
        if reason is not None or answer is None:
            _log.warning(
                "stance judge failed closed for claim %s, evidence %s: %s (%s)",
                request.claim_id,
                request.evidence_id,
                reason,
                detail,
            )
            return failed_stance(
                request,
                reason=reason or FailureReason.INVALID_ANSWER,
                detail=detail,
                raw_answer=raw,
                provenance=self._provenance,
                prompt_sha256=digest,
                quarantined=flagged,
            )
        mismatched = tuple(dict.fromkeys(ScopeDimension(d) for d in answer.mismatched_dimensions))
        return StanceVerdict(
            claim_id=request.claim_id,
            evidence_id=request.evidence_id,
            stance=Stance(answer.stance),
            confidence=to_confidence(answer.confidence),
            inference_hops=answer.inference_hops,
            # Listed dimensions win over a contradictory "matches": the cautious reading.
            scope_matches=answer.scope_matches and not mismatched,
            mismatched=mismatched,
            raw_answer=raw,
            provider=PROVIDER,
            version=self.model,
            calibration_id=CALIBRATION_ID,
            prompt_hash=digest,
            quarantined=flagged,
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        evidence, _ = self._evidence_blocks(request)
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": _ATTRIBUTION_TASK},
            {"role": "user", "content": f"{evidence}\n\nAnswer with the JSON object the schema describes."},
        ]
        digest = prompt_hash({"model": self.model, "messages": messages, "schema": "attribution_answer@1"})
        shown = " ".join(
            f"{quarantine(request.excerpt).text} {quarantine(request.evidence_text).text}".split()
        )
        raw = ""
        try:
            raw = self._ask(messages, "attribution_answer", AttributionAnswer)
            answer = AttributionAnswer.model_validate_json(raw)
        except openai.OpenAIError as error:
            self._fail_attribution(request, digest, raw, FailureReason.UNAVAILABLE, _describe(error))
            return []
        except ValidationError as error:
            self._fail_attribution(
                request, digest, raw, FailureReason.INVALID_ANSWER, _validation_summary(error)
            )
            return []
        except UNREADABLE_COMPLETION as error:
            detail = f"unreadable completion: {type(error).__name__}"
            self._fail_attribution(request, digest, raw, FailureReason.INVALID_ANSWER, detail)
            return []
        if answer.evidence_id != request.evidence_id:
            detail = f"cites evidence id {answer.evidence_id!r}, which was not asked about"
            self._fail_attribution(request, digest, raw, FailureReason.INVALID_ANSWER, detail)
            return []
        verdicts: list[AttributionVerdict] = []
        dropped: list[str] = []
        for credit in answer.attributions:
            phrase = " ".join(credit.phrase.split())
            # Credits must be read from the document, not invented: the phrase and any address must be in it.
            url = credit.target_url if credit.target_url and credit.target_url in shown else None
            if not phrase or phrase not in shown or not (credit.target_name or url):
                dropped.append(phrase or "(empty phrase)")
                continue
            verdicts.append(
                AttributionVerdict(
                    evidence_id=request.evidence_id,
                    target_name=credit.target_name or None,
                    target_url=url,
                    phrase=phrase,
                    provider=PROVIDER,
                    version=self.model,
                    calibration_id=CALIBRATION_ID,
                    prompt_hash=digest,
                )
            )
        detail = f"dropped credits not found in the text: {dropped}" if dropped else ""
        self._record(JudgeCall("attribution", None, request.evidence_id, digest, raw, None, detail))
        return verdicts

    def _fail_attribution(
        self, request: JudgeRequest, digest: str, raw: str, reason: FailureReason, detail: str
    ) -> None:
        _log.warning(
            "attribution judge failed closed for evidence %s: %s (%s)", request.evidence_id, reason, detail
        )
        self._record(JudgeCall("attribution", None, request.evidence_id, digest, raw, reason, detail))


def _describe(error: openai.OpenAIError) -> str:
    """A short, key-free account of an SDK error: its class and HTTP status, never the request."""
    status = getattr(error, "status_code", None)
    return f"{type(error).__name__}" + (f" (HTTP {status})" if status is not None else "")


def _validation_summary(error: ValidationError) -> str:
    problems = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['type']}" for e in error.errors()[:5]]
    return "does not match the answer schema: " + "; ".join(problems)
