"""Learned check-worthiness: how likely a fact-checker is to pick a sentence, as a ranking score.

A logistic model over sparse features of the sentence alone:

* the claim cues of ``cues.checkworthiness`` (figures, dates, names, comparisons, attribution, …), each a
  feature of its own rather than a fixed number of points;
* a few cues of debate speech: past tense, normative "we need / we have to", promises, moderator framing,
  addressing the other speaker, hedges, and the sentence's length;
* its words and word pairs, lower-cased, with digits folded to one token.

The weights are trained by ``python -m icarus_training.checkworthy`` on the CheckThat! 2019 training
transcripts (``icarus.evaluation.checkthat`` fixes the split) and ship as JSON beside this module. The
model file also holds the *bar*: the log-odds at which the chosen operating point sits. ``score`` shifts
the log-odds so that the bar falls at ``DEFAULT_BAR`` (0.4, the bar the detector and ``extract_claims``
already use), which keeps the score a ranking on 0–1 whose default threshold means "flag this".

That model is ``checkworthy@1``. The ranker the debate detector reads is ``load_ranker()``: the one named
``DEFAULT_RANKER``, chosen by ``icarus_training.checkworthy_minilm``'s rule. ``checkworthy@2`` is a
fine-tuned MiniLM encoder (``icarus.claims.encoder_ranking``); its record says whether it ranks alone or
blended with ``checkworthy@1`` (each log-odds standardised by the out-of-fold mean and spread the rule
measured), and holds its own bar. ``checkworthy@3`` placed that encoder's bar again for the debate
detector's line budget (``icarus_training.checkworthy_bar``): a record that names an ``encoder`` and its
file's SHA-256 re-places the bar of an encoder shipped before. ``checkworthy@4`` (``DEFAULT_RANKER``) is the
same recipe refitted on all the training transcripts (``icarus_training.checkworthy_all``), with its bar in
its own record.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Any, Final, Protocol

from icarus.claims.cues import checkworthiness
from icarus.claims.encoder_ranking import EncoderRanker, RankerWeightsError, load_encoder_ranker

__all__ = [
    "DEFAULT_BAR",
    "DEFAULT_RANKER",
    "MODEL_FILE",
    "CheckworthyModel",
    "EncoderBlend",
    "Ranker",
    "features",
    "load_model",
    "load_ranker",
]

MODEL_FILE: Final = "checkworthy-1.json"
DEFAULT_RANKER: Final = "checkworthy-4"
"""The file stem (under ``weights/``) of the ranker the detector reads."""
DEFAULT_BAR: Final = 0.4
"""Where the operating point lands on the 0–1 score."""

_I = re.IGNORECASE
_TOKEN = re.compile(r"[a-z]+(?:['’][a-z]+)?|\d[\d,.]*%?|[$%?]")
_PAST = re.compile(
    r"\b(?:was|were|had|did|said|voted|passed|signed|lost|won|went|came|took|made|gave|got|left|"
    r"became|began|built|bought|sold|paid|spent|told|knew|saw|wrote|ran|\w{3,}ed)\b",
    _I,
)
_NORMATIVE = re.compile(
    r"\b(?:we|you|they|america|people|government|congress)\s+(?:need|needs|have|has|must|should|ought|"
    r"got|'ve\s+got|’ve\s+got)\b(?:\s+to)?|\bwe\s+(?:need|must|should)\b|\blet(?:'s|’s|\s+us)\b",
    _I,
)
_PROMISE = re.compile(
    r"\b(?:i|we)(?:'ll|’ll|\s+will|\s+would|\s+am\s+going\s+to|'m\s+going\s+to|’m\s+going\s+to|"
    r"\s+are\s+going\s+to|'re\s+going\s+to|’re\s+going\s+to)\b",
    _I,
)
_FRAMING = re.compile(
    r"\b(?:my\s+question|question\s+(?:is|for|to)|let\s+me\s+ask|i\s+want\s+to\s+ask|minutes?|seconds|"
    r"your\s+time|rebuttal|respond|response|we(?:'ll|’ll|\s+will)\s+(?:turn|move|go|come)|"
    r"next\s+(?:question|topic|segment)|topics?|turn\s+to|move\s+(?:on\s+)?to|talk\s+about|tonight|audience|"
    r"moderat\w+|candidates?|stage|applause|laughter|"
    r"commercial|break|welcome|thank\w*)\b",
    _I,
)
_ADDRESS = re.compile(r"\b(?:you|your|you're|you’re|you've|you’ve)\b", _I)
_HEDGE = re.compile(r"\b(?:i\s+think|i\s+believe|i\s+guess|maybe|perhaps|probably|frankly|honestly)\b", _I)
_LENGTH_BINS: Final = ((5, "len:<5"), (10, "len:5-9"), (20, "len:10-19"), (40, "len:20-39"))


def _tokens(text: str) -> list[str]:
    return ["<num>" if token[0].isdigit() else token for token in _TOKEN.findall(text.lower())]


def features(text: str) -> list[str]:
    """The names of the features ``text`` fires, each once, in a fixed order."""
    fired = [f"cue:{name}" for name in checkworthiness(text).features]
    for name, pattern in (
        ("past", _PAST),
        ("normative", _NORMATIVE),
        ("promise", _PROMISE),
        ("framing", _FRAMING),
        ("address", _ADDRESS),
        ("hedge", _HEDGE),
    ):
        if pattern.search(text):
            fired.append(f"speech:{name}")
    words = _tokens(text)
    fired.append(next((name for limit, name in _LENGTH_BINS if len(words) < limit), "len:40+"))
    seen = set(fired)
    for gram in [*words, *(f"{a} {b}" for a, b in pairwise(words))]:
        name = f"w:{gram}"
        if name not in seen:
            seen.add(name)
            fired.append(name)
    return fired


@dataclass(frozen=True, slots=True)
class CheckworthyModel:
    """Weights by feature name, a bias, and the bar (log-odds of the operating point)."""

    version: str
    bias: float
    bar: float
    weights: dict[str, float]

    def log_odds(self, text: str) -> float:
        return self.bias + sum(self.weights.get(name, 0.0) for name in features(text))

    def score(self, text: str) -> float:
        """The ranking score on 0–1: the log-odds moved so the bar sits at ``DEFAULT_BAR``."""
        return _at_default_bar(self.log_odds(text), self.bar)

    def contributions(self, text: str, top: int = 5) -> list[tuple[str, float]]:
        """The features that moved ``text``'s score most, strongest first: why it ranks where it does."""
        fired = [(name, self.weights[name]) for name in features(text) if name in self.weights]
        return sorted(fired, key=lambda pair: -abs(pair[1]))[:top]


