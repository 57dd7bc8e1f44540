"""LVF versions as registered scoring models (``lvf@2.0``, ``lvf@3.0``).

Through the registry a model sees only the ledger, so the two offline assessors run here (the ledger-rule
one and the stance-and-claim one); the LLM assessor reads settings and the network, and ``icarus lvf``
adds it when configured. A run the assessors disagree on is held for review: its numbers are computed
and shown as provisional.

Result shape (JSON): ``model``, ``family``, ``config_hash``, ``code_hash``, ``ledger_id``, ``runs`` (one
full LVF run record per claim, as ``icarus lvf score --json`` prints it) and ``trace_hash`` (SHA-256 of the
canonical JSON of the runs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

from icarus.ledger import Ledger
from icarus.scoring.canonical import canonical_json, sha256_hex
from icarus.scoring.lvf.config import CONFIG_FILES, LvfConfig, load_lvf_config
from icarus.scoring.lvf.engine import LVF_CODE_HASH, run_lvf
from icarus.scoring.lvf.methodology import render_lvf_methodology
from icarus.scoring.registry import ItemWeight, ModelRegistry, Verdict

__all__ = ["FAMILY", "LvfModel", "register_models"]

FAMILY = "lvf"


class LvfModel:
    family = FAMILY

    def __init__(self, config: LvfConfig) -> None:
        self.config = config

    @property
    def ref(self) -> str:
        return self.config.ref

    @property
    def config_hash(self) -> str:
        return self.config.config_hash

    def config_data(self) -> dict[str, Any]:
        return self.config.canonical()

    def score(self, ledger: Ledger) -> dict[str, Any]:
        runs = [json.loads(run.canonical_json()) for run in run_lvf(ledger, self.config)]
        return {
            "model": self.ref,
            "family": FAMILY,
            "config_hash": self.config_hash,
            "code_hash": LVF_CODE_HASH,
            "ledger_id": ledger.ledger_id,
            "runs": runs,
            "trace_hash": "sha256:" + sha256_hex(canonical_json(runs)),
        }

    def methodology(self) -> str:
        return render_lvf_methodology(self.config)

    def verdicts(self, result: Mapping[str, Any]) -> list[Verdict]:
        verdicts = []
        for run in result["runs"]:
            status = run["status"]
            if status == "skipped":
                outcome, shown = "skipped", f"skipped (checkworthiness below the gate) under {self.ref}"
            else:
                reading = f"{run['label']}: {run['display_score']} / 100 ({run['band']} band)"
                outcome = run["label"] if status == "scored" else "held"
                shown = (reading if status == "scored" else f"held for review, provisional {reading}") + (
                    f" under {self.ref}"
                )
            verdicts.append(
                Verdict(
                    claim_id=run["claim_id"],
                    outcome=outcome,
                    band=run["band"],
                    probability=None,
                    shown_as=shown,
                )
            )
        return verdicts

    def item_weights(self, result: Mapping[str, Any]) -> list[ItemWeight]:
        return []  # LVF weighs criteria and components, not individual evidence items


def register_models(registry: ModelRegistry) -> None:
    for ref in sorted(CONFIG_FILES):
        registry.register(ref, FAMILY, partial(_load, ref))


def _load(ref: str) -> LvfModel:
    return LvfModel(load_lvf_config(ref))
