"""Model assistance for the steps a model may propose for: one strict-JSON question to an OpenAI-compatible
endpoint, and what came back, before the step's own validation.

Models propose, code decides. ``ModelAssist.ask`` sends quarantined data blocks (H30) and a strict JSON
schema built from a pydantic model; it rejects, before any step sees it, an answer that is oversized
(``MAX_ANSWER_CHARS``), malformed (not JSON for the schema, or over a field's size cap), or injected (any
text in it that is addressed to a model, by the same test that quarantines evidence). Each step then checks
what the answer claims against the record (spans against the captured text, evidence ids against the
ledger) and writes one ``ModelStep`` into the ledger with ``Asked.record``. An unreachable endpoint is
``failed``; every rejection says why. Nothing here raises for a bad answer.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, SecretStr, ValidationError

from icarus.ledger.assistance import AssistOutcome, AssistStep, ModelStep
from icarus.llm.client import DEFAULT_TIMEOUT_S, UNREADABLE_COMPLETION, prompt_hash
from icarus.llm.quarantine import DATA_RULES, quarantine

if TYPE_CHECKING:
    import openai

    # only named in a signature: the settings module costs a tenth of a second to import, and the report
    # renderer reaches this module on every `icarus score`
    from icarus.settings import Settings

__all__ = [
    "DATA_RULES",
    "MAX_ANSWER_CHARS",
    "MAX_REJECTIONS_RECORDED",
    "PROVIDER",
    "Asked",
    "ModelAssist",
    "assist_from_settings",
]

PROVIDER = "openai-compatible"
MAX_ANSWER_CHARS = 16_000
"""Longest answer read at all; every answer schema's own caps sum to well under it."""
MAX_REJECTIONS_RECORDED = 20
"""Rejections kept per step in the ledger; a flood of bad parts is summarised by its count."""

_log = logging.getLogger(__name__)
Answer = TypeVar("Answer", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Asked(Generic[Answer]):
    """One question's outcome: the schema-valid ``answer``, or None with ``problem`` saying why not."""

    step: AssistStep
    claim_id: str | None
    version: str
    prompt_sha256: str
    answer_sha256: str | None
    answer: Answer | None
    failed: bool
    problem: str

    def record(self, rejected: list[str] | None = None, *, used: bool = True) -> ModelStep:
        """The ledger's record of this step. ``rejected`` lists the parts the step's own validation threw
        out; ``used`` says whether anything of the answer is used."""
        reasons = ([self.problem] if self.problem else []) + list(rejected or [])
        if len(reasons) > MAX_REJECTIONS_RECORDED:
            extra = len(reasons) - MAX_REJECTIONS_RECORDED + 1
            reasons = [*reasons[: MAX_REJECTIONS_RECORDED - 1], f"and {extra} more rejected parts"]
        if self.failed:
            outcome = AssistOutcome.FAILED
        elif self.answer is None or not used:
            outcome = AssistOutcome.REJECTED
        elif reasons:
            outcome = AssistOutcome.PARTLY_ACCEPTED
        else:
            outcome = AssistOutcome.ACCEPTED
        return ModelStep(
            step=self.step,
            claim_id=self.claim_id,
            provider=PROVIDER,
            version=self.version,
            prompt_sha256=self.prompt_sha256,
            answer_sha256=self.answer_sha256,
            outcome=outcome,
            rejected=reasons,
        )


class ModelAssist:
    """Asks an OpenAI-compatible chat model for strict-JSON proposals. Provider ``openai-compatible``."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: SecretStr | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        *,
        max_retries: int = 1,
        max_answer_chars: int = MAX_ANSWER_CHARS,
    ) -> None:
        # imported here: the openai client takes about a second to import, and offline checks never need it
        import openai

        self.base_url = base_url
        self.model = model
        self.max_answer_chars = max_answer_chars
        # A placeholder key, never None: the SDK would otherwise read OPENAI_API_KEY from the environment.
        self._client: openai.OpenAI = openai.OpenAI(
            base_url=base_url,
            api_key=api_key.get_secret_value() if api_key is not None else "no-key",
            timeout=timeout,
            max_retries=max_retries,
        )

    def __repr__(self) -> str:
        return f"ModelAssist(base_url={self.base_url!r}, model={self.model!r})"

    def ask(
        self,
        step: AssistStep,
        task: str,
        blocks: list[str],
        schema: type[Answer],
        *,
        claim_id: str | None = None,
    ) -> Asked[Answer]:
        """Ask ``task`` (the system message; ``DATA_RULES`` is appended) about ``blocks`` (server-made lines
        and ``data_block``s of quarantined text) for an answer of ``schema``."""
        import openai

        messages: list[Any] = [
            {"role": "system", "content": f"{task} {DATA_RULES}"},
            {
                "role": "user",
                "content": "\n\n".join([*blocks, "Answer with the JSON object the schema describes."]),
            },
        ]
        name = f"{step.value}_answer"
        digest = prompt_hash({"model": self.model, "messages": messages, "schema": f"{name}@1"})

        def outcome(
            raw: str | None, answer: Answer | None, problem: str, *, failed: bool = False
        ) -> Asked[Answer]:
            if problem:
                _log.warning("model step %s for %s rejected: %s", step.value, claim_id or "subject", problem)
            answer_digest = hashlib.sha256(raw.encode()).hexdigest() if raw is not None else None
            return Asked(step, claim_id, self.model, digest, answer_digest, answer, failed, problem)

        try:
            completion = self._client.chat.completions.create(
                model=self.model,
                messages=messages,
                temperature=0,
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema.model_json_schema(), "strict": True},
                },
            )
            raw = completion.choices[0].message.content
        except openai.OpenAIError as error:
            status = getattr(error, "status_code", None)
            where = f" (HTTP {status})" if status is not None else ""
            return outcome(None, None, f"no answer: {type(error).__name__}{where}", failed=True)
        except UNREADABLE_COMPLETION as error:
            return outcome(None, None, f"unreadable completion: {type(error).__name__}")
        if raw is None:
            return outcome(None, None, "the reply has no content (a refusal or an empty message)")
        if len(raw) > self.max_answer_chars:
            return outcome(
                raw, None, f"oversized answer: {len(raw)} characters, limit {self.max_answer_chars}"
            )
        try:
            answer = schema.model_validate_json(raw)
        except ValidationError as error:
            problems = [
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['type']}" for e in error.errors()[:5]
            ]
            return outcome(raw, None, "malformed answer: " + "; ".join(problems))
        injected = [
            where for where, text in _strings(answer.model_dump(mode="json")) if quarantine(text).flagged
        ]
        if injected:
            return outcome(
                raw, None, f"injected answer: text addressed to a model in {', '.join(injected[:5])}"
            )
        return outcome(raw, answer, "")


def _strings(value: Any, where: str = "answer") -> Iterator[tuple[str, str]]:
    """Every string in a parsed answer, with where it sits."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _strings(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _strings(inner, f"{where}[{index}]")


def assist_from_settings(settings: Settings) -> ModelAssist | None:
    """The model assistance of a check: the configured LLM endpoint and model, or None (offline)."""
    if not settings.llm_base_url or not settings.llm_model:
        return None
    return ModelAssist(settings.llm_base_url, settings.llm_model, settings.llm_api_key)
