"""Training contradictions: a "not" added or removed, or a direction reversed; only from supporting pairs."""

from __future__ import annotations

from icarus.judges.stancesets import LabelledPair
from icarus.judges.training.augment import AUGMENT_EVERY, contradict, contradictions


def test_negation_is_added_after_the_first_auxiliary_or_removed() -> None:
    assert contradict("Sea level has risen 20 cm.", use_reversal=False) == "Sea level has not risen 20 cm."
    assert contradict("The drug is not effective.", use_reversal=False) == "The drug is effective."
    assert contradict("Emissions didn't grow.", use_reversal=False) == "Emissions did grow."
    assert contradict("Traffic fell 12%.", use_reversal=False) is None  # no auxiliary to negate


def test_reversal_swaps_the_first_direction_word_keeping_case() -> None:
    assert contradict("Traffic fell 12%.", use_reversal=True) == "Traffic rose 12%."
    assert contradict("Higher doses helped.", use_reversal=True) == "Lower doses helped."


def test_only_a_hashed_share_of_supporting_pairs_is_used_and_labelled_refute() -> None:
    pairs = [
        LabelledPair("scifact", str(n), f"Claim {n}", f"Dose {n} has reduced risk.", label)
        for n in range(400)
        for label in ("support", "neutral")
    ]
    made = contradictions(pairs)
    assert made == contradictions(pairs)  # deterministic
    assert all(
        p.label == "refute" and p.dataset == "augmented" and p.extra["from"] == "scifact" for p in made
    )
    supporting = sum(p.label == "support" for p in pairs)
    assert abs(len(made) - supporting / AUGMENT_EVERY) < supporting * 0.1
    claims = {p.claim for p in pairs if p.label == "support"}
    assert {p.claim for p in made} <= claims
