"""A ledger model's configuration: one immutable JSON file per released version, validated and hashed.

Each file under ``configs/`` stands alone (no inheritance), so editing or adding one version can never
change another. Every lookup table must name every member of its vocabulary: a missing key is an error
when the model is loaded, never a default at scoring time.
"""

from __future__ import annotations

import json
from decimal import Decimal
from enum import Enum
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from icarus.ledger import (
    Authenticity,
    EditionKind,
    Extraction,
    LedgerClaimType,
    LinkDirection,
    LinkProvenance,
    ObservationKind,
    Relevance,
    ReviewCheckName,
    SourceKind,
)
from icarus.scoring.canonical import canonical_json, sha256_hex

CONFIG_PACKAGE = "icarus.scoring.ledger.configs"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Independence(_Frozen):
    strategy: Literal["strongest_per_group_and_direction"]
    fallback: Literal["solo", "origin"] = Field(
        description="Group of a link with no independence group: 'solo:' + evidence id, or its origin."
    )


class StateThresholds(_Frozen):
    SUPPORTED: Decimal
    LEANS_SUPPORTED: Decimal
    CONTRADICTED: Decimal
    LEANS_CONTRADICTED: Decimal


class Variants(_Frozen):
    conservative: Decimal
    permissive: Decimal


class Stability(_Frozen):
    variants: Variants
    high_max_spread: Decimal
    medium_max_spread: Decimal
    min_groups_for_high: int


class Rounding(_Frozen):
    mode: Literal["half_even"]
    weights: int
    probability: int
    coverage: int
    boundary_guard: Decimal


class LedgerModelConfig(_Frozen):
    """One released ledger-model version, exactly as its JSON file states it."""

    name: str
    version: str
    summary: str
    changes: str
    scored_types: tuple[LedgerClaimType, ...]
    prior: dict[LedgerClaimType, Decimal]
    model_dependent_types: tuple[LedgerClaimType, ...]
    relevance_weight: dict[Relevance, Decimal]
    observation_weight: dict[ObservationKind, Decimal]
    interpretive_step_penalty: Decimal
    authenticity_factor: dict[Authenticity, Decimal]
    extraction_factor: dict[Extraction, Decimal]
    direction_sign: dict[LinkDirection, int]
    independence: Independence
    state_thresholds: StateThresholds
    stability: Stability
    review_checklist: tuple[ReviewCheckName, ...]
    primary_source_kinds: tuple[SourceKind, ...]
    rounding: Rounding
    provenance_factor: dict[LinkProvenance, Decimal] | None = None
    edition_rule: Literal["named_edition_only"] | None = None
    edition_factor: dict[EditionKind, Decimal] | None = None

    @model_validator(mode="after")
    def _exhaustive(self) -> LedgerModelConfig:
        tables: list[tuple[str, dict[Any, Any] | None, type[Enum]]] = [
            ("relevance_weight", self.relevance_weight, Relevance),
            ("observation_weight", self.observation_weight, ObservationKind),
            ("authenticity_factor", self.authenticity_factor, Authenticity),
            ("extraction_factor", self.extraction_factor, Extraction),
            ("direction_sign", self.direction_sign, LinkDirection),
            ("provenance_factor", self.provenance_factor, LinkProvenance),
            ("edition_factor", self.edition_factor, EditionKind),
        ]
        for key, table, vocabulary in tables:
            if table is not None and set(table) != set(vocabulary):
                missing = sorted(m.value for m in vocabulary if m not in table)
                raise ValueError(f"{key} must name every value; missing {missing}")
        if set(self.prior) != set(self.scored_types):
            raise ValueError("prior must give exactly one prior per scored type")
        if not set(self.model_dependent_types) <= set(self.scored_types):
            raise ValueError("model_dependent_types must be scored types")
        if (self.edition_rule is None) != (self.edition_factor is None):
            raise ValueError("edition_rule and edition_factor come together")
        return self

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def canonical(self) -> dict[str, Any]:
        """The resolved config as JSON data; rules a version does not declare are absent, not null."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude_none=True)
        return data

    def compute_hash(self) -> str:
        """SHA-256 of the canonical JSON of :meth:`canonical` (the model object keeps it once computed)."""
        return "sha256:" + sha256_hex(canonical_json(self.canonical()))


CONFIG_FILES: dict[str, str] = {
    f"{name}@{version}": f"{name}-{version}.json"
    for name in ("ledger-strict", "ledger-default")
    for version in ("0.1.0", "0.2.0", "0.3.0")
}


class UnknownLedgerModelError(KeyError):
    def __str__(self) -> str:
        return f"unknown ledger model {self.args[0]!r}; known: {', '.join(sorted(CONFIG_FILES))}"


@cache
def load_config(ref: str) -> LedgerModelConfig:
    """Load a released ledger model's config by ``name@version``."""
    try:
        filename = CONFIG_FILES[ref]
    except KeyError:
        raise UnknownLedgerModelError(ref) from None
    text = resources.files(CONFIG_PACKAGE).joinpath(filename).read_text("utf-8")
    config = LedgerModelConfig.model_validate(json.loads(text))
    if config.ref != ref:
        raise ValueError(f"{filename} declares {config.ref}, not {ref}")
    return config
