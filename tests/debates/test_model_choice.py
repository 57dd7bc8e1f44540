"""Model-selection weights: they order the candidate models, never exclude one, and fall back in order."""

from __future__ import annotations

import pytest

from icarus.debates.model import DebateSettings
from icarus.debates.model_choice import (
    CandidateModel,
    CandidateSpecError,
    ModelWeights,
    choose_model,
    parse_candidates,
    rank_models,
)

# Configured order: big first. cheap is cheapest and slowest-but-one; fast is quickest; big is best.
BIG = CandidateModel(name="big", cost=10.0, latency=4.0, quality=0.95)
CHEAP = CandidateModel(name="cheap", cost=0.2, latency=3.0, quality=0.55)
FAST = CandidateModel(name="fast", cost=1.0, latency=0.5, quality=0.70)
CANDIDATES = [BIG, CHEAP, FAST]


def names(models: list[CandidateModel]) -> list[str]:
    return [model.name for model in models]


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        (ModelWeights(), ["big", "cheap", "fast"]),
        (ModelWeights(cost=0.0, latency=0.0, quality=0.0), ["big", "cheap", "fast"]),
        (ModelWeights(cost=1.0), ["cheap", "fast", "big"]),
        (ModelWeights(latency=1.0), ["fast", "cheap", "big"]),
        (ModelWeights(quality=1.0), ["big", "fast", "cheap"]),
        # cheap and responsive, as a live debate wants: fast is nearly as cheap and far quicker.
        (ModelWeights(cost=0.7, latency=0.3), ["fast", "cheap", "big"]),
        (ModelWeights(cost=0.95, latency=0.05), ["cheap", "fast", "big"]),
        (ModelWeights(cost=0.5, latency=0.5), ["fast", "cheap", "big"]),
        (ModelWeights(cost=0.1, quality=1.0), ["big", "fast", "cheap"]),
        (ModelWeights(cost=1.0, latency=1.0, quality=1.0), ["fast", "cheap", "big"]),
    ],
)
def test_weights_order_the_candidates(weights: ModelWeights, expected: list[str]) -> None:
    assert names(rank_models(CANDIDATES, weights)) == expected


@pytest.mark.parametrize(
    "weights",
    [
        ModelWeights(cost=1.0),
        ModelWeights(latency=1.0),
        ModelWeights(quality=1.0),
        ModelWeights(cost=0.3, latency=0.9, quality=0.2),
    ],
)
def test_no_candidate_is_ever_excluded(weights: ModelWeights) -> None:
    assert sorted(names(rank_models(CANDIDATES, weights))) == ["big", "cheap", "fast"]


def test_equal_scores_keep_the_configured_order() -> None:
    twins = [
        CandidateModel(name="a", cost=1.0, quality=0.5),
        CandidateModel(name="b", cost=1.0, quality=0.5),
        CandidateModel(name="c", cost=1.0, quality=0.5),
    ]
    assert names(rank_models(twins, ModelWeights(cost=1.0, quality=1.0))) == ["a", "b", "c"]
    assert names(rank_models(list(reversed(twins)), ModelWeights(cost=1.0))) == ["c", "b", "a"]


def test_a_bare_name_list_cannot_be_reordered() -> None:
    bare = parse_candidates("m1, m2 ,m3")
    assert names(rank_models(bare, ModelWeights(cost=1.0, latency=1.0, quality=1.0))) == ["m1", "m2", "m3"]


def test_an_unavailable_model_falls_back_to_the_next_under_the_same_bias() -> None:
    down = {"cheap"}
    chosen = choose_model(CANDIDATES, ModelWeights(cost=1.0), lambda m: m.name not in down)
    assert chosen is FAST  # the next cheapest, not the configured first
    chosen = choose_model(CANDIDATES, ModelWeights(), lambda m: m.name != "big")
    assert chosen is CHEAP  # no bias: the next in configured order


def test_no_model_only_when_every_candidate_is_unavailable() -> None:
    assert choose_model(CANDIDATES, ModelWeights(quality=1.0), lambda m: False) is None
    assert choose_model(CANDIDATES, ModelWeights(quality=1.0), lambda m: m is CHEAP) is CHEAP


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_weight_bounds_are_accepted(value: float) -> None:
    ModelWeights(cost=value, latency=value, quality=value)


@pytest.mark.parametrize("value", [-0.01, 1.01])
@pytest.mark.parametrize("name", ["cost", "latency", "quality"])
def test_weights_outside_the_bounds_are_refused(name: str, value: float) -> None:
    with pytest.raises(ValueError, match=f"{name} weight"):
        ModelWeights(**{name: value})


def test_a_zero_weight_is_the_same_as_none() -> None:
    assert not ModelWeights(cost=0.0).biased
    assert ModelWeights(cost=0.0, latency=0.01).biased
    assert names(rank_models(CANDIDATES, ModelWeights(cost=0.0, quality=1.0))) == names(
        rank_models(CANDIDATES, ModelWeights(quality=1.0))
    )


def test_weights_come_from_the_debate_settings() -> None:
    settings = DebateSettings(cost_weight=0.7, latency_weight=0.3)
    assert ModelWeights.of(settings) == ModelWeights(cost=0.7, latency=0.3, quality=None)
    assert not ModelWeights.of(DebateSettings()).biased


def test_parse_candidates_reads_json_with_attributes() -> None:
    parsed = parse_candidates(
        '[{"name": "big", "cost": 10, "latency": 4, "quality": 0.95}, {"name": "cheap", "cost": 0.2}]'
    )
    assert parsed == [BIG, CandidateModel(name="cheap", cost=0.2)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no candidate"),
        ("[]", "no candidate"),
        ("a,,b", "empty model name"),
        ("a,b,a", "listed twice"),
        ('[{"name": "a", "quality": 2}]', "unreadable"),
        ('[{"name": "a", "speed": 1}]', "unreadable"),
        ("[not json", "unreadable"),
    ],
)
def test_parse_candidates_refuses_bad_lists(text: str, message: str) -> None:
    with pytest.raises(CandidateSpecError, match=message):
        parse_candidates(text)
