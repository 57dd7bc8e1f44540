"""Side calls only on passages about the claim's subject: ``offline-minilm@4``.

Research brings pages about other things, and the cross-encoder will take a side on them: a page about
another event "refutes" the claim with as much confidence as a page about the claim itself, so no floor on
its confidence tells the two apart. ``offline-minilm@4`` is ``offline-minilm@2`` behind a support floor (as
``offline-minilm@3``) and a *relevance gate*: a support or refute answer on a passage that is not about the
claim's subject is answered neutral. The gate has two parts, each of which can be switched off:

- **anchors**: the claim's specific words, the ones that name what it is about: names (capitalised words
  that are not stop words, not at the start of a sentence, or there but followed by another such word, as
  in "Hunter Biden said"; all-capital words such as "WHO"), and numbers (digits, thousands separators dropped). The passage must
  share at least ``min_anchors`` of them (all of them when the claim has fewer); a claim without anchors
  passes. Words are compared by ``text.stem`` of their lower-cased form, over the excerpt and the whole
  text of the evidence item (the page is about something, not only its excerpt);
- **similarity**: the cosine of WordLlama's packaged static embeddings of the claim and of the passage the
  judge reads (the excerpt, else the text) must be at least ``min_similarity``.

Both are cheap (no model call), offline and deterministic. The floor and the gate's two parameters are
chosen on AVeriTeC's ``tune`` half by ``icarus_training.relevance`` (``make select-judge-relevance``)
with ``training.thresholds``' objective, and stored with how they were chosen and the base judge's
calibration id in ``weights/offline-minilm-4.json``; loading refuses a record made for another calibration.

A gated answer keeps the base answer's hops, scope and prompt hash; its stance is neutral, its confidence
one minus the base confidence, and its raw answer records the base answer and what the gate found. Answers
under the support floor are neutral as in ``offline-minilm@3`` (the raw answer nests that judge's record).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.packaged import WeightsError, packaged_embeddings
from icarus.judges.parallel import WrappedTwin
from icarus.judges.protocol import (
    AttributionVerdict,
    Judge,
    JudgeRequest,
    StanceVerdict,
    parsed_raw_answer,
    restamped,
)
from icarus.judges.thresholded import SideThresholds, ThresholdedJudge
from icarus.ledger.judgments import JudgeProvenance, Stance
from icarus.text import words as tx

__all__ = [
    "BASE_JUDGE",
    "PROVIDER",
    "RECORD_NAME",
    "VERSION",
    "Relevance",
    "RelevanceGate",
    "RelevanceJudge",
    "claim_anchors",
    "gate_file",
    "load_gate",
    "measure",
    "passes",
    "wordllama_similarity",
]

PROVIDER = "offline-minilm"
VERSION = "4"
RECORD_NAME = "offline-minilm-4"
BASE_JUDGE = "offline-minilm@2"
_SIDES = (Stance.SUPPORT, Stance.REFUTE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][A-Za-z]+)*|\d+(?:[.,]\d+)*")
_SENTENCE_END = re.compile(r"[.!?:;\"“”]\s*$")


@dataclass(frozen=True, slots=True)
class RelevanceGate:
    """The support floor, the gate's parameters (0 anchors and no similarity floor switch a part off), and
    the calibration of the base judge they were chosen for."""

    support: Decimal
    min_anchors: int
    min_similarity: Decimal | None
    base_calibration_id: str
    metadata: dict[str, Any]

    @property
    def calibration_id(self) -> str:
        payload = json.dumps(
            {
                "support": str(self.support),
                "min_anchors": self.min_anchors,
                "min_similarity": None if self.min_similarity is None else str(self.min_similarity),
                "base": self.base_calibration_id,
            },
            sort_keys=True,
        ).encode()
        return f"{RECORD_NAME}-{hashlib.sha256(payload).hexdigest()[:12]}"


@dataclass(frozen=True, slots=True)
class Relevance:
    """What the gate found for one request: the claim's anchors, how many the passage shares, and the
    similarity of claim and passage (in hundredths, rounded down)."""

    anchors: int
    shared: int
    similarity: Decimal


def _is_name(word: str) -> bool:
    """A capitalised word that is not a stop word, or an all-capital one ("WHO", "US")."""
    if len(word) > 1 and word.isupper():
        return True
    return word[:1].isupper() and word.lower() not in tx.STOPWORDS


def claim_anchors(claim: str) -> frozenset[str]:
    """The stems of the claim's names and its numbers (module docstring)."""
    found: set[str] = set()
    words = list(_WORD.finditer(claim))
    for i, match in enumerate(words):
        word = match.group(0)
        if word[0].isdigit():
            found.add(word.replace(",", "").rstrip("."))
            continue
        if not _is_name(word):
            continue
        at_start = i == 0 or bool(_SENTENCE_END.search(claim[: match.start()]))
        followed = i + 1 < len(words) and _is_name(words[i + 1].group(0))
        if not at_start or followed:
            found.add(tx.stem(word.replace("’", "'")))
    return frozenset(found)


def _passage_words(passage: str) -> frozenset[str]:
    return frozenset(
        m.group(0).replace(",", "").rstrip(".") if m.group(0)[0].isdigit() else tx.stem(m.group(0))
        for m in _WORD.finditer(passage.replace("’", "'"))
    )


def _hundredths_down(value: float) -> Decimal:
    return (Decimal(str(value)) * 100).to_integral_value(rounding="ROUND_FLOOR") / 100


