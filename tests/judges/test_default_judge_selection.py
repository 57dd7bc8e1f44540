"""How the default offline judge is chosen on the tune halves (``icarus_training.default_judge``): precision
on every set first, then the most decided claims."""

from __future__ import annotations

from decimal import Decimal

from icarus_training.default_judge import SetScore, choose_default, markdown

TARGET = Decimal("0.90")


def _scores(judge: str, *per_set: tuple[int, int]) -> list[SetScore]:
    return [SetScore(judge, f"set-{n}", 100, decided, right) for n, (decided, right) in enumerate(per_set)]


def test_the_widest_judge_precise_on_every_set_is_chosen() -> None:
    scores = [*_scores("wide", (20, 19), (6, 4)), *_scores("narrow", (8, 8), (3, 3))]
    chosen, table = choose_default(scores, TARGET, 10)
    assert chosen == "narrow"  # "wide" is right on 4 of 6 on the second set
    assert table["wide"]["precise_on_every_set"] is False
    assert (table["narrow"]["decided"], table["narrow"]["right"]) == (11, 11)


def test_precision_exactly_at_the_target_qualifies_and_just_under_does_not() -> None:
    at = _scores("at", (10, 9))
    under = _scores("under", (1000, 899))
    chosen, table = choose_default([*under, *at], TARGET, 10)
    assert chosen == "at"
    assert table["under"]["qualifies"] is False


def test_a_set_where_the_judge_decides_nothing_does_not_count_against_it() -> None:
    chosen, table = choose_default(_scores("quiet", (12, 12), (0, 0)), TARGET, 10)
    assert chosen == "quiet" and table["quiet"]["precise_on_every_set"] is True


def test_too_few_decided_claims_over_all_sets_do_not_qualify() -> None:
    assert choose_default(_scores("few", (5, 5), (4, 4)), TARGET, 10)[0] is None
    assert choose_default(_scores("enough", (6, 6), (4, 4)), TARGET, 10)[0] == "enough"


def test_ties_go_to_the_more_precise_then_the_earlier_candidate() -> None:
    first, second = _scores("first", (20, 19)), _scores("second", (20, 20))
    assert choose_default([*first, *second], TARGET, 10)[0] == "second"
    same_a, same_b = _scores("a", (20, 20)), _scores("b", (20, 20))
    assert choose_default([*same_a, *same_b], TARGET, 10)[0] == "a"


def test_the_record_reads_as_a_table_naming_the_choice() -> None:
    scores = [*_scores("wide", (20, 19), (6, 4)), *_scores("narrow", (8, 8), (3, 3))]
    chosen, totals = choose_default(scores, TARGET, 10)
    record = {
        "chosen": chosen,
        "selection": {
            "policy": "icarus@1.2",
            "min_precision": "0.90",
            "min_decided": 10,
            "scores": [
                {
                    "judge": s.judge,
                    "dataset": s.dataset,
                    "claims": s.claims,
                    "decided": s.decided,
                    "right": s.right,
                }
                for s in scores
            ],
            "totals": totals,
        },
    }
    text = markdown(record)
    assert "Chosen: **narrow**" in text
    assert "| `wide` | 20 (19) of 100 | 6 (4) of 100 | 26 (23) | no | no |" in text
    assert SetScore("x", "s", 3, 0, 0).precision is None
