"""The shipped manual classifications: well-formed, at the policy baseline for their class, no duplicates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from icarus.ledger import ReputationMethod, ReputationRecord, SourceClass
from icarus.reputation.manual import CLASS_BASELINE, CLASS_TIER, default_registry, load_manual, manual_text
from icarus.reputation.registry import dump_entries, registry_key
from icarus.scoring.icarus.config import load_policy

RAW = json.loads(manual_text())


def test_every_entry_is_well_formed() -> None:
    assert RAW, "the manual file is empty"
    for item in RAW:
        assert set(item) == {"record", "source_class"}
        record = ReputationRecord.model_validate(item["record"])
        assert record.method is ReputationMethod.MANUAL
        assert record.produced_by.startswith("reviewer:") and len(record.produced_by) > len("reviewer:")
        assert record.version and record.recorded_at is not None
        assert record.risk_rating is None and record.bias_label is None


def test_scores_and_tiers_are_the_policy_baseline_for_the_class() -> None:
    baseline = load_policy("icarus@1.1").reputation
    for entry in load_manual():
        assert entry.source_class in CLASS_BASELINE, entry
        assert entry.record.score == getattr(baseline, CLASS_BASELINE[entry.source_class]), (
            entry.record.domain
        )
        assert entry.record.tier is CLASS_TIER[entry.source_class], entry.record.domain


def test_domains_are_registry_keys_and_unique() -> None:
    domains = [e.record.domain for e in load_manual()]
    assert len(domains) == len(set(domains))
    for domain in domains:
        assert registry_key(domain) == domain, domain


@pytest.mark.parametrize(
    ("domain", "source_class"),
    [
        ("bls.gov", SourceClass.PRIMARY_OFFICIAL),
        ("ons.gov.uk", SourceClass.PRIMARY_OFFICIAL),
        ("who.int", SourceClass.PRIMARY_OFFICIAL),
        ("apnews.com", SourceClass.WIRE),
        ("news.google.com", SourceClass.AGGREGATOR),
        ("theonion.com", SourceClass.SATIRE),
        ("x.com", SourceClass.PLATFORM),
        ("prnewswire.com", SourceClass.RELEASE_SERVICE),
        ("arxiv.org", SourceClass.PREPRINT_SERVER),
    ],
)
def test_each_named_class_is_covered(domain: str, source_class: SourceClass) -> None:
    assert default_registry().lookup(f"https://www.{domain}/a").source_class is source_class


def test_every_class_named_by_the_issue_has_entries() -> None:
    assert {e.source_class for e in load_manual()} == set(CLASS_BASELINE)


def test_a_reviewed_record_in_an_extra_file_replaces_the_shipped_review(tmp_path: Path) -> None:
    entry = next(e for e in load_manual() if e.record.domain == "reuters.com")
    changed = entry.record.model_copy(update={"version": "2"})
    extra = tmp_path / "reg.json"
    extra.write_text(dump_entries([type(entry)(changed, entry.source_class)]))
    registry = default_registry(extra)
    reviewed = [
        p for p in registry.lookup("reuters.com").sources if p.record.method is ReputationMethod.MANUAL
    ]
    assert [p.record.version for p in reviewed] == ["2"]  # the file's review replaced the shipped one
    assert registry.lookup("reuters.com").field_sources["score"] == "manual reviewer:icarus-maintainer@2"
    assert registry.lookup("apnews.com").record.method is ReputationMethod.MANUAL
    assert registry.lookup("unknown-site.example").record.estimated
