"""The Icarus policy as an immutable, hashed configuration.

Every number the methodology page shows is read from here, and every rule reads its numbers from here.
Values are decimals so threshold comparisons are exact (0.75 x 0.60 is 0.45, not 0.4499...).
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# Defined below scoring (the settings and provenance read them) and named here too, with the policy configs.
from icarus.ledger.policy import DEFAULT_POLICY as DEFAULT_POLICY
from icarus.ledger.policy import ProvenanceSettings as ProvenanceSettings
from icarus.scoring.canonical import canonical_json, sha256_hex


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ValidityMultipliers(_Section):
    retracted: Decimal
    expression_of_concern: Decimal
    corrected: Decimal
    preprint: Decimal
    anonymous_sourcing: Decimal
    conflict_of_interest: Decimal
    statistical_flag: Decimal
    c2pa_invalid: Decimal


class DirectnessValues(_Section):
    primary_document: Decimal
    original_reporting: Decimal
    secondary_named: Decimal
    release: Decimal
    out_of_scope: Decimal
    limited_access_cap: Decimal = Field(description="H28: paywall, abstract or snippet caps D here.")


class ReputationBaseline(_Section):
    """Manual baseline values for R by kind of record (applied by the registry, shown on the page)."""

    primary_official: Decimal
    wire: Decimal
    ifcn_signatory: Decimal
    generally_reliable: Decimal
    no_consensus: Decimal
    generally_unreliable_cap: Decimal
    heuristic_min: Decimal
    heuristic_max: Decimal


class Weighting(_Section):
    counting_threshold: Decimal
    estimated_reputation_discount: Decimal
    neutral_below_confidence: Decimal


class DecisionThresholds(_Section):
    conflict_ratio: Decimal
    polarity: Decimal
    mixed_total: Decimal
    minimum_total: Decimal
    minimum_icc: int
    max_inference_hops: int
    conflict_needs_counted_each_side: bool = Field(
        default=False,
        description="Rules 2 and 3 fire only with at least one counted cluster on each side (icarus@1.2 on).",
    )


class ConfidenceWeights(_Section):
    evidence_mass: Decimal
    evidence_mass_saturation: Decimal
    independent_origins: Decimal
    independent_origins_saturation: Decimal
    diversity: Decimal
    diversity_saturation: Decimal
    polarity: Decimal
    stance_confidence: Decimal
    freshness: Decimal


class Penalties(_Section):
    uncertain_origin: Decimal
    heuristic_cluster: Decimal
    heuristic_cap: Decimal
    circular_reporting: Decimal
    open_correction: Decimal


class Bands(_Section):
    high: Decimal
    medium: Decimal


class Freshness(_Section):
    full_days: int
    zero_days: int


class DateRules(_Section):
    future_tolerance_minutes: int
    event_window_days: int


class StatisticsRules(_Section):
    relative_tolerance: Decimal = Field(description="H13: 0.005 means 0.5 % relative.")
    order_of_magnitude: Decimal = Field(description="H14: abs(log10 ratio) at or above this conflicts.")


class MediaRules(_Section):
    phash_max_distance: int
    min_age_hours: int
    soft_404_min_chars: int


class GateSettings(_Section):
    ocr_min_confidence: Decimal
    correction_window_hours: int
    ongoing_window_hours: int
    recheck_offsets_minutes: tuple[int, ...]


class PolicyConfig(BaseModel):
    """One immutable policy version. ``inert`` lists published-but-not-live rule parts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str
    published: str
    summary: str
    inert: frozenset[str]
    validity: ValidityMultipliers
    directness: DirectnessValues
    reputation: ReputationBaseline
    weighting: Weighting
    decision: DecisionThresholds
    confidence: ConfidenceWeights
    penalties: Penalties
    bands: Bands
    freshness: Freshness
    provenance: ProvenanceSettings
    dates: DateRules
    statistics: StatisticsRules
    media: MediaRules
    gates: GateSettings

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def live(self, feature: str) -> bool:
        """Whether a rule part is live under this version (``feature`` must be a known key)."""
        if feature not in KNOWN_FEATURES:
            raise KeyError(f"unknown rule feature {feature!r}")
        return feature not in self.inert

    def canonical(self) -> dict[str, Any]:
        """The resolved config as hashed. A switch that a later version added is written only where it is set
        away from its default (the earlier behaviour), so adding one leaves every earlier version's canonical
        bytes, and its hash, as they were. Every other field has no default and is always written."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude_defaults=True)
        data["inert"] = sorted(self.inert)
        return data

    @property
    def config_hash(self) -> str:
        """SHA-256 of the canonical JSON of the resolved config (memoised per instance: configs are frozen,
        and a copy with changes is a new instance)."""
        known = _CONFIG_HASHES.get(id(self))
        if known is not None and known[0] is self:
            return known[1]
        digest = "sha256:" + sha256_hex(canonical_json(self.canonical()))
        _CONFIG_HASHES[id(self)] = (self, digest)
        return digest


_CONFIG_HASHES: dict[int, tuple[PolicyConfig, str]] = {}

# Rule parts the seed publishes as "not yet live"; icarus@1.0 lists them all as inert.
KNOWN_FEATURES: frozenset[str] = frozenset(
    {
        "reputation.lin2023",
        "H4.review_queue",
        "H5.iffy",
        "H9.exclusion",
        "H10.registration",
        "H12.force_misleading",
        "H13.arithmetic",
        "H14.magnitude",
        "H15.caveat",
        "H16.lookup",
        "H17.metadata",
        "H19.overlap_demotion",
        "H21.caveat",
        "H22.lookup",
        "H24.drift",
    }
)

POLICY_FILES = {
    "icarus@1.0": "icarus-1.0.json",
    "icarus@1.1": "icarus-1.1.json",
    "icarus@1.2": "icarus-1.2.json",
}


class UnknownPolicyError(KeyError):
    def __str__(self) -> str:
        return f"unknown policy {self.args[0]!r}; known: {', '.join(sorted(POLICY_FILES))}"


@cache
def load_policy(ref: str = DEFAULT_POLICY) -> PolicyConfig:
    """Load a shipped policy version by ``name@version``. A version's file is never edited once released."""
    try:
        filename = POLICY_FILES[ref]
    except KeyError:
        raise UnknownPolicyError(ref) from None
    text = resources.files("icarus.scoring.icarus.policies").joinpath(filename).read_text("utf-8")
    data = json.loads(text)
    base = data.pop("extends", None)
    if base is not None:
        merged = load_policy(base).canonical()
        _deep_update(merged, data)
        data = merged
    config = PolicyConfig.model_validate(data)
    unknown = config.inert - KNOWN_FEATURES
    if unknown:
        raise ValueError(f"{ref} marks unknown features inert: {sorted(unknown)}")
    return config


def _deep_update(target: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_update(target[key], value)
        else:
            target[key] = value
