"""Training contradictions: a "not" added or removed, or a direction reversed; only from supporting pairs."""

from __future__ import annotations

from icarus.evaluation.stancesets import LabelledPair
from icarus_training.augment import (
    AUGMENT_EVERY,
    changed_quantity,
    contradict,
    contradictions,
    direction_paraphrases,
    quantity_edits,
)


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


def test_a_quantity_is_moved_in_the_same_notation() -> None:
    assert changed_quantity("12", 0.5) == "18"
    assert changed_quantity("46,800", 0.25) == "58,500"
    assert changed_quantity("0.5", 1.0) == "1.0"
    assert changed_quantity("1", 0.25) == "2"  # at least one unit of the last place


def _support(claim: str, passage: str) -> LabelledPair:
    return LabelledPair("scifact", claim, claim, passage, "support")


def test_quantity_edits_change_the_shared_number_everywhere_and_refute() -> None:
    pair = _support("Traffic fell 12% in 2026.", "Traffic was down 12% in 2026; 12% is the largest fall.")
    [made] = quantity_edits([pair])
    assert made.label == "refute" and made.dataset == "augmented" and made.extra["from"] == "scifact"
    new = made.passage.split("% in")[0].split()[-1]
    assert new != "12" and made.passage.count(f"{new}%") == 2
    assert "2026" in made.passage  # the year is left alone
    assert made.passage.replace(new, "12") == pair.passage


def test_quantity_edits_leave_names_years_and_other_labels_alone() -> None:
    assert quantity_edits([_support("COVID-19 spread in 2020.", "COVID-19 spread fast in 2020.")]) == []
    assert quantity_edits([_support("P38 rose 4 times.", "P38 rose; 5 labs saw it.")]) == []
    neutral = LabelledPair("scifact", "c", "Traffic fell 12%.", "Traffic fell 12%.", "neutral")
    assert quantity_edits([neutral]) == []


def test_direction_paraphrases_keep_or_turn_the_direction() -> None:
    pairs = [_support("Container traffic fell 12% in October.", "passage")]
    made = direction_paraphrases(pairs)
    assert made == direction_paraphrases(pairs)  # deterministic
    by_label = {p.label: p.passage.lower() for p in made}
    assert set(by_label) == {"support", "refute"}
    assert any(w in by_label["support"] for w in ("decreased", "dropped", "declined", "was down"))
    assert any(w in by_label["refute"] for w in ("rose", "increased", "grew", "climbed", "was up"))
    assert "fell" not in by_label["support"] and "fell" not in by_label["refute"]


def test_a_direction_noun_after_an_article_stays_a_noun_with_its_article_agreeing() -> None:
    [support, refute] = direction_paraphrases([_support("Exercise led to a decrease in risk.", "p")])
    assert "led to a decrease" not in support.passage
    assert any(f"led to {n} in risk" in refute.passage for n in ("a rise", "an increase"))
    assert any(f"led to {n} in risk" in support.passage for n in ("a fall", "a drop", "a decline"))


def test_claims_without_a_direction_word_get_no_paraphrase() -> None:
    assert direction_paraphrases([_support("The council approved the budget.", "p")]) == []
