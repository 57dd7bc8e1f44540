"""The Icarus policies as registered scoring models (``icarus@1.0``, ``icarus@1.1``, ``icarus@1.2``).

A thin adapter: the policy config, ``score_ledger`` and the methodology renderer are used exactly as the
``--policy`` path uses them; a result scored through the registry is the direct result with the model's
ref added under ``"model"`` (its trace and trace hash are the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from icarus.ledger import Ledger
from icarus.scoring.icarus.config import POLICY_FILES, PolicyConfig, load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.scoring.icarus.methodology import render_methodology
from icarus.scoring.registry import ItemWeight, ModelRegistry, Verdict

FAMILY = "icarus"

# Which config sections set each factor of an item's weight R x D x V x C x P. ``inert`` switches rule
# parts on and off, so it can move any factor.
FACTOR_KEYS: dict[str, tuple[str, ...]] = {
    "R": ("reputation", "inert"),
    "D": ("directness", "inert"),
    "V": ("validity", "statistics", "media", "dates", "inert"),
    "C": ("weighting.neutral_below_confidence", "inert"),
    "P": ("weighting.estimated_reputation_discount", "inert"),
}


class IcarusModel:
    """One Icarus policy version behind the registry protocol."""

    family = FAMILY

    def __init__(self, policy: PolicyConfig) -> None:
        self.policy = policy

    @property
    def ref(self) -> str:
        return self.policy.ref

    @property
    def config_hash(self) -> str:
        return self.policy.config_hash

    def config_data(self) -> dict[str, Any]:
        return self.policy.canonical()

    def score(self, ledger: Ledger) -> dict[str, Any]:
        result = score_ledger(ledger, self.policy)
        return {"model": self.ref, **result}

    def methodology(self) -> str:
        return render_methodology(self.policy)

    def verdicts(self, result: Mapping[str, Any]) -> list[Verdict]:
        return [
            Verdict(
                claim_id=claim["id"],
                outcome=claim["label"],
                band=claim["band"],
                probability=None,
                shown_as=f"{claim['symbol']} {claim['label']} ({claim['band']} confidence) under {self.ref}",
            )
            for claim in result["claims"]
        ]

    def item_weights(self, result: Mapping[str, Any]) -> list[ItemWeight]:
        weights: list[ItemWeight] = []
        for claim in result["trace"]["claims"]:
            final = claim["passes"][-1]
            for item in final["items"]:
                excluded = "; ".join(f"{e['rule']}: {e['reason']}" for e in item["excluded_by"])
                weights.append(
                    ItemWeight(
                        claim_id=claim["claim_id"],
                        item_id=item["evidence_id"],
                        weight=item["weight"],
                        factors={term: item[term] for term in FACTOR_KEYS},
                        config_keys=FACTOR_KEYS,
                        note=excluded,
                    )
                )
        return weights


def register_models(registry: ModelRegistry) -> None:
    for ref in sorted(POLICY_FILES):
        registry.register(ref, FAMILY, partial(_load, ref))


def _load(ref: str) -> IcarusModel:
    return IcarusModel(load_policy(ref))
