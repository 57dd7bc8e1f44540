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
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Final

from icarus.claims.cues import checkworthiness

__all__ = [
    "DEFAULT_BAR",
    "MODEL_FILE",
    "CheckworthyModel",
    "features",
    "load_model",
]

MODEL_FILE: Final = "checkworthy-1.json"
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
        shifted = self.log_odds(text) - self.bar + math.log(DEFAULT_BAR / (1 - DEFAULT_BAR))
        return 1 / (1 + math.exp(-max(-40.0, min(40.0, shifted))))

    def contributions(self, text: str, top: int = 5) -> list[tuple[str, float]]:
        """The features that moved ``text``'s score most, strongest first: why it ranks where it does."""
        fired = [(name, self.weights[name]) for name in features(text) if name in self.weights]
        return sorted(fired, key=lambda pair: -abs(pair[1]))[:top]


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
