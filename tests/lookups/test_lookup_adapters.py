"""Look-up adapters: the offline default says not run, only wired look-ups run, failures are recorded."""

from __future__ import annotations

from dataclasses import dataclass

from icarus.ledger import EvidenceItem, LookupName, LookupResult, LookupStatus, ScholarlyUpdate, UpdateType
from icarus.lookups import LookupRegistry, enrich, offline_registry
from icarus.scoring.icarus.config import load_policy
from tests.builders import item, ledger
from tests.scoring.scoring_support import claim_of, score, weight


@dataclass
class RetractionWatchFake:
    name: LookupName = LookupName.SCHOLARLY_UPDATES
    provider: str = "retraction-watch-fake"

    def lookup(self, item: EvidenceItem) -> LookupResult:
        updates = [ScholarlyUpdate(update_type=UpdateType.RETRACTION, source="retraction_watch")]
        return LookupResult(
            name=self.name,
            status=LookupStatus.OK,
            provider=self.provider,
            updates=updates if item.evidence_id == "a" else [],
        )


@dataclass
class Broken:
    name: LookupName = LookupName.RDAP
    provider: str = "broken"

    def lookup(self, item: EvidenceItem) -> LookupResult:
        raise TimeoutError("rdap.example did not answer")


def test_offline_default_records_not_run_for_every_wired_lookup() -> None:
    enriched = enrich(ledger([item("a")]), offline_registry(), load_policy("icarus@1.1"))
    results = enriched.evidence[0].lookups
    assert {r.name for r in results} == set(LookupName)
    assert all(r.status is LookupStatus.NOT_RUN for r in results)


def test_icarus_1_0_wires_no_lookup() -> None:
    enriched = enrich(ledger([item("a")]), offline_registry(), load_policy("icarus@1.0"))
    assert enriched.evidence[0].lookups == []


def test_not_run_changes_nothing() -> None:
    plain = ledger([item("a"), item("b")])
    enriched = enrich(plain, offline_registry(), load_policy("icarus@1.1"))
    before, after = claim_of(score(plain)), claim_of(score(enriched))
    assert (after["label"], after["band"], after["reasons"]) == (
        before["label"],
        before["band"],
        before["reasons"],
    )
    assert "rdap look-up not run" in after["caveats"]
    assert "rdap look-up not run" not in before["caveats"]


def test_a_wired_retraction_lookup_reaches_the_score() -> None:
    registry = LookupRegistry({LookupName.SCHOLARLY_UPDATES: RetractionWatchFake()})
    enriched = enrich(ledger([item("a"), item("b")]), registry, load_policy("icarus@1.1"))
    result = score(enriched)
    assert weight(result, "a") == 0
    assert claim_of(result)["label"] == "unverifiable"


def test_adapter_failure_is_an_error_result_not_a_crash() -> None:
    enriched = enrich(
        ledger([item("a")]), LookupRegistry({LookupName.RDAP: Broken()}), load_policy("icarus@1.1")
    )
    rdap = enriched.evidence[0].lookup(LookupName.RDAP)
    assert rdap is not None and rdap.status is LookupStatus.ERROR
    assert "did not answer" in rdap.detail


def test_recorded_results_are_kept_not_looked_up_again() -> None:
    registry = LookupRegistry({LookupName.SCHOLARLY_UPDATES: RetractionWatchFake()})
    once = enrich(ledger([item("a")]), registry, load_policy("icarus@1.1"))
    twice = enrich(once, offline_registry(), load_policy("icarus@1.1"))
    assert twice.evidence[0].lookups == once.evidence[0].lookups
