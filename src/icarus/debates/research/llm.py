"""The debate's LLM calls over the configured OpenAI-compatible endpoint: navigation, final text, the
elector's choice and translation.

Every call asks for a strict JSON-schema answer built from a pydantic model and treats the reply as
untrusted input. It is *rejected*, recorded, and the caller falls back to its offline rule, when it is

- ``unavailable``: every candidate model failed to answer (network, HTTP error, timeout);
- ``oversized``: longer than ``MAX_ANSWER_CHARS``;
- ``malformed``: not JSON for the schema;
- ``injected``: one of its strings holds text addressed to a model (``INSTRUCTION_INJECTION``), which a
  page quoted in the prompt may have planted;
- ``invalid``: it names something it was not offered (a link or evidence id), or otherwise fails the
  caller's own check.

Models name links and evidence only by the server-assigned ids they are shown; claim and page text reach
them quarantined (H30) inside data blocks. Which model answers is chosen by ``model_choice``: candidates
in the debate's weighted order, the next one tried when a model is unavailable. Each call is logged in
``DebateLLM.calls`` (role, model, prompt hash, outcome, detail and the start of the raw answer) for the
panel's trace; the API key appears in no log, repr or trace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final, Literal, TypeVar

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from icarus.debates.elector import ChooserPanel
from icarus.debates.model_choice import CandidateModel, ModelWeights, parse_candidates, rank_models
from icarus.debates.research.base import DEFAULT_LLM_TIMEOUT_S, LlmConfig, ResearchServices
from icarus.llm.client import prompt_hash
from icarus.llm.quarantine import DATA_RULES, data_block, quarantine
from icarus.settings import Settings
from icarus.text.markers import INSTRUCTION_INJECTION

__all__ = [
    "MAX_ANSWER_CHARS",
    "AgentAction",
    "CallOutcome",
    "DebateLLM",
    "DebateLlmConfig",
    "LLMCall",
    "LLMRole",
    "NavigationChoice",
    "PanelChoice",
    "Translation",
    "WrittenSummary",
    "debate_llm",
    "with_model_weights",
]

_log = logging.getLogger(__name__)

MAX_ANSWER_CHARS: Final = 8_000
"""Longest answer accepted: every schema here fits in a fraction of it; a longer one is not an answer."""
RAW_KEPT_CHARS: Final = 500
"""How much of a raw answer the trace keeps."""
MAX_TEXT_SHOWN: Final = 1_500
MAX_SOURCES_SHOWN: Final = 8
"""Longest page passage shown to a navigator for one result or link."""

_UNREADABLE_COMPLETION = (LookupError, ValueError, AttributeError, TypeError, RecursionError)


class LLMRole(StrEnum):
    NAVIGATOR = "navigator"
    WRITER = "writer"
    CHOOSER = "chooser"
    TRANSLATOR = "translator"
    ADJUDICATOR = "adjudicator"


class CallOutcome(StrEnum):
    ACCEPTED = "accepted"
    UNAVAILABLE = "unavailable"
    OVERSIZED = "oversized"
    MALFORMED = "malformed"
    INJECTED = "injected"
    INVALID = "invalid"


@dataclass(frozen=True)
class LLMCall:
    """One question to the endpoint and what became of the answer."""

    role: LLMRole
    model: str | None
    prompt_sha256: str
    outcome: CallOutcome
    detail: str = ""
    raw: str = ""
    tried: tuple[str, ...] = ()

    def as_trace(self) -> dict[str, Any]:
        return {
            "role": self.role.value,
            "model": self.model,
            "prompt_sha256": self.prompt_sha256,
            "outcome": self.outcome.value,
            "detail": self.detail,
            "raw": self.raw[:RAW_KEPT_CHARS],
            "tried": list(self.tried),
        }


# --- answer schemas -------------------------------------------------------------------------------------


class _Strict(BaseModel):
    # extra="forbid" puts additionalProperties: false in the schema, which strict mode requires.
    model_config = ConfigDict(extra="forbid")


class AgentAction(_Strict):
    """The agentic loop's next step: run a search, open an offered result, or finish."""

    action: Literal["search", "open", "finish"]
    query: str | None = Field(max_length=300, description="For search: plain words, no operators; else null.")
    result_id: str | None = Field(
        max_length=16,
        description="For open: the id of an offered search result, exactly as given; else null.",
    )
    reason: str = Field(max_length=500, description="One sentence on why.")


