"""EvidenceVerify in the model registry: the ledger read as a store, its own stance judgments reused."""

from __future__ import annotations

from icarus.ledger import SourceClass, SourceTier
from icarus.scoring.evidenceverify.model import ledger_as_store
from icarus.scoring.registry import get_model
from tests import builders as b


def test_a_ledger_maps_onto_a_store_and_claim_items() -> None:
    wire = b.item("w", source_class=SourceClass.WIRE, publisher="Reuters", tier=SourceTier.WIRE)
    post = b.item("p", domain="x.com", source_class=SourceClass.PLATFORM)
    unjudged = b.item("u", judgments=[])
    store, (claim,) = ledger_as_store(b.ledger([wire, post, unjudged]))
    assert claim.evidence_ids == ["w", "p"] and claim.status.value == "unverified"
    record = store.get("w")
    assert record is not None and record.wire_service == "Reuters"
    assert record.credibility_tier.value == "tier1_authoritative"
    social = store.get("p")
    assert social is not None and (social.source_type.value, social.credibility_tier.value) == (
        "twitter",
        "tier4_social",
    )


def test_recorded_stances_decide_agreement_and_the_result_names_the_model() -> None:
    model = get_model("evidenceverify@1.0")
    agree = model.score(b.ledger([b.item("a"), b.item("b")]))
    (verdict,) = model.verdicts(agree)
    assert verdict.outcome == "verified" and verdict.shown_as.endswith("under evidenceverify@1.0")
    assert agree["claims"][0]["independent_search"] == "not run"
    conflict = model.score(b.ledger([b.item("a"), b.item("b", stance="refute")]))
    assert model.verdicts(conflict)[0].outcome == "contested"
