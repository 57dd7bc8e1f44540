"""The two pieces of the scoring policy that code below scoring reads: which policy is the default, and
provenance's section of every policy config (copy groups, releases, amplification).

The settings name the default policy, and ``icarus.provenance`` builds its graph from ``ProvenanceSettings``;
``icarus.scoring.icarus.config`` reads both from here, so neither needs the scoring package.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_POLICY", "ProvenanceSettings"]

DEFAULT_POLICY = "icarus@1.2"
"""The policy a check is scored under when none is named."""


class ProvenanceSettings(BaseModel):
    """A policy config's ``provenance`` section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shingle_words: int
    minhash_permutations: int
    minhash_seed: int
    similarity_threshold: Decimal = Field(
        description="H2: MinHash Jaccard at or above this joins a copy group."
    )
    release_shingle_words: int
    release_containment: Decimal = Field(description="H19: share of an item's shingles found in a release.")
    amplification_similarity: Decimal
    amplification_window_minutes: int
    amplification_min_items: int
    amplification_min_domains: int