class NavigationChoice(_Strict):
    """Ricochet's next move: follow offered links, ask for another search, or stop and summarise."""

    action: Literal["follow", "search", "stop"]
    link_ids: list[str] = Field(max_length=3, description="For follow: ids of offered links, best first.")
    query: str | None = Field(max_length=300, description="For search: plain words, no operators; else null.")
    reason: str = Field(max_length=500, description="One sentence on why.")


class WrittenSummary(_Strict):
    """The final text of a panel: its verdict, explanation and the evidence it cites."""

    verdict: Literal["true", "false", "partially_true", "misleading", "unverifiable"]
    explanation: str = Field(max_length=2_000, description="Two to five sentences in the claim's language.")
    cited_ids: list[str] = Field(max_length=12, description="Ids of the evidence relied on, as given.")


class PanelChoice(_Strict):
    """The elector's pick among panels that disagree."""

    panel_id: int
    reason: str = Field(max_length=500)


class Translation(_Strict):
    text: str = Field(max_length=2_000, description="The text in the target language, nothing else.")


_T = TypeVar("_T", bound=BaseModel)

# --- the client -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DebateLlmConfig(LlmConfig):
    """An endpoint with several candidate models and the debate's bias among them (``model_choice``).
    ``model`` is the configured default; it leads the candidates unless they name it elsewhere."""

    candidates: tuple[CandidateModel, ...] = ()
    weights: ModelWeights = field(default_factory=ModelWeights)

    @classmethod
    def for_debate(
        cls, settings: Settings, weights: ModelWeights, candidates_spec: str | None = None
    ) -> DebateLlmConfig | None:
        """The endpoint in ``settings`` with the candidates ``candidates_spec`` lists (``parse_candidates``;
        none: the configured model alone), biased by a debate's ``weights``. None when no endpoint is set."""
        base = LlmConfig.from_settings(settings)
        if base is None:
            return None
        candidates = tuple(parse_candidates(candidates_spec)) if candidates_spec else ()
        return cls(base.base_url, base.model, base.api_key, base.timeout_s, candidates, weights)

    def ordered_models(self) -> list[CandidateModel]:
        listed = list(self.candidates)
        if not any(c.name == self.model for c in listed):
            listed.insert(0, CandidateModel(name=self.model))
        return rank_models(listed, self.weights)


def _response_format(name: str, schema: type[BaseModel]) -> ResponseFormatJSONSchema:
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": schema.model_json_schema(), "strict": True},
    }


def _describe(error: openai.OpenAIError) -> str:
    status = getattr(error, "status_code", None)
    return type(error).__name__ + (f" (HTTP {status})" if status is not None else "")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def _injected(answer: BaseModel) -> str | None:
    for text in _strings(answer.model_dump()):
        found = INSTRUCTION_INJECTION.search(text)
        if found is not None:
            return f"the answer holds text addressed to a model: {found.group(0)!r}"
    return None


def _shown(label: str, text: str, limit: int = MAX_TEXT_SHOWN) -> str:
    cleaned = quarantine(text).text
    return data_block(label, cleaned[:limit])


