"""The six ledger models (ledger-strict and ledger-default, 0.1.0 to 0.3.0) behind the registry protocol.

``LedgerScoringModel.score(ledger)`` maps the ledger onto claims and links (``mapping``), runs the
algorithm per claim (``calculate``) and assembles a result whose trace is canonical JSON with its own hash:
the same ledger under the same model and code gives the same bytes.

Result shape (JSON): ``model``, ``family``, ``config_hash``, ``code_hash``, ``mapping`` (version and hash),
``ledger_id``, ``ledger_hash``, ``as_of``, ``claims`` (one per assessed claim: ``id``, ``text``, ``state``,
``probability`` or null, ``shown_as``, ``stability``, ``spread``, ``not_applicable_reason``,
``model_dependent``, ``contested``, ``support_groups``, ``contradict_groups``, ``review_coverage``,
``review_checks``), ``not_assessed``, ``trace`` and ``trace_hash``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from decimal import Decimal
from functools import cache, partial
from pathlib import Path
from typing import Any

from icarus.ledger import Ledger
from icarus.scoring.canonical import canonical_json, code_hash, ledger_hash, sha256_hex
from icarus.scoring.ledger.arithmetic import fixed
from icarus.scoring.ledger.calculate import ClaimInput, assess_claim
from icarus.scoring.ledger.config import CONFIG_FILES, LedgerModelConfig, load_config
from icarus.scoring.ledger.mapping import MAPPING_VERSION, claim_inputs, ledger_graph, mapping_hash
from icarus.scoring.ledger.methodology import render_methodology
from icarus.scoring.registry import ItemWeight, ModelRegistry, Verdict

FAMILY = "ledger"
TRACE_VERSION = "ledger-trace/1"
SHOWN_PLACES = 2  # a probability is shown to two places, always with the model that produced it
_SRC = Path(__file__).resolve().parents[2]
# The code a ledger-model result depends on: the ledger vocabulary, provenance (groups), this family, the
# canonical serialisation and the policy config module the provenance settings are read through.
CODE_PATHS: tuple[str, ...] = (
    "ledger",
    "provenance",
    "scoring/ledger",
    "scoring/canonical.py",
    "scoring/icarus/config.py",
)


@cache
def ledger_code_hash() -> str:
    parts = []
    for relative in CODE_PATHS:
        path = _SRC / relative
        if path.is_dir():
            parts.append(code_hash(path))
        else:
            parts.append("sha256:" + hashlib.sha256(path.read_bytes()).hexdigest())
    return "sha256:" + sha256_hex("".join(parts))


class LedgerScoringModel:
    """One released ledger-model version."""

    family = FAMILY

    def __init__(self, config: LedgerModelConfig) -> None:
        self.config = config
        self._config_hash = config.compute_hash()

    @property
    def ref(self) -> str:
        return self.config.ref

    @property
    def config_hash(self) -> str:
        return self._config_hash

    def config_data(self) -> dict[str, Any]:
        return self.config.canonical()

    def methodology(self) -> str:
        return render_methodology(self.config, self._config_hash)

    def score(self, ledger: Ledger) -> dict[str, Any]:
        inputs = claim_inputs(ledger, ledger_graph(ledger))
        texts = {claim.claim_id: claim.text for claim in ledger.claims}
        not_assessed = [
            {"id": c.claim_id, "text": c.text, "reason": c.not_assessed.value}
            for c in ledger.claims
            if c.not_assessed is not None
        ]
        digest = ledger_hash(ledger)
        as_of = ledger.as_of.isoformat().replace("+00:00", "Z")
        return self.score_claims(inputs, texts, ledger.ledger_id, digest, as_of, not_assessed)

    def score_claims(
        self,
        inputs: list[ClaimInput],
        texts: Mapping[str, str] | None = None,
        ledger_id: str = "",
        ledger_hash: str | None = None,
        as_of: str | None = None,
        not_assessed: list[dict[str, str]] | None = None,
    ) -> dict[str, Any]:
        """Score claims given as resolved inputs (what ``score`` does after the mapping)."""
        head = {
            "model": self.ref,
            "config_hash": self.config_hash,
            "code_hash": ledger_code_hash(),
        }
        traces = [{**head, **assess_claim(claim, self.config)} for claim in inputs]
        trace = {
            "trace_version": TRACE_VERSION,
            **head,
            "mapping": {"version": MAPPING_VERSION, "hash": mapping_hash()},
            "ledger_id": ledger_id,
            "ledger_hash": ledger_hash,
            "as_of": as_of,
            "claims": traces,
        }
        return {
            **head,
            "family": FAMILY,
            "mapping": trace["mapping"],
            "ledger_id": ledger_id,
            "ledger_hash": ledger_hash,
            "as_of": as_of,
            "claims": [self._claim_result(t, (texts or {}).get(t["claim"], "")) for t in traces],
            "not_assessed": not_assessed or [],
            "trace": trace,
            "trace_hash": "sha256:" + sha256_hex(canonical_json(trace)),
        }

    def shown_as(self, probability: str | None, state: str) -> str:
        """ "0.86 under ledger-default@0.1.0": a probability is never shown without its model."""
        if probability is None:
            return f"no probability under {self.ref} ({state})"
        return f"{fixed(Decimal(probability), SHOWN_PLACES)} under {self.ref}"

    def _claim_result(self, trace: Mapping[str, Any], text: str) -> dict[str, Any]:
        checklist = trace["review_checklist"]
        done = sum(1 for entry in checklist.values() if entry["ok"])
        variants = trace["variants"]
        return {
            "id": trace["claim"],
            "text": text,
            "state": trace["assessment_state"],
            "probability": trace["probability"],
            "shown_as": self.shown_as(trace["probability"], trace["assessment_state"]),
            "stability": trace["stability"],
            "spread": variants["spread"] if variants else None,
            "not_applicable_reason": trace["not_applicable_reason"],
            "model_dependent": trace["model_dependent"],
            "contested": trace["contested"],
            "support_groups": trace["support_groups"],
            "contradict_groups": trace["contradict_groups"],
            "review_coverage": trace["review_coverage"],
            "review_checks": f"{done} of {len(checklist)}",
        }

    def verdicts(self, result: Mapping[str, Any]) -> list[Verdict]:
        verdicts = []
        for claim in result["claims"]:
            stability = f", stability {claim['stability']}" if claim["stability"] else ""
            reason = f" ({claim['not_applicable_reason']})" if claim["not_applicable_reason"] else ""
            verdicts.append(
                Verdict(
                    claim_id=claim["id"],
                    outcome=claim["state"],
                    band=claim["stability"],
                    probability=claim["probability"],
                    shown_as=f"{claim['state']}{reason}: {claim['shown_as']}{stability}; "
                    f"review checks {claim['review_checks']}",
                )
            )
        return verdicts

    def item_weights(self, result: Mapping[str, Any]) -> list[ItemWeight]:
        weights = []
        for claim in result["trace"]["claims"]:
            for link in claim["links"]:
                factors = dict(link["factors"])
                keys = _factor_keys(link)
                factors["group"] = link["group_key"]
                factors["counted"] = link.get("reason", "kept")
                weights.append(
                    ItemWeight(
                        claim_id=claim["claim"],
                        item_id=link["link"],
                        weight=link["effective_weight"] or "not applicable",
                        factors=factors,
                        config_keys=keys,
                        note=link.get("reason", ""),
                    )
                )
        return weights


def _factor_keys(link: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The config keys (dotted, as in ``config_data()``) each factor of a link trace is read from."""
    keys: dict[str, tuple[str, ...]] = {
        "relevance": (f"relevance_weight.{link['relevance']}",),
        "observation": (f"observation_weight.{link['observation']}",),
        "interpretation": ("interpretive_step_penalty",),
        "authenticity": (f"authenticity_factor.{link['authenticity']}",),
        "extraction": (f"extraction_factor.{link['extraction']}",),
        "group": ("independence.fallback",),
        "counted": (
            "scored_types",
            "independence.strategy",
            f"direction_sign.{link['direction']}",
            "edition_rule",
        ),
    }
    if "provenance" in link:
        keys["provenance"] = (f"provenance_factor.{link['provenance']}",)
    if "edition" in link:
        keys["edition"] = (f"edition_factor.{link['edition']}", "edition_rule")
    return keys


def register_models(registry: ModelRegistry) -> None:
    for ref in CONFIG_FILES:
        registry.register(ref, FAMILY, partial(_load, ref))


def _load(ref: str) -> LedgerScoringModel:
    return LedgerScoringModel(load_config(ref))
