"""``offline-minilm-fever@1``: the cross-encoder trained on FEVER first, then on the fact-checking sets.

The model (``weights/offline-minilm-fever-1.*``) is the same MiniLM base as ``offline-minilm@1``, fine-tuned
in two stages by ``make train-judge-fever`` (``icarus_training.cross_encoder --fever N``): a pass over FEVER's
claim–evidence pairs with hard neutrals (``icarus_training.fever``), then the fact-checking sets' train split
as ``offline-minilm@1`` was trained. It runs as ``offline-minilm@2`` does (``cross_encoder.OfflineMiniLMJudge``:
int8 ONNX, calibrated, the claim's figures read by rule), and adds one rule:

* **reported speech** (``judges.reported_speech``): a side call on a claim about what someone said stands only
  when the evidence reports speech by that speaker; evidence about the words' subject alone is answered
  neutral, and the raw answer says why.

* **short excerpts read in context** (``widened_excerpt``): an excerpt of fewer than ``SHORT_EXCERPT_WORDS``
  words ("No.", "George H. W. Bush", "It was 45.1 million") says nothing on its own, so the judge reads it
  with the sentence before it in the item's text (for an AVeriTeC answer, the question it answers). The
  published excerpt is unchanged: only what the model reads is widened.

The answer is the base answer restamped with this judge's name; a demoted one records the base answer.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from icarus.judges.cross_encoder import CrossEncoderWeights, OfflineMiniLMJudge, load_weights
from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.parallel import WrappedTwin
from icarus.judges.protocol import (
    AttributionVerdict,
    Judge,
    JudgeRequest,
    StanceVerdict,
    component_answer,
    restamped,
)
from icarus.judges.reported_speech import reported_speech, reports_speaker
from icarus.ledger.judgments import JudgeProvenance, Stance
from icarus.text import words as tx

__all__ = [
    "PROVIDER",
    "SHORT_EXCERPT_WORDS",
    "VERSION",
    "WEIGHTS_NAME",
    "FeverMiniLMJudge",
    "unreported_speech",
    "widened_excerpt",
]

PROVIDER = "offline-minilm-fever"
VERSION = "1"
WEIGHTS_NAME = "offline-minilm-fever-1"
SHORT_EXCERPT_WORDS = 8
_SIDES = (Stance.SUPPORT, Stance.REFUTE)


@cache
def _weights() -> CrossEncoderWeights:
    return load_weights(WEIGHTS_NAME)


def unreported_speech(request: JudgeRequest) -> str | None:
    """The speaker of a reported-speech claim whose evidence does not report them, else ``None``."""
    speech = reported_speech(request.claim_text)
    if speech is None:
        return None
    evidence = f"{request.excerpt}\n{request.evidence_text}"
    return None if reports_speaker(speech, evidence) else speech.speaker


def widened_excerpt(excerpt: str, text: str) -> str:
    """``excerpt`` with the sentence before it in ``text`` when it is shorter than ``SHORT_EXCERPT_WORDS``
    words and found in ``text`` (its first occurrence); else ``excerpt`` as it is."""
    if not excerpt.strip() or len(tx.tokens(excerpt)) >= SHORT_EXCERPT_WORDS:
        return excerpt
    at = text.find(excerpt)
    if at < 0:
        return excerpt
    spans = tx.sentence_spans(text)
    starts = [start for start, end in spans if start <= at]
    if len(starts) < 2:
        return excerpt
    return text[starts[-2] : at + len(excerpt)]


class FeverMiniLMJudge:
    """A ``Judge`` on the FEVER-trained cross-encoder with the reported-speech rule (module docstring)."""

    def __init__(self, base: Judge | None = None) -> None:
        self.base: Judge = base if base is not None else OfflineMiniLMJudge(_weights(), read_figures=True)
        self.calibration_id = str(getattr(self.base, "calibration_id", ""))
        self.provenance = JudgeProvenance(
            provider=PROVIDER, version=VERSION, calibration_id=self.calibration_id
        )
        self._twin = WrappedTwin(FeverMiniLMJudge)

    def __repr__(self) -> str:
        return f"FeverMiniLMJudge({PROVIDER}@{VERSION})"

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """The base judge's twin behind the same rule, which holds no state (``judges.parallel``)."""
        return self._twin.plan(self, self.base, requests)

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        widened = widened_excerpt(request.excerpt, request.evidence_text)
        read = request if widened == request.excerpt else request.model_copy(update={"excerpt": widened})
        verdict = self.base.stance(read)
        raw: dict[str, Any] = {"base": component_answer(verdict, str)}
        if read is not request:
            raw["excerpt_read_with_context"] = widened
        speaker = None
        if verdict.failure is None and verdict.stance in _SIDES:
            speaker = unreported_speech(request)
        if speaker is not None:
            raw["reported_speech"] = {
                "speaker": speaker,
                "reason": "the claim says what someone said; the evidence does not report them saying it",
            }
        return restamped(verdict, self.provenance, raw, neutral=speaker is not None)

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, self.calibration_id)
