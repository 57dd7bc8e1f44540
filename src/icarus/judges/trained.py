"""The trained offline judge: WordLlama features, a small numpy head, calibrated confidence.

Stance. The judged passage comes from the request's excerpt, or the evidence text when there is none.
A one-sentence excerpt is judged as it is. Otherwise ``CANDIDATE_SENTENCES`` candidates are judged (a longer
excerpt whole plus its sentences sharing most words with the claim; or, from the text, the sentences sharing
most words with it) and the one that takes the clearest side (highest support or refute probability) is
kept: a passage of several sentences often states the claim in one of them. ``features.PairEncoder`` reads the pair, the shipped
head (``weights/<name>.npz``) gives three logits, and the shipped calibration (temperature, then an isotonic
map, both fitted on held-out pairs: see ``calibration``) turns them into the stance and the probability that
it is right. That probability is the verdict's confidence, so the policy's C and meanStanceConfidence read
calibrated values.

Inference hops. A content word of the claim that the passage neither states (same stem) nor matches in
meaning (its tokens' best cosines with the passage's tokens average at least ``HOP_WORD_MATCH``) is
unstated; every ``UNSTATED_WORDS_PER_HOP`` unstated words (rounded up) make one hop, capped at ``HOPS_CAP``
(over the policy's limit). Both constants were set on the training split (see the trainer's hop report).

Scope (H26) compares the claim with the whole evidence (excerpt and text). A dimension mismatches only when
the evidence states a value of that kind and never the claim's: figures in the claim's unit but none equal
to it (quantity), years but none of the claim's (period), places but none of the claim's (geography). A
value the evidence does not mention is an unstated step, not a different scope.

Attribution (H3) is parsed by the same rules as the lexical judge, under this judge's name.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from icarus.judges.calibration import Calibration
from icarus.judges.features import FEATURE_VERSION, PairEncoder, TokenMatch, feature_width
from icarus.judges.head import CLASSES, StanceHead
from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.packaged import WeightsError, packaged_embeddings
from icarus.judges.protocol import (
    FAILED_HOPS,
    AttributionVerdict,
    JudgeRequest,
    StanceVerdict,
    to_confidence,
)
from icarus.ledger.judgments import JudgeProvenance, ScopeDimension, Stance
from icarus.llm.client import prompt_hash
from icarus.llm.quarantine import Quarantined, quarantine
from icarus.text import words as tx

__all__ = [
    "CANDIDATE_SENTENCES",
    "HOPS_CAP",
    "HOP_WORD_MATCH",
    "PROVIDER",
    "UNSTATED_WORDS_PER_HOP",
    "VERSION",
    "WEIGHTS_NAME",
    "JudgeWeights",
    "OfflineWordLlamaJudge",
    "calibrated_verdict",
    "candidate_passages",
    "clearest_side",
    "inference_hops",
    "load_weights",
    "scope_mismatches",
    "unstated_words",
]

PROVIDER = "offline-wordllama"
VERSION = "1"
WEIGHTS_NAME = "offline-wordllama-1"
CANDIDATE_SENTENCES = 3
# Set on the training split: the strictest rule under which at most 5 % of labelled supporting or refuting
# pairs go over the policy's three-hop limit (0.3 and 4 words: 3.9 %; neutral pairs: 7.2 %).
HOP_WORD_MATCH = 0.3
UNSTATED_WORDS_PER_HOP = 4
HOPS_CAP = FAILED_HOPS  # beyond the policy's limit: nothing rests on such a passage


@dataclass(frozen=True)
class JudgeWeights:
    head: StanceHead
    calibration: Calibration
    metadata: dict[str, Any]


def load_weights(name: str = WEIGHTS_NAME, folder: Path | None = None) -> JudgeWeights:
    """The head, calibration and metadata stored as ``<name>.npz`` / ``<name>.json`` (in the package by
    default). Reads no dataset."""
    base = folder if folder is not None else Path(str(resources.files("icarus.judges") / "weights"))
    npz, meta = base / f"{name}.npz", base / f"{name}.json"
    if not npz.is_file() or not meta.is_file():
        raise WeightsError(f"judge weights {name!r} not found in {base}")
    metadata = json.loads(meta.read_text(encoding="utf-8"))
    if metadata.get("feature_version") != FEATURE_VERSION:
        raise WeightsError(
            f"{name} was fitted on {metadata.get('feature_version')!r}, this code reads {FEATURE_VERSION!r}"
        )
    if tuple(metadata.get("classes", ())) != CLASSES:
        raise WeightsError(f"{name} orders its classes {metadata.get('classes')}, expected {list(CLASSES)}")
    head = StanceHead.load(npz)
    if head.input_width != feature_width():
        raise WeightsError(f"{name} expects {head.input_width} features, the encoder gives {feature_width()}")
    return JudgeWeights(head, Calibration.from_json(metadata["calibration"]), metadata)


@cache
def _shared() -> tuple[PairEncoder, JudgeWeights]:
    # WordLlama's packaged files read directly, without importing the wordllama package (and requests)
    return PairEncoder(packaged_embeddings()), load_weights()


def candidate_passages(claim: str, excerpt: str, text: str) -> list[str]:
    """The passages put to a judge for one request (see the module docstring): a one-sentence excerpt
    alone; a longer excerpt whole and its ``CANDIDATE_SENTENCES - 1`` sentences sharing most content words
    with the claim; with no excerpt, the ``CANDIDATE_SENTENCES`` such sentences of the text."""
    source = excerpt or text
    sentences = [source[a:b] for a, b in tx.sentence_spans(source)] or [source]
    if excerpt and len(sentences) == 1:
        return [excerpt]  # nothing to rank: the common case, so it skips the word counting
    stems = set(tx.content_stems(tx.tokens(claim)))

    def covered(sentence: str) -> float:
        return len(stems & set(tx.content_stems(tx.tokens(sentence)))) / len(stems) if stems else 0.0

    ranked = sorted(range(len(sentences)), key=lambda i: (-covered(sentences[i]), i))
    if excerpt:
        return [excerpt, *(sentences[i] for i in ranked[: CANDIDATE_SENTENCES - 1])]
    return [sentences[i] for i in ranked[:CANDIDATE_SENTENCES]]


def clearest_side(probabilities: npt.NDArray[np.float64]) -> int:
    """The row (one per candidate, ``CLASSES`` order) with the highest support or refute probability."""
    sided = probabilities[:, :2].max(axis=1)  # support and refute come first in CLASSES
    return int(np.argmax(sided))


def unstated_words(claim: str, passage: str, alignment: list[TokenMatch]) -> list[str]:
    """Content words of ``claim`` that ``passage`` neither states (same stem) nor matches in meaning (the
    claim word's tokens reach, on average, at least ``HOP_WORD_MATCH`` cosine with passage tokens)."""
    stated = set(tx.content_stems(tx.tokens(passage)))
    missing: dict[str, None] = {}
    for token in tx.tokens(claim):
        stem = tx.content_stems([token])
        if not stem or stem[0] in stated or stem[0] in missing:
            continue
        pieces = [m.best for m in alignment if m.start < token.end and m.end > token.start]
        if not pieces or sum(pieces) / len(pieces) < HOP_WORD_MATCH:
            missing[stem[0]] = None
    return list(missing)


def inference_hops(claim: str, passage: str, alignment: list[TokenMatch]) -> int:
    """Unstated steps from ``passage`` to ``claim``: see the module docstring. Pure."""
    return min(HOPS_CAP, math.ceil(len(unstated_words(claim, passage, alignment)) / UNSTATED_WORDS_PER_HOP))


def scope_mismatches(claim: str, evidence: str) -> tuple[ScopeDimension, ...]:
    """Dimensions in which the evidence states a value of the claim's kind but never the claim's value."""
    mismatched: list[ScopeDimension] = []
    stated = tx.quantities(evidence)
    for figure in tx.quantities(claim):
        peers = [q for q in stated if figure.unit and q.unit == figure.unit]
        if peers and not any(tx.same_value(q.value, figure.value) for q in peers):
            mismatched.append(ScopeDimension.QUANTITY)
            break
    claim_years, evidence_years = tx.years(claim), tx.years(evidence)
    if claim_years and evidence_years and not claim_years & evidence_years:
        mismatched.append(ScopeDimension.PERIOD)
    claim_places = tx.places(claim)
    lowered = evidence.lower()
    if claim_places and tx.places(evidence) and not any(place in lowered for place in claim_places):
        mismatched.append(ScopeDimension.GEOGRAPHY)
    return tuple(mismatched)


def calibrated_verdict(
    request: JudgeRequest,
    texts: tuple[Quarantined, Quarantined, Quarantined],
    passage: str,
    probabilities: npt.NDArray[np.float64],
    alignment: list[TokenMatch],
    calibration: Calibration,
    judge: JudgeProvenance,
    notes: dict[str, object] | None = None,
    confidence_cap: float = 1.0,
) -> StanceVerdict:
    """A trained judge's verdict on ``passage``, the candidate it kept from the quarantined claim, excerpt
    and text (``texts``): the most probable class of ``probabilities`` (calibrated, ``CLASSES`` order), its
    calibrated confidence (at most ``confidence_cap``), hops from ``alignment``, scope against the whole
    evidence. ``notes`` join the raw answer (what else decided the verdict)."""
    claim, excerpt, text = texts
    top = int(np.argmax(probabilities))
    calibrated = float(calibration.confidence(probabilities[top]))
    confidence = min(calibrated, confidence_cap)
    mismatched = scope_mismatches(claim.text, f"{excerpt.text}\n{text.text}")
    raw = {
        "passage": passage,
        "probabilities": {label: round(float(p), 6) for label, p in zip(CLASSES, probabilities, strict=True)},
        "calibrated_confidence": round(calibrated, 6),
        **({"confidence_cap": confidence_cap} if confidence < calibrated else {}),
        **(notes or {}),
    }
    return StanceVerdict(
        claim_id=request.claim_id,
        evidence_id=request.evidence_id,
        stance=Stance(CLASSES[top]),
        confidence=to_confidence(Decimal(repr(confidence))),
        inference_hops=inference_hops(claim.text, passage, alignment),
        scope_matches=not mismatched,
        mismatched=mismatched,
        raw_answer=json.dumps(raw, sort_keys=True, ensure_ascii=False),
        provider=judge.provider,
        version=judge.version,
        calibration_id=judge.calibration_id,
        prompt_hash=prompt_hash(
            {"judge": f"{judge.provider}@{judge.version}", "claim": claim.text, "passage": passage}
        ),
        quarantined=claim.flagged or excerpt.flagged or text.flagged,
    )


class OfflineWordLlamaJudge:
    """A ``Judge`` on static embeddings and a trained head: numpy only, no network, deterministic."""

    def __init__(self, encoder: PairEncoder | None = None, weights: JudgeWeights | None = None) -> None:
        if encoder is None or weights is None:
            shared_encoder, shared_weights = _shared()
            encoder, weights = encoder or shared_encoder, weights or shared_weights
        self.encoder = encoder
        self.weights = weights
        self.calibration_id = weights.calibration.calibration_id
        self.provenance = JudgeProvenance(
            provider=PROVIDER, version=VERSION, calibration_id=self.calibration_id
        )

    def __repr__(self) -> str:
        return f"OfflineWordLlamaJudge({PROVIDER}@{VERSION})"

    def probabilities(
        self, claims: list[str], passages: list[str]
    ) -> tuple[np.ndarray[Any, np.dtype[np.float64]], list[list[TokenMatch]]]:
        """Calibrated class probabilities (``CLASSES`` order), one row per pair, and the token alignments."""
        features, alignments = self.encoder.encode_aligned(claims, passages)
        logits = self.weights.head.logits(features)
        return self.weights.calibration.probabilities(logits), alignments

    def _passage(
        self, claim: str, excerpt: str, text: str
    ) -> tuple[str, np.ndarray[Any, np.dtype[np.float64]], list[TokenMatch]]:
        chosen = candidate_passages(claim, excerpt, text)
        probabilities, alignments = self.probabilities([claim] * len(chosen), chosen)
        best = clearest_side(probabilities)
        return chosen[best], probabilities[best], alignments[best]

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        texts = claim, excerpt, text = (
            quarantine(request.claim_text),
            quarantine(request.excerpt),
            quarantine(request.evidence_text),
        )
        passage, probabilities, alignment = self._passage(claim.text, excerpt.text, text.text)
        return calibrated_verdict(
            request, texts, passage, probabilities, alignment, self.weights.calibration, self.provenance
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, self.calibration_id)
