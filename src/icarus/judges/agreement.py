"""Side calls that two judges agree on: ``offline-minilm@5``.

A wrong side call costs more than a missing one: a confident refute of a passage about something else makes
a false ❌ or ⚠️. On research-found evidence (AVeriTeC with open retrieval, SciFact over its corpus) the
cross-encoder behind ``offline-minilm@4`` takes sides on passages that share the claim's topic but not its
assertion, and neither a confidence floor nor the relevance gate tells those from right calls
(docs/evaluation.md, "Two judges must agree").

``offline-minilm@5`` asks a second, differently built judge: ``offline-minilm@4``'s support or refute
stands only when ``offline-wordllama@1`` (static embeddings and a trained head; numpy only) takes the same
side on the same request; otherwise the answer is neutral. The two read text differently (a cross-encoder
reading claim and passage together, against token alignments of fixed embeddings), so their mistakes
overlap less than either's with itself. Nothing is fitted: the judge has no parameters of its own, and its
calibration id is derived from its two components' ids, so a change to either is a new calibration.

One support needs no second opinion: where the claim's own figures are restated with the same direction in
a passage the judges read ("fell 12%" as "down 12%", no negation on either side: ``figures.figure_side``),
the first judge's support stands. That is a rule's reading of the figure, not a model's guess about the
topic, and the embedding judge cannot see it (it reads a port's own "down 12% from 46,800" as neutral). A
figure *conflict* gets no such pass: a passage often carries other figures than the claim's, and refutes
read into them are among the wrong decisions this judge exists to stop.

A kept answer is the first judge's, restamped. A demoted one keeps the first judge's hops, scope and prompt
hash; its stance is neutral and its confidence one minus the first judge's (as ``judges.thresholded``). The
raw answer records both judges' answers and whether they agreed. A failure of either judge is never a side
call: the first judge's failure passes through, a second-opinion failure demotes.
"""

from __future__ import annotations

import hashlib
import threading
from functools import cache
from typing import Any

from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.parallel import WrappedTwin
from icarus.judges.protocol import (
    AttributionVerdict,
    Judge,
    JudgeRequest,
    StanceVerdict,
    component_answer,
    parsed_raw_answer,
    restamped,
)
from icarus.ledger.judgments import JudgeProvenance, Stance

__all__ = [
    "FIRST_JUDGE",
    "PROVIDER",
    "SECOND_JUDGE",
    "VERSION",
    "AgreementJudge",
    "agreement_calibration_id",
    "figures_support",
]

PROVIDER = "offline-minilm"
VERSION = "5"
FIRST_JUDGE = "offline-minilm@4"
SECOND_JUDGE = "offline-wordllama@1"
_SIDES = (Stance.SUPPORT, Stance.REFUTE)


@cache
def _wordllama_calibration() -> str:
    """The calibration id of the shipped WordLlama judge, read from its weights record alone."""
    from icarus.judges.trained import load_weights

    return load_weights().calibration.calibration_id


def figures_support(request: JudgeRequest) -> bool:
    """Whether the claim's own figures, restated with the same direction, settle support in a passage the
    judges read (``figures.figure_side`` over ``trained.candidate_passages``, as the cross-encoder reads)."""
    from icarus.judges.figures import figure_side
    from icarus.judges.trained import candidate_passages
    from icarus.llm.quarantine import quarantine

    claim = quarantine(request.claim_text).text
    passages = candidate_passages(
        claim, quarantine(request.excerpt).text, quarantine(request.evidence_text).text
    )
    return any(figure_side(claim, passage)[0] == "support" for passage in passages)


def agreement_calibration_id(first: str, second: str) -> str:
    """This judge's calibration id for components calibrated as ``first`` and ``second``."""
    digest = hashlib.sha256(f"{first}\x00{second}".encode()).hexdigest()[:12]
    return f"{PROVIDER}-{VERSION}-agree-{digest}"


class AgreementJudge:
    """A ``Judge`` whose side calls are ``first``'s where ``second`` takes the same side, neutral elsewhere
    (module docstring). Deterministic, offline, no state between requests."""

    def __init__(self, first: Judge | None = None, second: Judge | None = None) -> None:
        if first is None:
            from icarus.judges.relevance import RelevanceJudge

            first = RelevanceJudge()
        self.first: Judge = first
        self._second = second
        self._second_lock = threading.Lock()
        second_id = (
            str(getattr(second, "calibration_id", "")) if second is not None else _wordllama_calibration()
        )
        self.calibration_id = agreement_calibration_id(str(getattr(first, "calibration_id", "")), second_id)
        self.provenance = JudgeProvenance(
            provider=PROVIDER, version=VERSION, calibration_id=self.calibration_id
        )
        self._twin = WrappedTwin(lambda worker: AgreementJudge(worker, self.second))

    @property
    def second(self) -> Judge:
        """The second judge, built when first needed: a check whose evidence draws no side call never
        loads it (its embedding table takes a noticeable part of a one-sentence check's start)."""
        with self._second_lock:
            if self._second is None:
                from icarus.judges.trained import OfflineWordLlamaJudge

                self._second = OfflineWordLlamaJudge()
            return self._second

    def __repr__(self) -> str:
        second = repr(self._second) if self._second is not None else SECOND_JUDGE  # not built for a repr
        return f"AgreementJudge({PROVIDER}@{VERSION}: {self.first!r} where {second} agrees)"

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """The first judge's twin (``judges.parallel``) beside the same second judge, which keeps no state
        between requests and so may be shared by threads."""
        return self._twin.plan(self, self.first, requests)

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        verdict = self.first.stance(request)
        raw: dict[str, Any] = {"first": parsed_raw_answer(verdict)}
        if verdict.failure is not None or verdict.stance not in _SIDES:
            return restamped(verdict, self.provenance, raw, neutral=False)
        if verdict.stance is Stance.SUPPORT and figures_support(request):
            raw["settled_by_figures"] = True
            return restamped(verdict, self.provenance, raw, neutral=False)
        second = self.second.stance(request)
        raw["second"] = component_answer(second, str)
        if second.failure is not None:
            raw["second_failure"] = second.failure.value
        agreed = second.failure is None and second.stance is verdict.stance
        raw["agreed"] = agreed
        return restamped(verdict, self.provenance, raw, neutral=not agreed)

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, self.calibration_id)
