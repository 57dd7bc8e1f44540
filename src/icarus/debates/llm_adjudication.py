"""A claim's answer with a model: adjudication of sourced conflicts and the elector's choice.

``LLMAdjudicator`` is the ``adjudication.Adjudicator`` that asks the configured OpenAI-compatible endpoint
(``research.llm.DebateLLM``) to settle panels that disagree. The model sees the claim and each panel's
verdict, explanation and admitted evidence, the evidence by server-assigned ids (E1, E2, ...) only, page text
quarantined; panel confidence is not shown. Its answer must fit a strict schema; an oversized, malformed or
injected answer, or one citing an id it was not offered, is rejected and recorded, and the claim falls back
(``build_claim_verdict``). An answer the seed's rules refuse (``adjudication.rejection``: an UNVERIFIABLE for
a disagreement by degree, or one without an irreconcilable-evidence reason and citations from both sides)
is recorded as rejected and handed back, so ``build_claim_verdict`` asks once more with
``RECONCILE_INSTRUCTION``, which this adjudicator puts in front of the model.

``LLMChooser`` is the elector's ``Chooser`` on the same endpoint (``DebateLLM.choose``). Both ask the
configured candidate models in the order a debate's cost, latency and quality weights give (``biased``).

Each call uses a client of its own (workers share one pipeline across threads); the last
``KEPT_CALLS`` calls stay in ``calls`` for diagnostics, and every rejection is logged. The calls are made
while the claim's answer is being written, so each model asked gets at most ``ANSWER_TIMEOUT_S``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from icarus.debates.adjudication import AdjudicationOutcome, AdjudicationRequest, rejection
from icarus.debates.elector import ChooserPanel
from icarus.debates.model import Verdict
from icarus.debates.model_choice import ModelWeights
from icarus.debates.research.base import LlmConfig
from icarus.debates.research.llm import CallOutcome, DebateLLM, DebateLlmConfig, LLMCall, LLMRole
from icarus.llm.quarantine import data_block, quarantine

__all__ = [
    "ANSWER_TIMEOUT_S",
    "KEPT_CALLS",
    "AdjudicationAnswer",
    "LLMAdjudicator",
    "LLMChooser",
]

KEPT_CALLS: Final = 200
"""How many recent calls an adjudicator or chooser keeps for diagnostics."""
ANSWER_TIMEOUT_S: Final = 20.0
"""Per model asked: these calls run while the claim's answer is being written, so they are kept short."""
MAX_EXPLANATION_SHOWN: Final = 1_500
MAX_EXCERPT_SHOWN: Final = 600
MAX_EVIDENCE_SHOWN: Final = 24


class AdjudicationAnswer(BaseModel):
    """The adjudicator's answer: one verdict for the claim, citing admitted evidence by id."""

    model_config = ConfigDict(extra="forbid")  # additionalProperties: false, as strict mode requires

    verdict: Literal["true", "false", "partially_true", "misleading", "unverifiable"]
    confidence: float = Field(ge=0.0, le=1.0)
    explanation: str = Field(max_length=2_000, description="Two to five sentences in the claim's language.")
    cited_ids: list[str] = Field(
        max_length=12, description="Ids of the admitted evidence relied on, as given."
    )
    irreconcilable_reason: str | None = Field(
        max_length=1_000,
        description="Only for unverifiable on a direct true/false contradiction: why the evidence cannot "
        "be reconciled; else null.",
    )


ADJUDICATOR_TASK: Final = (
    "You settle a disagreement between research panels of a fact-checking engine about one claim. Weigh "
    "the admitted evidence each panel cites (never anything else) and answer with one verdict: true, "
    "false, partially_true or misleading, citing the evidence by the ids given. A disagreement by degree "
    "(partially_true or misleading against true or false) must be reconciled into a substantive verdict. "
    "Unverifiable is accepted only for a direct true/false contradiction, with an irreconcilable-evidence "
    "reason and citations from both sides."
)


def _evidence_ids(request: AdjudicationRequest) -> dict[str, str]:
    """Server-assigned ids for the admitted URLs, in the request's order: E1, E2, ..."""
    urls = list(dict.fromkeys(request.admitted_urls))[:MAX_EVIDENCE_SHOWN]
    return {f"E{n}": url for n, url in enumerate(urls, start=1)}