class Ranker(Protocol):
    """What the detector needs of a ranker: its version and a 0–1 score whose ``DEFAULT_BAR`` means "flag"."""

    @property
    def version(self) -> str: ...

    def score(self, text: str) -> float: ...


def _at_default_bar(log_odds: float, bar: float) -> float:
    shifted = log_odds - bar + math.log(DEFAULT_BAR / (1 - DEFAULT_BAR))
    return 1 / (1 + math.exp(-max(-40.0, min(40.0, shifted))))


@dataclass(frozen=True)
class EncoderBlend:
    """``checkworthy@2``: the fine-tuned encoder's log-odds, alone or summed with ``checkworthy@1``'s, each
    standardised by ``(mean, spread)`` from the rule's out-of-fold scores; ``bar`` is on that scale."""

    version: str
    encoder: EncoderRanker
    bar: float
    logistic: CheckworthyModel | None = None
    scales: tuple[tuple[float, float], tuple[float, float]] | None = None  # (lr, encoder)

    def log_odds(self, text: str) -> float:
        encoded = self.encoder.log_odds(text)
        if self.logistic is None or self.scales is None:
            return encoded
        (mean_lr, sd_lr), (mean_enc, sd_enc) = self.scales
        return (self.logistic.log_odds(text) - mean_lr) / sd_lr + (encoded - mean_enc) / sd_enc

    def score(self, text: str) -> float:
        return _at_default_bar(self.log_odds(text), self.bar)


def _weights_record(name: str) -> dict[str, Any]:
    text = resources.files("icarus.claims").joinpath("weights", f"{name}.json").read_text(encoding="utf-8")
    record: dict[str, Any] = json.loads(text)
    return record


@cache
def load_ranker() -> Ranker:
    """The ranker the detector reads (``DEFAULT_RANKER``, read once).

    A record that names an ``encoder`` re-places the bar of an encoder shipped under an earlier version
    (``checkworthy@3`` reads ``checkworthy@2``'s encoder): its own version and bar apply, and the encoder's
    file must still be the one it was placed for."""
    record = _weights_record(DEFAULT_RANKER)
    if "encoder" in record:
        encoder = load_encoder_ranker(str(record["encoder"]))
        if encoder.metadata.get("onnx_sha256") != record.get("encoder_sha256"):
            raise RankerWeightsError(
                f"{record['version']} was placed for {record['encoder']} with SHA-256 "
                f"{record.get('encoder_sha256')}; the shipped encoder's record says "
                f"{encoder.metadata.get('onnx_sha256')}"
            )
        return EncoderBlend(str(record["version"]), encoder, float(record["bar"]))
    encoder = load_encoder_ranker(DEFAULT_RANKER)
    record = encoder.metadata
    blend = record.get("blend")
    if not blend:
        return EncoderBlend(encoder.version, encoder, float(record["bar"]))
    scales = (
        (float(blend["lr"][0]), float(blend["lr"][1])),
        (float(blend["minilm"][0]), float(blend["minilm"][1])),
    )
    return EncoderBlend(encoder.version, encoder, float(record["bar"]), load_model(), scales)


@cache
def load_model() -> CheckworthyModel:
    """The shipped model (read once)."""
    raw = json.loads(resources.files("icarus.claims").joinpath(MODEL_FILE).read_text(encoding="utf-8"))
    return CheckworthyModel(
        version=str(raw["version"]),
        bias=float(raw["bias"]),
        bar=float(raw["bar"]),
        weights={str(name): float(weight) for name, weight in raw["weights"].items()},
    )