@cache
def _wordllama() -> Any:
    """The loaded model where something already has it, else the shared ``PackagedEmbeddings``."""
    from icarus.text.wordllama import load_wordllama

    return load_wordllama() if load_wordllama.cache_info().currsize else packaged_embeddings()


def wordllama_similarity(claim: str, passage: str) -> float:
    """Cosine of WordLlama's packaged embeddings of the two texts (no network)."""
    return float(_wordllama().similarity(claim, passage))


def measure(
    request: JudgeRequest, similarity: Callable[[str, str], float] = wordllama_similarity
) -> Relevance:
    """The gate's reading of one request (module docstring)."""
    anchors = claim_anchors(request.claim_text)
    words = _passage_words(f"{request.excerpt}\n{request.evidence_text}")
    read = request.excerpt or request.evidence_text
    return Relevance(
        anchors=len(anchors),
        shared=len(anchors & words),
        similarity=_hundredths_down(similarity(request.claim_text, read)),
    )


def passes(relevance: Relevance, gate: RelevanceGate) -> bool:
    """Whether a passage so read is about the claim under ``gate``: at least ``min_anchors`` shared (all of
    them when the claim has fewer; a claim without anchors passes), and a similarity at least the floor
    (equal is enough)."""
    needed = min(gate.min_anchors, relevance.anchors)
    if relevance.shared < needed:
        return False
    return gate.min_similarity is None or relevance.similarity >= gate.min_similarity


def gate_file(folder: Path | None = None) -> Path:
    base = folder if folder is not None else Path(str(resources.files("icarus.judges") / "weights"))
    return base / f"{RECORD_NAME}.json"


def load_gate(path: Path | None = None) -> RelevanceGate:
    """The record ``icarus_training.relevance`` writes; a ``WeightsError`` if it is missing or
    unreadable. Whether the base judge still has the recorded calibration is checked by the judge."""
    path = path if path is not None else gate_file()
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
        gate = metadata["gate"]
        if not isinstance(gate["support"], str):
            raise WeightsError(f"{path.name}: the support floor must be a decimal written as a string")
        support = Decimal(gate["support"])
        anchors = gate["min_anchors"]
        similarity = gate["min_similarity"]
        if isinstance(anchors, bool) or not isinstance(anchors, int) or anchors < 0:
            raise WeightsError(f"{path.name}: min_anchors must be a count, not {anchors!r}")
        if similarity is not None and not isinstance(similarity, str):
            raise WeightsError(f"{path.name}: min_similarity must be null or a decimal written as a string")
        floor = None if similarity is None else Decimal(similarity)
        if not Decimal(0) <= support <= Decimal(1) or (floor is not None and not -1 <= floor <= 1):
            raise WeightsError(f"{path.name}: a floor is out of range")
        base_id = str(metadata["base_calibration_id"])
    except FileNotFoundError as exc:
        raise WeightsError(f"relevance gate record not found: {path}") from exc
    except WeightsError:
        raise
    except (OSError, ArithmeticError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise WeightsError(f"{path.name} holds no usable relevance gate: {exc}") from exc
    return RelevanceGate(support, anchors, floor, base_id, metadata)


@cache
def _shared_gate() -> RelevanceGate:
    return load_gate()


class RelevanceJudge:
    """A ``Judge`` that answers as ``offline-minilm@2`` behind a support floor, but neutral for side calls
    on passages the gate finds are not about the claim (module docstring). Deterministic, offline."""

    def __init__(
        self,
        base: Judge | None = None,
        gate: RelevanceGate | None = None,
        reader: Callable[[JudgeRequest], Relevance] = measure,
    ) -> None:
        if base is None:
            from icarus.judges.cross_encoder import OfflineMiniLMJudge

            base = OfflineMiniLMJudge(read_figures=True)
        self.base: Judge = base
        self.gate = gate if gate is not None else _shared_gate()
        self.reader = reader
        base_id = str(getattr(self.base, "calibration_id", ""))
        if base_id != self.gate.base_calibration_id:
            raise WeightsError(
                f"the relevance gate was chosen for a base judge calibrated as {self.gate.base_calibration_id}, "
                f"but it now is {base_id}: choose it again (make select-judge-relevance)"
            )
        self.floored = ThresholdedJudge(self.base, SideThresholds(self.gate.support, Decimal(0), base_id, {}))
        self.calibration_id = self.gate.calibration_id
        self.provenance = JudgeProvenance(
            provider=PROVIDER, version=VERSION, calibration_id=self.calibration_id
        )
        self._twin = WrappedTwin(lambda worker: RelevanceJudge(worker, self.gate, self.reader))

    def __repr__(self) -> str:
        return (
            f"RelevanceJudge({PROVIDER}@{VERSION}, support>={self.gate.support}, "
            f"anchors>={self.gate.min_anchors}, similarity>={self.gate.min_similarity})"
        )

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """The base judge's twin (``judges.parallel``) behind the same floor and gate, which hold no state."""
        return self._twin.plan(self, self.base, requests)

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        verdict = self.floored.stance(request)
        raw: dict[str, Any] = {"floored": parsed_raw_answer(verdict)}
        neutral = False
        if verdict.failure is None and verdict.stance in _SIDES:
            found = self.reader(request)
            neutral = not passes(found, self.gate)
            if neutral:
                raw["off_subject"] = {
                    "side": verdict.stance.value,
                    "anchors": found.anchors,
                    "shared": found.shared,
                    "similarity": str(found.similarity),
                }
        return restamped(verdict, self.provenance, raw, neutral=neutral)

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, self.calibration_id)