def _question(request: AdjudicationRequest, ids: dict[str, str]) -> str:
    by_url = {url: eid for eid, url in ids.items()}
    blocks: list[str] = []
    if request.claim_text.strip():
        blocks.append(data_block("claim", quarantine(request.claim_text).text))
    blocks.append(f"Disagreement: {request.disagreement.value}")
    for stored in request.panels:
        panel = stored.panel
        lines = [f"Panel {stored.panel_id} ({panel.research_mode.value}) verdict {panel.verdict.value}"]
        explanation = quarantine(panel.explanation).text[:MAX_EXPLANATION_SHOWN]
        lines.append(data_block(f"panel {stored.panel_id} explanation", explanation))
        for citation in panel.sources:
            eid = by_url.get(citation.url)
            if eid is None:
                continue
            excerpt = quarantine(f"{citation.title}\n{citation.excerpt}").text[:MAX_EXCERPT_SHOWN]
            lines.append(
                f"Evidence {eid} ({citation.domain}, read as {citation.stance}):\n"
                + data_block(f"evidence {eid}", excerpt)
            )
        blocks.append("\n".join(lines))
    if request.instruction:
        blocks.append(request.instruction)
    return "\n\n".join(blocks)


def _client_for(config: LlmConfig) -> Callable[[ModelWeights], DebateLLM]:
    """A fresh client on ``config``'s endpoint with its candidates ordered by the weights given."""
    candidates = config.candidates if isinstance(config, DebateLlmConfig) else ()

    def client(weights: ModelWeights) -> DebateLLM:
        biased = DebateLlmConfig(
            config.base_url, config.model, config.api_key, config.timeout_s, candidates, weights
        )
        return DebateLLM.from_config(biased)

    return client


class LLMAdjudicator:
    """``Adjudicator`` on an OpenAI-compatible endpoint; None (the claim falls back) when no usable answer
    came. Wrap it in ``retries.BudgetedAdjudicator`` (the service does, given an adjudication policy)."""

    def __init__(
        self, client: Callable[[ModelWeights], DebateLLM], weights: ModelWeights | None = None
    ) -> None:
        self._client = client
        self.weights = weights or ModelWeights()
        self._lock = threading.Lock()
        self.calls: deque[LLMCall] = deque(maxlen=KEPT_CALLS)

    @classmethod
    def from_config(cls, config: LlmConfig) -> LLMAdjudicator:
        return cls(_client_for(config))

    def biased(self, weights: ModelWeights) -> LLMAdjudicator:
        """The same adjudicator asking the candidate models in the order a debate's ``weights`` give."""
        twin = LLMAdjudicator(self._client, weights)
        twin.calls, twin._lock = self.calls, self._lock
        return twin

    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None:
        ids = _evidence_ids(request)
        llm = self._client(self.weights)

        def check(answer: AdjudicationAnswer) -> str | None:
            unknown = [eid for eid in answer.cited_ids if eid not in ids]
            if unknown:
                return f"cites evidence {unknown!r} that was not offered"
            if not answer.explanation.strip():
                return "an empty explanation"
            return None

        answer = llm.ask(
            LLMRole.ADJUDICATOR,
            ADJUDICATOR_TASK,
            _question(request, ids),
            AdjudicationAnswer,
            check=check,
            timeout_s=ANSWER_TIMEOUT_S,
        )
        outcome = None
        if answer is not None:
            outcome = AdjudicationOutcome(
                verdict=Verdict(answer.verdict),
                confidence=answer.confidence,
                explanation=answer.explanation.strip(),
                cited_urls=tuple(dict.fromkeys(ids[eid] for eid in answer.cited_ids)),
                irreconcilable_reason=(answer.irreconcilable_reason or "").strip() or None,
            )
            refused = rejection(outcome, request)
            if refused is not None and llm.calls:
                # Well-formed, but the rules refuse it: recorded as such, and handed back so the caller can
                # ask again with the instruction to reconcile (an unverifiable) or fall back.
                llm.calls[-1] = replace(llm.calls[-1], outcome=CallOutcome.INVALID, detail=refused)
        self._record(llm.calls)
        return outcome

    def _record(self, calls: Sequence[LLMCall]) -> None:
        with self._lock:
            self.calls.extend(calls)


class LLMChooser:
    """The elector's ``Chooser`` on an OpenAI-compatible endpoint (``DebateLLM.choose``): an offered panel
    id, or None, when the elector keeps its offline choice."""

    def __init__(
        self, client: Callable[[ModelWeights], DebateLLM], weights: ModelWeights | None = None
    ) -> None:
        self._client = client
        self.weights = weights or ModelWeights()
        self._lock = threading.Lock()
        self.calls: deque[LLMCall] = deque(maxlen=KEPT_CALLS)

    @classmethod
    def from_config(cls, config: LlmConfig) -> LLMChooser:
        return cls(_client_for(config))

    def biased(self, weights: ModelWeights) -> LLMChooser:
        """The same chooser asking the candidate models in the order a debate's ``weights`` give."""
        twin = LLMChooser(self._client, weights)
        twin.calls, twin._lock = self.calls, self._lock
        return twin

    def choose(self, candidates: Sequence[ChooserPanel]) -> int | None:
        llm = self._client(self.weights)
        picked = llm.choose(candidates, timeout_s=ANSWER_TIMEOUT_S)
        with self._lock:
            self.calls.extend(llm.calls)
        return picked
