"""The learned check-worthiness ranker: its features, its shift to the default bar, and the cases from
real debates that the cue points got wrong."""

from __future__ import annotations

import json
import math
from importlib import resources

import pytest

from icarus.claims.ranking import DEFAULT_BAR, MODEL_FILE, CheckworthyModel, features, load_model


def test_the_claim_cues_stay_features_of_the_ranker() -> None:
    fired = features("Unemployment fell to 3.5 percent in 2019, according to the census.")
    for cue in ("cue:number", "cue:percent", "cue:date", "cue:comparison", "cue:attribution"):
        assert cue in fired


def test_speech_cues_fire_on_normative_promise_framing_and_past_wording() -> None:
    assert "speech:normative" in features("We need to secure the border.")
    assert "speech:promise" in features("We're going to cut taxes for everyone.")
    assert "speech:framing" in features("Let me ask you about trade, Senator, you have two minutes.")
    assert "speech:past" in features("He voted for the war in 2002.")
    assert "speech:normative" not in features("Exports rose by a fifth.")


def test_features_fold_digits_name_each_feature_once_and_bin_the_length() -> None:
    fired = features("It cost 12 dollars, then 14 dollars.")
    assert fired.count("w:<num>") == 1
    assert "w:<num> dollars" in fired
    assert len(fired) == len(set(fired))
    assert "len:5-9" in fired
    assert "len:<5" in features("Totally wrong.")
    assert "len:40+" in features(" ".join(["word"] * 40))


def test_a_sentence_at_the_bar_scores_exactly_the_default_bar() -> None:
    model = CheckworthyModel(version="t", bias=-2.0, bar=-2.0, weights={})
    assert model.score("anything at all") == pytest.approx(DEFAULT_BAR)
    above = CheckworthyModel(version="t", bias=-1.9, bar=-2.0, weights={})
    assert above.score("anything") > DEFAULT_BAR
    below = CheckworthyModel(version="t", bias=-2.1, bar=-2.0, weights={})
    assert below.score("anything") < DEFAULT_BAR


def test_the_score_is_monotone_in_the_log_odds_and_stays_within_zero_and_one() -> None:
    model = CheckworthyModel(version="t", bias=0.0, bar=0.0, weights={"w:huge": 1e6, "w:tiny": -1e6})
    assert model.score("huge") == pytest.approx(1.0)
    assert model.score("tiny") == pytest.approx(0.0)
    assert 0.0 <= model.score("tiny") < model.score("neutral") < model.score("huge") <= 1.0


def test_contributions_name_the_strongest_features_first() -> None:
    model = CheckworthyModel(
        version="t", bias=0.0, bar=0.0, weights={"cue:number": 0.9, "w:we": -0.1, "w:x": 0.3}
    )
    assert [name for name, _ in model.contributions("We lost 5 seats", top=2)] == ["cue:number", "w:we"]


def test_the_shipped_model_matches_its_training_record() -> None:
    raw = json.loads(resources.files("icarus.claims").joinpath(MODEL_FILE).read_text(encoding="utf-8"))
    model = load_model()
    assert model.version == raw["version"] == "checkworthy@1"
    assert math.isfinite(model.bar)
    assert raw["script"] == "train-checkworthy@1"
    assert len(model.weights) > 1000


# Sentences from real transcripts (issue 33) that a fact-checker picked, and lines nobody checks.
PICKED = [
    "I'm self-funding my campaign.",
    "There's never been a time when the climate has not changed.",
    "Unemployment fell to 3.5 percent last year, the lowest in fifty years.",
]
NOT_PICKED = [
    "We have to knock out ISIS.",
    "We need to move to a merit-based system of immigration.",
    "Neither of the parties in Washington wants to do this.",
    "I'm Maria Lopez, and I'll be moderating tonight's debate.",
    "Thank you, Senator.",
    "Let me ask you about immigration.",
]


@pytest.mark.parametrize("sentence", PICKED)
def test_claims_fact_checkers_picked_reach_the_bar(sentence: str) -> None:
    assert load_model().score(sentence) >= DEFAULT_BAR


@pytest.mark.parametrize("sentence", NOT_PICKED)
def test_normative_lines_and_moderator_framing_stay_under_the_bar(sentence: str) -> None:
    assert load_model().score(sentence) < DEFAULT_BAR


def test_a_figure_with_a_past_event_outranks_a_call_to_action() -> None:
    model = load_model()
    assert model.score("The deficit doubled to $1.4 trillion in 2009.") > model.score("We must act now.")
