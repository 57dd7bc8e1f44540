"""How an ordinary Icarus ledger becomes ledger-model links, and how stated link fields override it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from icarus.ledger import (
    Access,
    ClaimType,
    Directness,
    Disposition,
    Excerpt,
    LedgerClaim,
    LedgerLink,
    ScopeAnswer,
    SourceClass,
    Span,
    ValidityFlags,
)
from icarus.scoring.ledger.mapping import claim_inputs, mapping_hash, mapping_table
from tests.builders import claim, item, judgment, ledger


def _links(items: list[Any], claims: list[Any] | None = None) -> dict[str, Any]:
    (first, *_) = claim_inputs(ledger(items, claims))
    return {link.evidence_id: link for link in first.links}


@pytest.mark.parametrize(
    ("confidence", "relevance"),
    [
        ("0.95", "DIRECT"),
        ("0.90", "DIRECT"),
        ("0.89", "STRONG"),
        ("0.75", "STRONG"),
        ("0.74", "MODERATE"),
        ("0.50", "MODERATE"),
        ("0.49", "WEAK"),
        ("0.01", "WEAK"),
        ("0", "CONTEXT_ONLY"),
    ],
)
def test_relevance_from_stance_confidence(confidence: str, relevance: str) -> None:
    assert _links([item("e1", confidence=confidence)])["e1"].relevance == relevance


def test_stance_strength_takes_precedence_over_confidence() -> None:
    assert (
        _links([item("e1", confidence="0.95", stance_strength=Decimal("0.6"))])["e1"].relevance == "MODERATE"
    )


@pytest.mark.parametrize(
    ("directness", "relevance"),
    [
        (Directness.PRIMARY_DOCUMENT, "DIRECT"),
        (Directness.ORIGINAL_REPORTING, "DIRECT"),
        (Directness.SECONDARY_NAMED, "STRONG"),
        (Directness.RELEASE, "MODERATE"),
        (Directness.OUT_OF_SCOPE, "CONTEXT_ONLY"),
    ],
)
def test_directness_caps_relevance(directness: Directness, relevance: str) -> None:
    assert _links([item("e1", confidence="0.99", directness=directness)])["e1"].relevance == relevance


def test_limited_access_and_scope_mismatch_cap_relevance() -> None:
    paywalled = item("e1", confidence="0.99", flags=ValidityFlags(access=Access.PAYWALL))
    off_scope = item("e2", judgments=[judgment("c1", confidence="0.99", scope=ScopeAnswer(matches=False))])
    links = _links([paywalled, off_scope])
    assert links["e1"].relevance == "MODERATE"
    assert links["e2"].relevance == "CONTEXT_ONLY"


@pytest.mark.parametrize(
    ("source_class", "directness", "observation", "source_kind"),
    [
        (SourceClass.PRIMARY_OFFICIAL, Directness.PRIMARY_DOCUMENT, "DIRECT_TEXT", "PRIMARY_TEXT"),
        (SourceClass.SCHOLARLY, Directness.PRIMARY_DOCUMENT, "DATASET_RESULT", "DATASET"),
        (SourceClass.NEWS, Directness.ORIGINAL_REPORTING, "EYEWITNESS", "NEWS_REPORT"),
        (SourceClass.NEWS, Directness.SECONDARY_NAMED, "HEARSAY", "NEWS_REPORT"),
        (SourceClass.FACT_CHECKER, Directness.ORIGINAL_REPORTING, "EXPERT_ANALYSIS", "COMMENTARY"),
        (SourceClass.PLATFORM, Directness.ORIGINAL_REPORTING, "HEARSAY", "SOCIAL_POST"),
    ],
)
def test_observation_and_source_kind_from_source_class(
    source_class: SourceClass, directness: Directness, observation: str, source_kind: str
) -> None:
    link = _links([item("e1", source_class=source_class, directness=directness)])["e1"]
    assert (link.observation, link.source_kind) == (observation, source_kind)


@pytest.mark.parametrize(("hops", "steps"), [(0, 0), (2, 2), (5, 5), (9, 5)])
def test_interpretive_steps_from_inference_hops(hops: int, steps: int) -> None:
    assert _links([item("e1", hops=hops)])["e1"].interpretive_steps == steps


@pytest.mark.parametrize(
    ("stance", "direction"), [("support", "SUPPORT"), ("refute", "CONTRADICT"), ("neutral", "NEUTRAL")]
)
def test_direction_from_stance(stance: str, direction: str) -> None:
    assert _links([item("e1", stance=stance)])["e1"].direction == direction


def test_authenticity_from_the_excerpt() -> None:
    exact = item("e1")
    no_hash = item("e2", content_sha256=None)
    wrong = item("e3", text="The actual words.", excerpt=Excerpt(span=Span(start=0, end=5), text="Other"))
    none = item("e4", excerpt=None)
    links = _links([exact, no_hash, wrong, none])
    assert [links[e].authenticity for e in ("e1", "e2", "e3", "e4")] == [
        "VERIFIED",
        "UNVERIFIED",
        "DOUBTFUL",
        "UNVERIFIED",
    ]


def test_copies_share_a_provenance_cluster_group_and_singletons_have_none() -> None:
    text = "The council approved the transit budget on Monday after a long public hearing. " * 4
    links = _links([item("e1", text=text), item("e2", text=text), item("e3")])
    assert links["e1"].group is not None and links["e1"].group == links["e2"].group
    assert links["e3"].group is None
    assert links["e3"].origin == "https://e3.example/story/e3"


def test_self_citation_and_the_subjects_own_page_are_self_provenance() -> None:
    cited_self = item("e1", flags=ValidityFlags(self_citation=True))
    own_page = item("e2", url="https://x.com/example/status/1790000000000000001")
    links = _links([cited_self, own_page, item("e3")])
    assert [links[e].provenance for e in ("e1", "e2", "e3")] == ["SELF", "SELF", "INDEPENDENT"]


@pytest.mark.parametrize(
    ("claim_type", "ledger_type"),
    [(ClaimType.EVENT, "HISTORICAL"), (ClaimType.STATISTIC, "QUANTITATIVE"), (ClaimType.QUOTE, "TEXTUAL")],
)
def test_claim_type_mapping(claim_type: ClaimType, ledger_type: str) -> None:
    (found,) = claim_inputs(ledger([item("e1")], [claim(claim_type=claim_type)]))
    assert found.claim_type == ledger_type and found.not_evaluable is None


@pytest.mark.parametrize(
    ("disposition", "reason"),
    [
        (Disposition.OPINION, "NORMATIVE_OR_VALUE"),
        (Disposition.PREDICTION, "UNRESOLVED_FORECAST"),
        (Disposition.SATIRE, "RHETORICAL"),
        (Disposition.IMPLIED_NEEDS_INTENT, "UNTESTABLE_CURRENT_METHODS"),
    ],
)
def test_a_non_checkable_disposition_is_not_evaluable(disposition: Disposition, reason: str) -> None:
    (found,) = claim_inputs(ledger([item("e1")], [claim(disposition=disposition)]))
    assert found.not_evaluable == reason


def test_stated_fields_override_derived_ones_field_by_field() -> None:
    stated = LedgerLink(observation="MEASUREMENT", independence_group="lab-1")
    link = _links([item("e1", confidence="0.95", judgments=[judgment("c1", link=stated)])])["e1"]
    assert link.observation == "MEASUREMENT" and link.group == "lab-1"
    assert link.relevance == "DIRECT"  # not stated: still derived
    stated_claim = LedgerClaim(claim_type="COMPARATIVE", recorded_by="ana")
    (found,) = claim_inputs(ledger([item("e1")], [claim(ledger_claim=stated_claim)]))
    assert found.claim_type == "COMPARATIVE" and found.recorded_by == "ana"


def test_claims_not_assessed_are_left_out() -> None:
    from icarus.ledger import NotAssessedReason

    assert claim_inputs(ledger([item("e1")], [claim(not_assessed=NotAssessedReason.BUDGET)])) == []


def test_the_mapping_is_versioned_and_hashed() -> None:
    assert mapping_table()["version"] == "icarus-to-ledger@1"
    assert mapping_hash().startswith("sha256:")