class DebateLLM:
    """The debate's client for one endpoint and its candidate models, in the debate's weighted order."""

    def __init__(
        self,
        base_url: str,
        models: Sequence[CandidateModel],
        *,
        api_key: SecretStr | None = None,
        timeout_s: float = DEFAULT_LLM_TIMEOUT_S,
        max_answer_chars: int = MAX_ANSWER_CHARS,
        max_retries: int = 0,
    ) -> None:
        if not models:
            raise ValueError("at least one candidate model is needed")
        self.base_url = base_url
        self.models = list(models)
        self.timeout_s = timeout_s
        self.max_answer_chars = max_answer_chars
        self.calls: list[LLMCall] = []
        # A placeholder key, never None: the SDK would otherwise send OPENAI_API_KEY to this endpoint.
        # No SDK retries: an unavailable model hands over to the next candidate at once.
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key.get_secret_value() if api_key is not None else "no-key",
            timeout=timeout_s,
            max_retries=max_retries,
        )

    @classmethod
    def from_config(cls, config: LlmConfig) -> DebateLLM:
        models = (
            config.ordered_models()
            if isinstance(config, DebateLlmConfig)
            else [CandidateModel(name=config.model)]
        )
        return cls(config.base_url, models, api_key=config.api_key, timeout_s=config.timeout_s)

    def __repr__(self) -> str:
        return f"DebateLLM(base_url={self.base_url!r}, models={[m.name for m in self.models]!r})"

    def trace(self) -> list[dict[str, Any]]:
        return [call.as_trace() for call in self.calls]

    # --- the one way a question is asked --------------------------------------------------------------

    def ask(
        self,
        role: LLMRole,
        task: str,
        user: str,
        schema: type[_T],
        *,
        check: Callable[[_T], str | None] | None = None,
        timeout_s: float | None = None,
    ) -> _T | None:
        """The validated answer to one question, or None (and the rejection recorded). ``check`` returns
        why an otherwise well-formed answer is unacceptable, or None."""
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": f"{task} {DATA_RULES}"},
            {"role": "user", "content": f"{user}\n\nAnswer with the JSON object the schema describes."},
        ]
        digest = prompt_hash({"role": role.value, "messages": messages, "schema": schema.__name__})
        raw, model, tried, failure = self._complete(messages, schema, timeout_s)
        if raw is None:
            self._reject(role, None, digest, CallOutcome.UNAVAILABLE, failure, "", tried)
            return None
        if len(raw) > self.max_answer_chars:
            detail = f"{len(raw)} characters, over the {self.max_answer_chars}-character limit"
            self._reject(role, model, digest, CallOutcome.OVERSIZED, detail, raw, tried)
            return None
        try:
            answer = schema.model_validate_json(raw)
        except ValidationError as error:
            problems = [
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['type']}" for e in error.errors()[:5]
            ]
            detail = "does not match the answer schema: " + "; ".join(problems)
            self._reject(role, model, digest, CallOutcome.MALFORMED, detail, raw, tried)
            return None
        injected = _injected(answer)
        if injected is not None:
            self._reject(role, model, digest, CallOutcome.INJECTED, injected, raw, tried)
            return None
        problem = check(answer) if check is not None else None
        if problem is not None:
            self._reject(role, model, digest, CallOutcome.INVALID, problem, raw, tried)
            return None
        self.calls.append(LLMCall(role, model, digest, CallOutcome.ACCEPTED, "", raw, tried))
        return answer

    def _complete(
        self, messages: list[ChatCompletionMessageParam], schema: type[BaseModel], timeout_s: float | None
    ) -> tuple[str | None, str | None, tuple[str, ...], str]:
        """The first reply any candidate gives, in order; an unavailable model hands over to the next."""
        tried: list[str] = []
        failures: list[str] = []
        timeout = min(self.timeout_s, timeout_s) if timeout_s is not None else self.timeout_s
        for model in self.models:
            tried.append(model.name)
            try:
                completion = self._client.with_options(timeout=max(timeout, 0.1)).chat.completions.create(
                    model=model.name,
                    messages=messages,
                    temperature=0,
                    response_format=_response_format(schema.__name__.lower(), schema),
                )
                content = completion.choices[0].message.content
            except openai.OpenAIError as error:
                failures.append(f"{model.name}: {_describe(error)}")
                continue
            except _UNREADABLE_COMPLETION as error:
                failures.append(f"{model.name}: unreadable completion ({type(error).__name__})")
                continue
            if content is None:
                failures.append(f"{model.name}: no content")
                continue
            return content, model.name, tuple(tried), ""
        return None, None, tuple(tried), "; ".join(failures) or "no model answered"

    def _reject(
        self,
        role: LLMRole,
        model: str | None,
        digest: str,
        outcome: CallOutcome,
        detail: str,
        raw: str,
        tried: Sequence[str],
    ) -> None:
        _log.warning("debate %s answer rejected (%s): %s", role.value, outcome.value, detail)
        self.calls.append(LLMCall(role, model, digest, outcome, detail, raw[:RAW_KEPT_CHARS], tuple(tried)))
        return None

    # --- the questions --------------------------------------------------------------------------------

    def next_action(
        self,
        claim_text: str,
        results: Sequence[tuple[str, str, str, str]],
        history: Sequence[str],
        budget_note: str,
        *,
        timeout_s: float | None = None,
    ) -> AgentAction | None:
        """The agentic loop's next step. ``results`` are the unread search results as (id, domain, title,
        snippet); ``history`` is what has been done so far, in the loop's own words."""
        offered = {result_id for result_id, *_ in results}
        shown = "\n".join(
            f"Result {rid} ({domain}):\n" + _shown(f"result {rid}", f"{title}\n{snippet}")
            for rid, domain, title, snippet in results
        )
        user = "\n\n".join(
            [
                data_block("claim", quarantine(claim_text).text),
                "Done so far:\n" + ("\n".join(f"- {line}" for line in history) or "- nothing yet"),
                f"Budget left: {budget_note}",
                "Unread search results:\n" + (shown or "(none)"),
            ]
        )

        def check(answer: AgentAction) -> str | None:
            if answer.action == "search" and not (answer.query or "").strip():
                return "a search with no query"
            if answer.action == "open" and answer.result_id not in offered:
                return f"opens result {answer.result_id!r}, which was not offered"
            return None

        return self.ask(LLMRole.NAVIGATOR, _AGENT_TASK, user, AgentAction, check=check, timeout_s=timeout_s)

    def navigate(
        self,
        claim_text: str,
        links: Sequence[tuple[str, str, str]],
        gathered: Sequence[str],
        budget_note: str,
        *,
        timeout_s: float | None = None,
    ) -> NavigationChoice | None:
        """Ricochet's next move. ``links`` are the links it may follow as (id, url, anchor text)."""
        offered = {link_id for link_id, *_ in links}
        shown = "\n".join(
            f"Link {lid}: {_shown(f'link {lid}', f'{url} | {anchor}', 400)}" for lid, url, anchor in links
        )
        user = "\n\n".join(
            [
                data_block("claim", quarantine(claim_text).text),
                "Evidence gathered so far:\n" + ("\n".join(f"- {line}" for line in gathered) or "- none"),
                f"Budget left: {budget_note}",
                "Links you may follow:\n" + (shown or "(none)"),
            ]
        )

        def check(answer: NavigationChoice) -> str | None:
            if answer.action == "follow":
                unknown = [lid for lid in answer.link_ids if lid not in offered]
                if unknown or not answer.link_ids:
                    return f"follows links {unknown or answer.link_ids!r} that were not offered"
            if answer.action == "search" and not (answer.query or "").strip():
                return "a search with no query"
            return None

        return self.ask(
            LLMRole.NAVIGATOR, _NAVIGATE_TASK, user, NavigationChoice, check=check, timeout_s=timeout_s
        )

    def write_summary(
        self,
        claim_text: str,
        language: str,
        scored_verdict: str,
        evidence: Sequence[tuple[str, str, str, str]],
        *,
        timeout_s: float | None = None,
    ) -> WrittenSummary | None:
        """The final verdict, explanation and citations. ``evidence`` is the admitted evidence as (id,
        domain, stance, excerpt). The verdict must be the one the policy scored from the same evidence:
        the writer words the answer, the versioned code decides it."""
        offered = {evidence_id for evidence_id, *_ in evidence}
        shown = "\n".join(
            f"Evidence {eid} ({domain}, read as {stance}):\n" + _shown(f"evidence {eid}", excerpt)
            for eid, domain, stance, excerpt in evidence
        )
        user = "\n\n".join(
            [
                data_block("claim", quarantine(claim_text).text),
                f"Language of the claim (write in it): {language}",
                f"Verdict scored from this evidence: {scored_verdict}",
                "Evidence:\n" + (shown or "(none)"),
            ]
        )

        def check(answer: WrittenSummary) -> str | None:
            if answer.verdict != scored_verdict:
                return f"verdict {answer.verdict!r} differs from the scored verdict {scored_verdict!r}"
            unknown = [eid for eid in answer.cited_ids if eid not in offered]
            if unknown:
                return f"cites evidence {unknown!r} that was not offered"
            if not answer.explanation.strip():
                return "an empty explanation"
            return None

        return self.ask(LLMRole.WRITER, _WRITER_TASK, user, WrittenSummary, check=check, timeout_s=timeout_s)

    def choose(
        self, candidates: Sequence[ChooserPanel], claim_text: str = "", *, timeout_s: float | None = None
    ) -> int | None:
        """The elector's pick among ``candidates`` (``elector.Chooser``): an offered panel id, or None when
        no acceptable answer came. Panels are shown without confidence or sub-question counts."""
        offered = {panel.panel_id for panel in candidates}
        blocks = [data_block("claim", quarantine(claim_text).text)] if claim_text.strip() else []
        for panel in candidates:
            sources = []
            for source in panel.sources[:MAX_SOURCES_SHOWN]:
                published = source.published_at.date().isoformat() if source.published_at else "undated"
                primary = ", primary" if source.is_primary else ""
                sources.append(f"- {source.domain} ({source.stance}, {published}{primary}): {source.url}")
            blocks.append(
                f"Panel {panel.panel_id} ({panel.research_mode.value}) verdict {panel.verdict.value}\n"
                + _shown(f"panel {panel.panel_id} explanation", panel.explanation)
                + "\nSources:\n"
                + ("\n".join(sources) or "- none")
            )

        def check(answer: PanelChoice) -> str | None:
            return None if answer.panel_id in offered else f"panel {answer.panel_id} was not offered"

        answer = self.ask(
            LLMRole.CHOOSER, _CHOOSER_TASK, "\n\n".join(blocks), PanelChoice, check=check, timeout_s=timeout_s
        )
        return answer.panel_id if answer is not None else None

    def translate(self, text: str, source_language: str, target_language: str) -> str | None:
        """``text`` in ``target_language``, or None when no acceptable translation came."""
        user = "\n\n".join(
            [
                f"Translate from {source_language} into {target_language}.",
                data_block("text to translate", quarantine(text).text),
            ]
        )
        limit = 4 * len(text) + 200

        def check(answer: Translation) -> str | None:
            if not answer.text.strip():
                return "an empty translation"
            if len(answer.text) > limit:
                return "a translation far longer than its text"
            return None

        answer = self.ask(LLMRole.TRANSLATOR, _TRANSLATE_TASK, user, Translation, check=check)
        return answer.text.strip() if answer is not None else None


