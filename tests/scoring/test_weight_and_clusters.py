"""Evidence weight R x D x V x C x P, the neutral threshold, weight-once clusters, MIXED and diversity."""

from __future__ import annotations

from decimal import Decimal as D

from icarus.ledger import Directness, SourceClass, SourceTier
from tests.builders import item, ledger, unique_text
from tests.scoring.scoring_support import claim_of, final_pass, item_trace, score, weight

STORY = unique_text("one-story", 90)


def test_evidence_weight_is_the_product_of_its_five_factors() -> None:
    result = score(
        ledger([item("a", score="0.95", directness=Directness.SECONDARY_NAMED, confidence="0.80")])
    )
    trace = item_trace(result, "a")
    assert (trace["R"], trace["D"], trace["V"], trace["C"], trace["P"]) == (
        "0.95",
        "0.7",
        "1.0",
        "0.8",
        "1.0",
    )
    assert weight(result, "a") == D("0.95") * D("0.70") * D("0.80")


def test_stance_confidence_below_050_is_neutral_and_050_is_not() -> None:
    low = score(ledger([item("a", confidence="0.49")]))
    edge = score(ledger([item("a", confidence="0.50")]))
    assert item_trace(low, "a")["stance"] == "neutral"
    assert item_trace(edge, "a")["stance"] == "support"
    assert final_pass(low)["totals"]["S"] == "0.0"


def test_a_cluster_weighs_its_strongest_member_once_never_the_sum() -> None:
    copies = [item(f"c{i}", text=STORY, score=s) for i, s in enumerate(["0.60", "0.85", "0.70"])]
    result = score(ledger(copies))
    clusters = final_pass(result)["clusters"]
    assert len(clusters) == 1
    assert D(clusters[0]["weight"]) == D("0.85") * D("0.90") * D("0.90")
    assert clusters[0]["strongest"] == "c1"
    assert D(final_pass(result)["totals"]["S"]) == D(clusters[0]["weight"])


def test_counted_members_that_disagree_make_a_mixed_cluster_that_counts_for_neither_side() -> None:
    evidence = [item("s", text=STORY), item("r", text=STORY, stance="refute"), item("x"), item("y")]
    result = score(ledger(evidence))
    mixed = next(c for c in final_pass(result)["clusters"] if "s" in c["members"])
    assert mixed["stance"] == "mixed" and not mixed["counted"]
    totals = final_pass(result)["totals"]
    assert totals["icc_support"] == 2 and totals["icc_refute"] == 0
    assert claim_of(result)["label"] == "supported"


def test_a_disagreeing_member_below_the_threshold_does_not_make_it_mixed() -> None:
    evidence = [item("s", text=STORY), item("r", text=STORY, stance="refute", score="0.40")]
    cluster = final_pass(score(ledger(evidence)))["clusters"][0]
    assert cluster["stance"] == "support" and cluster["counted"]


def test_diversity_counts_distinct_tiers_of_counted_clusters() -> None:
    evidence = [
        item("w", score="0.95", tier=SourceTier.WIRE, source_class=SourceClass.WIRE),
        item("p", score="1.0", tier=SourceTier.PRIMARY_OFFICIAL, source_class=SourceClass.PRIMARY_OFFICIAL),
        item("n"),
        item("weak", score="0.30", tier=SourceTier.SCHOLARLY),
    ]
    totals = final_pass(score(ledger(evidence)))["totals"]
    assert totals["diversity"] == 3
    assert totals["tiers"] == ["national_news", "primary_official", "wire"]


def test_inference_hops_above_three_block_a_decided_label() -> None:
    assert claim_of(score(ledger([item("a", hops=3), item("b")])))["label"] == "supported"
    assert claim_of(score(ledger([item("a", hops=4), item("b")])))["label"] == "unverifiable"


# --- spec 6.2 (ruling of 2026-12-01): a neutral member lends no weight and never sets weight or stance -------


def test_a_neutral_member_never_sets_the_clusters_weight_or_stance() -> None:
    # A heavy neutral copy (a primary source judged neutral) beside a light supporting copy of the same story:
    # the cluster weighs the supporting copy and takes its side, not the neutral member's larger R x D x C.
    evidence = [
        item("neutral", text=STORY, score="1.0", stance="neutral"),
        item("light", text=STORY, score="0.40"),
    ]
    result = score(ledger(evidence))
    [cluster] = final_pass(result)["clusters"]
    assert sorted(cluster["members"]) == ["light", "neutral"]
    assert weight(result, "neutral") > weight(result, "light")
    assert cluster["strongest"] == "light" and cluster["stance"] == "support"
    assert D(cluster["weight"]) == weight(result, "light") and not cluster["counted"]
    assert D(final_pass(result)["totals"]["S"]) == weight(result, "light")


def test_a_judgment_made_neutral_below_confidence_050_lends_no_weight_either() -> None:
    evidence = [
        item("unsure", text=STORY, score="1.0", stance="refute", confidence="0.49"),
        item("sure", text=STORY, score="0.60"),
    ]
    result = score(ledger(evidence))
    [cluster] = final_pass(result)["clusters"]
    assert item_trace(result, "unsure")["stance"] == "neutral"
    assert cluster["strongest"] == "sure" and cluster["stance"] == "support"
    assert D(final_pass(result)["totals"]["Rf"]) == 0


def test_a_cluster_of_neutral_members_only_weighs_nothing_and_is_neutral() -> None:
    evidence = [
        item("n1", text=STORY, stance="neutral"),
        item("n2", text=STORY, stance="neutral", score="1.0"),
    ]
    result = score(ledger(evidence))
    [cluster] = final_pass(result)["clusters"]
    assert (cluster["stance"], D(cluster["weight"]), cluster["counted"]) == ("neutral", D(0), False)
    totals = final_pass(result)["totals"]
    assert (D(totals["S"]), D(totals["Rf"])) == (D(0), D(0))
