"""The record an evidence item carries holds the reading without Lin et al.'s rating wherever that rating
gave the score, so that a policy which publishes it as not live (icarus@1.0) can score without it."""

from __future__ import annotations

from decimal import Decimal

from icarus.ledger import ReputationMethod, RiskRating, SourceClass, SourceTier
from icarus.reputation import estimate
from icarus.reputation.evidence_record import evidence_record
from icarus.reputation.merge import merge_entries
from tests.reputation.test_precedence import part


def test_a_domain_only_lin_rates_falls_back_to_the_heuristic_estimate() -> None:
    record = evidence_record(part("only-lin.example", "0.72", "lin2023"))
    assert record.score == Decimal("0.72")
    assert record.without_lin == estimate("only-lin.example")
    assert record.without_lin is not None and record.without_lin.method is ReputationMethod.HEURISTIC


def test_where_lin_gave_the_score_the_next_source_gives_the_fallback() -> None:
    merged = merge_entries(
        [
            part("uni.example", "0.7204", "lin2023"),
            part(
                "uni.example",
                "0.60",
                "universities",
                tier=SourceTier.SCHOLARLY,
                source_class=SourceClass.SCHOLARLY,
            ),
        ]
    )
    record = evidence_record(merged)
    assert record.score == Decimal("0.7204")
    assert record.without_lin is not None
    assert record.without_lin.score == Decimal("0.60") and record.without_lin.produced_by == "universities@v1"


def test_where_another_source_gave_the_score_there_is_nothing_to_fall_back_to() -> None:
    merged = merge_entries(
        [
            part("rated.example", "0.91", "lin2023"),
            part("rated.example", "0.85", "perennial", risk=RiskRating.GENERALLY_RELIABLE),
        ]
    )
    assert merged.field_sources["score"] == "perennial@v1"
    assert evidence_record(merged) is merged.record and merged.record.without_lin is None


def test_a_risk_flag_below_lin_keeps_its_ceiling_in_the_fallback() -> None:
    merged = merge_entries(
        [
            part("flagged.example", "0.20", "lin2023"),
            part("flagged.example", "0.30", "misinfo-list", risk=RiskRating.GENERALLY_UNRELIABLE),
        ]
    )
    assert merged.field_sources["score"] == "lin2023@v1"  # the lower of the baseline and the flag
    fallback = evidence_record(merged).without_lin
    assert fallback is not None and fallback.score == Decimal("0.30")
    assert fallback.risk_rating is RiskRating.GENERALLY_UNRELIABLE


def test_a_check_builds_its_evidence_items_with_the_fallback() -> None:
    from datetime import UTC, datetime

    from icarus.pipeline.evidence import RetrievedDocument, build_evidence_item
    from icarus.reputation.registry import layered_registry

    registry = layered_registry([{"only-lin.example": part("only-lin.example", "0.72", "lin2023")}])
    document = RetrievedDocument(
        url="https://only-lin.example/story",
        title="Story",
        text="Exports rose 4% in May, the ministry said.",
        publisher="Only Lin",
        published_at=None,
    )
    item = build_evidence_item(document, "Exports rose 4%", registry, "sha256:" + "0" * 64, datetime.now(UTC))
    assert item.reputation.score == Decimal("0.72")
    assert item.reputation.without_lin == estimate("only-lin.example")
