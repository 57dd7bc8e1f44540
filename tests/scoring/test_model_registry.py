"""The model registry: every published model by name@version, one protocol, no model affecting another."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from icarus.ledger import Ledger, load_ledger
from icarus.scoring.canonical import canonical_json
from icarus.scoring.compare import compare, config_diff
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.scoring.registry import (
    ItemWeight,
    ModelRegistry,
    ScoringModel,
    UnknownModelError,
    Verdict,
    build_registry,
    default_registry,
    get_model,
    parse_ref,
)
from tests.scoring.ledger_models.support import link, links_ledger

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHIPPED = [
    "icarus@1.0",
    "icarus@1.1",
    "icarus@1.2",
    "ledger-default@0.1.0",
    "ledger-default@0.2.0",
    "ledger-default@0.3.0",
    "ledger-strict@0.1.0",
    "ledger-strict@0.2.0",
    "ledger-strict@0.3.0",
]


def test_the_registry_holds_every_shipped_model() -> None:
    refs = default_registry().refs()
    assert set(SHIPPED) <= set(refs)
    assert refs == sorted(refs, key=parse_ref)


@pytest.mark.parametrize("ref", SHIPPED)
def test_every_model_follows_the_protocol(ref: str) -> None:
    model = get_model(ref)
    assert isinstance(model, ScoringModel)
    assert model.ref == ref
    assert model.config_hash.startswith("sha256:") and len(model.config_hash) == 71
    json.dumps(model.config_data())
    page = model.methodology()
    assert ref in page.splitlines()[0]


@pytest.mark.parametrize("ref", SHIPPED)
def test_every_result_names_its_model_and_hashes(ref: str) -> None:
    model = get_model(ref)
    result = model.score(load_ledger(FIXTURES / "circular-reporting.json"))
    assert result["model"] == ref and result["config_hash"] == model.config_hash
    assert result["code_hash"].startswith("sha256:") and result["trace_hash"].startswith("sha256:")
    assert model.verdicts(result) and all(isinstance(v, Verdict) for v in model.verdicts(result))
    assert all(ref in v.shown_as for v in model.verdicts(result))


def test_the_icarus_model_gives_the_policy_result() -> None:
    ledger = load_ledger(FIXTURES / "circular-reporting.json")
    direct = score_ledger(ledger, load_policy("icarus@1.1"))
    via = get_model("icarus@1.1").score(ledger)
    assert via.pop("model") == "icarus@1.1"
    assert canonical_json(via) == canonical_json(direct)


@pytest.mark.parametrize("ref", [ref for ref in SHIPPED if ref.startswith("ledger-")])
def test_ledger_model_methodology_shows_config_numbers(ref: str) -> None:
    model = get_model(ref)
    page = model.methodology()
    data = model.config_data()
    assert f"{data['interpretive_step_penalty']} \u00d7 interpretive steps" in page
    for weight in data["relevance_weight"].values():
        assert f"| {weight} |" in page
    assert model.config_hash in page


def test_a_ref_is_registered_once_and_must_be_well_formed() -> None:
    registry = ModelRegistry()
    registry.register("demo@1.0", "demo", lambda: get_model("icarus@1.0"))
    with pytest.raises(ValueError, match="already registered"):
        registry.register("demo@1.0", "demo", lambda: get_model("icarus@1.0"))
    for bad in ("Demo@1", "demo", "demo@v1", "demo@1.x"):
        with pytest.raises(ValueError, match="NAME@VERSION"):
            registry.register(bad, "demo", lambda: get_model("icarus@1.0"))


def test_a_loader_must_build_the_model_it_was_registered_as() -> None:
    registry = ModelRegistry()
    registry.register("demo@1.0", "demo", lambda: get_model("icarus@1.0"))
    with pytest.raises(ValueError, match=r"built icarus@1\.0"):
        registry.get("demo@1.0")


def test_an_unknown_model_names_the_known_ones() -> None:
    with pytest.raises(UnknownModelError) as raised:
        get_model("nothing@1.0")
    assert "unknown model 'nothing@1.0'; known: " in str(raised.value)
    assert "icarus@1.0, icarus@1.1, icarus@1.2, ledger-default@0.1.0" in str(raised.value)


class _Interloper:
    """A model that would misbehave if models could see each other: it scores everything as refuted."""

    ref = "interloper@9.9"
    family = "test"
    config_hash = "sha256:" + "0" * 64

    def config_data(self) -> dict[str, Any]:
        return {"everything": "refuted"}

    def score(self, ledger: Ledger) -> dict[str, Any]:
        return {"model": self.ref, "claims": [c.claim_id for c in ledger.claims]}

    def methodology(self) -> str:
        return "# interloper@9.9\n"

    def verdicts(self, result: Mapping[str, Any]) -> list[Verdict]:
        return [Verdict(c, "refuted", None, None, "refuted") for c in result["claims"]]

    def item_weights(self, result: Mapping[str, Any]) -> list[ItemWeight]:
        return []


def test_adding_a_model_never_changes_another_models_results() -> None:
    ledger = load_ledger(FIXTURES / "circular-reporting.json")
    before_registry = build_registry()
    before = {ref: canonical_json(before_registry.get(ref).score(ledger)) for ref in before_registry.refs()}
    after_registry = build_registry()
    after_registry.register("interloper@9.9", "test", _Interloper)
    interloper = after_registry.get("interloper@9.9")
    interloper.score(ledger)
    after = {ref: canonical_json(after_registry.get(ref).score(ledger)) for ref in before_registry.refs()}
    assert after == before
    assert set(after_registry.refs()) - set(before_registry.refs()) == {"interloper@9.9"}


# --- compare -----------------------------------------------------------------------------------------------


def test_compare_names_the_items_and_config_keys_behind_a_difference() -> None:
    ledger = links_ledger([link("e1", observation="EXPERT_ANALYSIS"), link("e2", relevance="WEAK")])
    comparison = compare(ledger, get_model("ledger-strict@0.1.0"), get_model("ledger-default@0.1.0"))
    diff = comparison["diff"]
    assert diff["same_family"] is True
    (row,) = diff["items"]
    assert row["item_id"] == "e1" and row["weight"] == ["0.000000", "0.600000"]
    assert row["factors"] == {"observation": ["0.0", "0.3"]}
    assert row["config_keys"] == ["observation_weight.EXPERT_ANALYSIS"]
    (change,) = diff["verdicts"]
    assert change["outcome"] == ["UNRESOLVED", "LEANS_SUPPORTED"] and change["outcome_changed"] is True
    assert [r["model"] for r in comparison["results"]] == ["ledger-strict@0.1.0", "ledger-default@0.1.0"]


def test_compare_shows_a_type_one_model_does_not_score() -> None:
    ledger = links_ledger([link("e1")], claim_type="CAUSAL")
    diff = compare(ledger, get_model("ledger-strict@0.1.0"), get_model("ledger-default@0.1.0"))["diff"]
    (row,) = diff["items"]
    assert row["weight"] == ["not applicable", "1.800000"]
    assert "scored_types" in row["config_keys"]
    (change,) = diff["verdicts"]
    assert change["outcome"] == ["NOT_APPLICABLE", "LEANS_SUPPORTED"]  # the causal prior pulls it down


def test_compare_names_the_edition_rule() -> None:
    ledger = links_ledger([link("e1"), link("e2", "CONTRADICT", edition="OTHER")])
    diff = compare(ledger, get_model("ledger-strict@0.2.0"), get_model("ledger-strict@0.3.0"))["diff"]
    (row,) = diff["items"]
    assert row["item_id"] == "e2"
    assert "edition_rule" in row["config_keys"] and "edition_factor.OTHER" in row["config_keys"]


def test_compare_of_one_model_with_itself_is_empty() -> None:
    ledger = links_ledger([link("e1")])
    model = get_model("ledger-default@0.2.0")
    diff = compare(ledger, model, model)["diff"]
    assert diff["config"] == [] and diff["items"] == [] and diff["verdicts"] == []


def test_compare_across_families_compares_weights_and_verdicts_only() -> None:
    ledger = load_ledger(FIXTURES / "circular-reporting.json")
    diff = compare(ledger, get_model("icarus@1.1"), get_model("ledger-default@0.1.0"))["diff"]
    assert diff["same_family"] is False and diff["config"] == []
    assert all(row["config_keys"] == [] for row in diff["items"])


def test_config_diff_lists_dotted_keys() -> None:
    assert config_diff({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": 1, "c": 3}}) == [
        {"key": "a.c", "a": 2, "b": 3},
        {"key": "d", "a": [1], "b": None},
    ]
