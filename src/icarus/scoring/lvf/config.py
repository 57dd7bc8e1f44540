"""LVF methodology versions as immutable, hashed configurations.

Every number the LVF methodology page shows and every number the formula applies is read from one of these
files. A released version's file is never edited; a change is a new version. Values are decimals so that a
boundary (a checkworthiness of exactly 0.30, a spread of exactly 4) compares exactly.
"""

from __future__ import annotations

import json
from decimal import Decimal
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from icarus.scoring.canonical import canonical_json, sha256_hex

__all__ = [
    "CONFIG_FILES",
    "DEFAULT_LVF",
    "ChallengeLimits",
    "Component",
    "Criterion",
    "FormulaName",
    "LedgerAssessorSettings",
    "LvfConfig",
    "TemporalStep",
    "UnknownLvfVersionError",
    "load_lvf_config",
]


class Criterion(StrEnum):
    """The six LVF criteria, each scored 0-10 by every assessor."""

    SOURCE_PROVENANCE = "source_provenance"
    CORROBORATION = "corroboration"
    INTERNAL_CONSISTENCY = "internal_consistency"
    SPECIFICITY = "specificity"
    TEMPORAL_VALIDITY = "temporal_validity"
    BIAS_SIGNAL = "bias_signal"

    @property
    def heading(self) -> str:
        return self.value.replace("_", " ").capitalize()


class Component(StrEnum):
    """The four bounded components (0-100) the final score combines."""

    LVF = "lvf"
    NLI = "nli"
    RELIABILITY = "reliability"
    CHECKWORTHINESS = "checkworthiness"


class FormulaName(StrEnum):
    """``with_nli`` when a stance judge's answers were available; ``without_nli`` is the fallback."""

    WITH_NLI = "with_nli"
    WITHOUT_NLI = "without_nli"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reconciliation(_Section):
    min_assessors: int = Field(ge=1, description="Fewer successful assessors than this holds the run.")
    max_spread: Decimal = Field(description="A criterion whose scores spread more than this holds the run.")


class Formula(_Section):
    lvf: Decimal
    nli: Decimal
    reliability: Decimal
    checkworthiness: Decimal

    def weight(self, component: Component) -> Decimal:
        value: Decimal = getattr(self, component.value)
        return value

    @model_validator(mode="after")
    def _sums_to_one(self) -> Formula:
        total = self.lvf + self.nli + self.reliability + self.checkworthiness
        if total != 1:
            raise ValueError(f"component weights must sum to 1, not {total}")
        return self


class Formulas(_Section):
    with_nli: Formula
    without_nli: Formula

    def get(self, name: FormulaName) -> Formula:
        formula: Formula = getattr(self, name.value)
        return formula


class LabelEdges(_Section):
    """Lowest displayed score of each label; anything lower is Opinion."""

    factual: int
    rumour: int


class BandEdges(_Section):
    """Lowest displayed score of each band; anything lower is Low."""

    high: int
    medium: int


class TemporalStep(_Section):
    max_age_days: int
    points: Decimal


class LedgerAssessorSettings(_Section):
    """Parameters of the deterministic assessor (``ledger-deterministic@1``)."""

    neutral_below_confidence: Decimal = Field(
        description="A support or refute answer below this confidence is read as neutral and not counted."
    )
    directness_points: dict[str, Decimal] = Field(description="Source provenance points by directness.")
    limited_access_cap: Decimal = Field(
        description="Paywalled, abstract-only or snippet-only items cap here."
    )
    anonymous_sourcing_penalty: Decimal
    untraceable_penalty: Decimal = Field(description="Taken off an item with no content hash or snapshot.")
    corroboration_points: tuple[Decimal, ...] = Field(
        description="Points for 0, 1, 2, ... supporting independent origins; the last entry covers more."
    )
    without_evidence: Decimal = Field(
        description="Internal consistency and bias signal when nothing was counted: nothing to compare."
    )
    specificity_points_per_cue: Decimal
    temporal_steps: tuple[TemporalStep, ...]
    temporal_older: Decimal
    temporal_undated: Decimal


class ChallengeLimits(_Section):
    max_per_submitter: int = Field(ge=1, description="Submissions one submitter may make per window.")
    window_hours: int = Field(ge=1)
    max_evidence_items: int = Field(ge=1)
    max_text_chars: int = Field(ge=1)


class LvfConfig(BaseModel):
    """One immutable LVF methodology version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str
    published: str
    summary: str
    checkworthiness_gate: Decimal
    criteria: dict[Criterion, Decimal]
    reconciliation: Reconciliation
    formulas: Formulas
    labels: LabelEdges
    bands: BandEdges
    provenance_settings_from: str
    ledger_assessor: LedgerAssessorSettings
    challenges: ChallengeLimits

    @model_validator(mode="after")
    def _criteria_complete(self) -> LvfConfig:
        if set(self.criteria) != set(Criterion):
            raise ValueError("every criterion needs exactly one weight")
        total = sum(self.criteria.values(), Decimal(0))
        if total != 1:
            raise ValueError(f"criterion weights must sum to 1, not {total}")
        return self

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def canonical(self) -> dict[str, Any]:
        data: dict[str, Any] = self.model_dump(mode="json")
        return data

    @property
    def config_hash(self) -> str:
        return "sha256:" + sha256_hex(canonical_json(self.canonical()))


CONFIG_FILES = {"lvf@2.0": "lvf-2.0.json", "lvf@3.0": "lvf-3.0.json"}
DEFAULT_LVF = "lvf@3.0"


class UnknownLvfVersionError(KeyError):
    def __str__(self) -> str:
        return f"unknown LVF version {self.args[0]!r}; known: {', '.join(sorted(CONFIG_FILES))}"


@cache
def load_lvf_config(ref: str = DEFAULT_LVF) -> LvfConfig:
    """Load a shipped LVF version by ``name@version``."""
    try:
        filename = CONFIG_FILES[ref]
    except KeyError:
        raise UnknownLvfVersionError(ref) from None
    text = resources.files("icarus.scoring.lvf.configs").joinpath(filename).read_text("utf-8")
    return LvfConfig.model_validate(json.loads(text))
