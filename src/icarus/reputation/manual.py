"""The project's own manually reviewed classifications, shipped as package data.

``data/manual.json`` holds reviewed records for classes the registry must know without any dataset:
primary official sources, wires, aggregators, satire, platforms, release services and preprint servers.
Each entry's score is the policy baseline for its class (:data:`CLASS_BASELINE` names the baseline field of
``ReputationBaseline``); a test checks the file against the policy. Weight-0 classes (aggregator, satire,
platform, H6) carry a score only for display: their class, not their score, keeps them out of the arithmetic.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from pydantic import ValidationError

from icarus.ledger import ReputationRecord, SourceClass, SourceTier
from icarus.reputation.default import shipped_default as load_shipped_default
from icarus.reputation.registry import (
    Registry,
    RegistryEntry,
    RegistryFileError,
    SuffixRule,
    file_layer,
    layered_registry,
)

__all__ = [
    "CLASS_BASELINE",
    "CLASS_TIER",
    "MANUAL_RESOURCE",
    "default_registry",
    "load_manual",
    "manual_layer",
]

MANUAL_RESOURCE = "data/manual.json"

# The ReputationBaseline field each manually reviewed class takes its score from.
CLASS_BASELINE: dict[SourceClass, str] = {
    SourceClass.PRIMARY_OFFICIAL: "primary_official",
    SourceClass.WIRE: "wire",
    SourceClass.AGGREGATOR: "no_consensus",
    SourceClass.PLATFORM: "no_consensus",
    SourceClass.SATIRE: "generally_unreliable_cap",
    SourceClass.RELEASE_SERVICE: "no_consensus",
    SourceClass.PREPRINT_SERVER: "no_consensus",
}

# The diversity tier each manually reviewed class is filed under.
CLASS_TIER: dict[SourceClass, SourceTier] = {
    SourceClass.PRIMARY_OFFICIAL: SourceTier.PRIMARY_OFFICIAL,
    SourceClass.WIRE: SourceTier.WIRE,
    SourceClass.AGGREGATOR: SourceTier.OTHER,
    SourceClass.PLATFORM: SourceTier.OTHER,
    SourceClass.SATIRE: SourceTier.OTHER,
    SourceClass.RELEASE_SERVICE: SourceTier.OTHER,
    SourceClass.PREPRINT_SERVER: SourceTier.SCHOLARLY,
}


def manual_text() -> str:
    return files("icarus.reputation").joinpath(MANUAL_RESOURCE).read_text(encoding="utf-8")


def load_manual() -> list[RegistryEntry]:
    """The shipped manual records, in file order."""
    try:
        raw = json.loads(manual_text())
        return [
            RegistryEntry(
                ReputationRecord.model_validate(item["record"]), SourceClass(str(item["source_class"]))
            )
            for item in raw
        ]
    except (OSError, ValidationError, KeyError, TypeError, ValueError) as exc:
        raise RegistryFileError(f"shipped manual records: {exc}") from exc


@lru_cache(maxsize=1)
def manual_layer() -> dict[str, RegistryEntry]:
    """The shipped manual records by domain, read once per process."""
    return {e.record.domain: e for e in load_manual()}


def default_registry(*extra_files: Path, shipped_default: bool = True) -> Registry:
    """The registry every scoring path uses: the shipped manual records, the shipped default registry (its
    records and suffix rules; left out with ``shipped_default=False``), then each extra registry file in
    order, merged per field by :mod:`icarus.reputation.merge` (a reviewed class and tier win; imports fill
    in; a risk flag only lowers)."""
    layers: list[Mapping[str, RegistryEntry]] = [manual_layer()]
    rules: tuple[SuffixRule, ...] = ()
    if shipped_default:
        default = load_shipped_default()
        layers.append(default.layer)
        rules = default.rules
    layers.extend(file_layer(path) for path in extra_files)
    return layered_registry(layers, rules)
