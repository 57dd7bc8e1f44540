"""LVF in the model registry: listed, scored from the ledger alone, verdicts name the model."""

from __future__ import annotations

from pathlib import Path

from icarus.ledger import load_ledger
from icarus.scoring.lvf import load_lvf_config
from icarus.scoring.lvf.methodology import render_lvf_methodology
from icarus.scoring.registry import default_registry, get_model

LEDGER = load_ledger(Path(__file__).parents[3] / "examples" / "ledgers" / "two-independent-wires.json")


def test_both_lvf_versions_are_registered_with_their_config_hashes() -> None:
    assert {"lvf@2.0", "lvf@3.0"} <= set(default_registry().refs())
    model = get_model("lvf@3.0")
    assert model.config_hash == load_lvf_config("lvf@3.0").config_hash
    assert model.methodology() == render_lvf_methodology(load_lvf_config("lvf@3.0"))


def test_registry_result_reaches_a_label_with_both_offline_assessors() -> None:
    model = get_model("lvf@3.0")
    result = model.score(LEDGER)
    assert result["trace_hash"] == model.score(LEDGER)["trace_hash"]
    (run,) = result["runs"]
    assert run["status"] == "scored" and run["methodology"] == "lvf@3.0"
    assert [a["assessor"] for a in run["assessors"]] == ["ledger-deterministic@1", "stance-claim@1"]
    (verdict,) = model.verdicts(result)
    assert verdict.outcome == run["label"] and verdict.shown_as.endswith("under lvf@3.0")
    assert "provisional" not in verdict.shown_as and model.item_weights(result) == []


def test_registry_verdicts_say_held_and_provisional_when_the_run_is_held() -> None:
    model = get_model("lvf@3.0")
    single_origin = load_ledger(Path(__file__).parents[3] / "examples" / "ledgers" / "wire-pickups.json")
    result = model.score(single_origin)
    (run,) = result["runs"]
    assert run["status"] == "held"
    (verdict,) = model.verdicts(result)
    assert verdict.outcome == "held" and "provisional" in verdict.shown_as
