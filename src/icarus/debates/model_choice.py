"""Which LLM a debate's calls go to: candidate models ordered by the debate's cost, latency and quality
weights.

A debate may set any of ``cost_weight``, ``latency_weight`` and ``quality_weight`` (each 0.0–1.0,
independent of the others). The weights only *order* the configured candidates; no candidate is ever
excluded, so when the preferred model is unavailable the next one under the same bias answers instead.
With no weight set (or every weight 0.0) the configured order is kept exactly.

The score of a candidate is::

    cost_weight * (1 - cost') + latency_weight * (1 - latency') + quality_weight * quality'

where ``cost'``, ``latency'`` and ``quality'`` are the candidate's attributes rescaled to 0–1 across the
candidates (min-max; an attribute every candidate shares counts 0 for all). Higher scores come first;
equal scores keep the configured order. Pure: no clock, no network.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from icarus.debates.model import DebateSettings

__all__ = [
    "CandidateModel",
    "CandidateSpecError",
    "ModelWeights",
    "choose_model",
    "parse_candidates",
    "rank_models",
]


class CandidateModel(BaseModel):
    """One model at the LLM endpoint and what it costs, how fast it answers and how good it is.

    Units are the operator's own (price per million tokens, seconds per answer, a 0–1 quality score):
    only their order among the candidates matters.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="The model name the endpoint knows.")
    cost: float = Field(default=0.0, ge=0.0, description="Relative price; lower is cheaper.")
    latency: float = Field(default=0.0, ge=0.0, description="Typical answer time; lower is faster.")
    quality: float = Field(default=0.0, ge=0.0, le=1.0, description="Answer quality; higher is better.")


class CandidateSpecError(ValueError):
    """The configured candidate list cannot be read; the message says why."""


_CANDIDATE_LIST = TypeAdapter(list[CandidateModel])


@dataclass(frozen=True)
class ModelWeights:
    """A debate's bias among candidate models. ``None`` (the default) means the weight is not set."""

    cost: float | None = None
    latency: float | None = None
    quality: float | None = None

    def __post_init__(self) -> None:
        for name in ("cost", "latency", "quality"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} weight must be between 0.0 and 1.0, not {value}")

    @classmethod
    def of(cls, settings: DebateSettings) -> ModelWeights:
        """The weights a debate was created (or last patched) with."""
        return cls(settings.cost_weight, settings.latency_weight, settings.quality_weight)

    @property
    def biased(self) -> bool:
        """Whether any weight moves the order: an unset or 0.0 weight does not."""
        return any((value or 0.0) > 0.0 for value in (self.cost, self.latency, self.quality))


def parse_candidates(text: str) -> list[CandidateModel]:
    """Candidates from configuration: a JSON list of ``{"name", "cost", "latency", "quality"}`` objects,
    or a comma-separated list of bare model names (every attribute 0, so weights cannot reorder them).
    Raises ``CandidateSpecError`` on an empty list, a malformed entry or a repeated name."""
    stripped = text.strip()
    if not stripped:
        raise CandidateSpecError("no candidate model configured")
    if stripped.startswith("["):
        try:
            candidates = _CANDIDATE_LIST.validate_python(json.loads(stripped))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise CandidateSpecError(f"unreadable candidate list: {exc}") from exc
    else:
        names = [name.strip() for name in stripped.split(",")]
        if any(not name for name in names):
            raise CandidateSpecError("an empty model name in the candidate list")
        candidates = [CandidateModel(name=name) for name in names]
    if not candidates:
        raise CandidateSpecError("no candidate model configured")
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.name in seen:
            raise CandidateSpecError(f"model {candidate.name!r} is listed twice")
        seen.add(candidate.name)
    return candidates


def _rescaled(values: list[float]) -> list[float]:
    low, high = min(values), max(values)
    if high == low:
        return [0.0 for _ in values]
    return [(value - low) / (high - low) for value in values]


def rank_models(candidates: Sequence[CandidateModel], weights: ModelWeights) -> list[CandidateModel]:
    """Every candidate, most preferred first under ``weights``. Nothing is dropped; with no bias the
    configured order comes back unchanged, and equal scores keep it."""
    ordered = list(candidates)
    if not weights.biased or len(ordered) < 2:
        return ordered
    cost = _rescaled([c.cost for c in ordered])
    latency = _rescaled([c.latency for c in ordered])
    quality = _rescaled([c.quality for c in ordered])
    wc, wl, wq = (weights.cost or 0.0), (weights.latency or 0.0), (weights.quality or 0.0)
    scores = [wc * (1.0 - cost[i]) + wl * (1.0 - latency[i]) + wq * quality[i] for i in range(len(ordered))]
    # Rounded so float noise (0.1 + 0.2) cannot break a tie the configured order should settle.
    order = sorted(range(len(ordered)), key=lambda i: (-round(scores[i], 9), i))
    return [ordered[i] for i in order]


def choose_model(
    candidates: Sequence[CandidateModel],
    weights: ModelWeights,
    available: Callable[[CandidateModel], bool],
) -> CandidateModel | None:
    """The first candidate under ``weights`` that ``available`` accepts: an unavailable model falls back
    to the next under the same bias. None only when every candidate is unavailable."""
    for candidate in rank_models(candidates, weights):
        if available(candidate):
            return candidate
    return None
