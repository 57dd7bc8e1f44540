"""The ledger models (ledger-strict and ledger-default), registered by version."""

from __future__ import annotations

from icarus.scoring.registry import ModelRegistry


def register_models(registry: ModelRegistry) -> None:
    """Filled in as the ledger models land."""