_AGENT_TASK = (
    "You direct the research for a fact-checking engine, one step at a time, with three tools: search "
    "(give plain search words, no operators or site names), open (give the id of one unread search "
    "result) and finish (when the evidence gathered is enough to judge the claim either way, or nothing "
    "more can be found). Prefer primary and official sources and independent publishers; reformulate with "
    "the claim's figure, named entity or period when results are thin."
)
_NAVIGATE_TASK = (
    "You navigate the web for a fact-checking engine by following links from pages already read. Choose "
    "up to three offered links most likely to lead to the primary source of the claim's figure or "
    "statement (official statistics, the original report, the law or ruling), or ask for another search "
    "when no link is promising, or stop when the evidence gathered settles the claim. Name links only by "
    "the ids given."
)
_WRITER_TASK = (
    "You write the final answer of a fact-checking panel from admitted evidence only: the verdict you are "
    "given, an explanation of two to five sentences in the claim's language that says what the evidence "
    "shows and what is missing, and the ids of the evidence it relies on. Cite only the ids given."
)
_CHOOSER_TASK = (
    "You pick the research panel whose answer best serves readers. Prefer verdicts the cited sources "
    "support, honest statements of missing evidence, and current sources. Answer with one offered panel id."
)
_TRANSLATE_TASK = (
    "You translate a short claim for use as web search text. Keep names, numbers and dates exactly; "
    "return only the translated text."
)


def with_model_weights(
    services: ResearchServices, weights: ModelWeights, candidates_spec: str | None = None
) -> ResearchServices:
    """``services`` whose LLM calls go to the candidate models in a debate's weighted order
    (``candidates_spec`` as ``parse_candidates`` reads it; none: the candidates already configured, or
    the configured model alone). Offline services come back unchanged."""
    config = services.llm
    if config is None:
        return services
    if candidates_spec:
        candidates = tuple(parse_candidates(candidates_spec))
    elif isinstance(config, DebateLlmConfig):
        candidates = config.candidates
    else:
        candidates = ()
    biased = DebateLlmConfig(
        config.base_url, config.model, config.api_key, config.timeout_s, candidates, weights
    )
    return replace(services, llm=biased)


def debate_llm(config: LlmConfig | None) -> DebateLLM | None:
    """The debate's client for ``config``; None when no endpoint is configured (offline)."""
    return DebateLLM.from_config(config) if config is not None else None
