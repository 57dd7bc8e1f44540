"""A claim credited to a satirical source is about the satire itself: that source's own piece may weigh (H6)."""

from __future__ import annotations

from typing import Any

from icarus.claims.satire import admit_satire_about_itself
from icarus.ledger import SourceClass
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from tests.builders import claim, item, ledger, subject

POST = "Congress voted to ban Mondays, says satirical site The Onion."
ABOUT = claim("c1", "Congress voted to ban Mondays, says satirical site The Onion", POST)
PLAIN = claim("c1", "Congress voted to ban Mondays", POST)


def onion(evidence_id: str = "onion", domain: str = "theonion.com", publisher: str = "The Onion") -> object:
    return item(evidence_id, domain=domain, publisher=publisher, source_class=SourceClass.SATIRE)


def test_the_named_satirical_source_is_about_the_claim() -> None:
    [marked] = admit_satire_about_itself([onion()], [ABOUT])  # type: ignore[list-item]
    assert marked.judgments[0].claim_is_about_source


def test_other_satire_and_other_claims_stay_at_weight_zero() -> None:
    other = onion("bee", "babylonbee.com", "The Babylon Bee")
    [kept] = admit_satire_about_itself([other], [ABOUT])  # type: ignore[list-item]
    assert not kept.judgments[0].claim_is_about_source
    [plain] = admit_satire_about_itself([onion()], [PLAIN])  # type: ignore[list-item]
    assert not plain.judgments[0].claim_is_about_source


def test_h6_lets_the_satire_piece_weigh_only_for_the_claim_about_it() -> None:
    policy = load_policy("icarus@1.1")
    items = admit_satire_about_itself([onion()], [ABOUT])  # type: ignore[list-item]
    about = score_ledger(ledger(items, [ABOUT], subject=subject(POST)), policy)
    excluded = score_ledger(ledger([onion()], [ABOUT], subject=subject(POST)), policy)  # type: ignore[list-item]

    def onion_item(result: dict[str, Any]) -> dict[str, Any]:
        [scored] = result["trace"]["claims"][0]["passes"][-1]["items"]
        return dict(scored)

    assert onion_item(excluded)["excluded_by"] == [{"rule": "H6", "reason": "satire"}]
    assert onion_item(excluded)["weight"] == "0.0"
    assert onion_item(about)["excluded_by"] == [] and onion_item(about)["weight"] != "0.0"
