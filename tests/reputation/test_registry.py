"""The minimal reputation registry: records on file win, everything else is a labelled estimate (H4)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from icarus.ledger import ReputationMethod, SourceClass, SourceTier
from icarus.reputation import Registry, domain_of, estimate, load_registry
from icarus.reputation.registry import RegistryFileError


def test_H4_unknown_domain_gets_a_heuristic_estimate_within_bounds() -> None:
    record = estimate("some-new-site.com")
    assert record.method is ReputationMethod.HEURISTIC and record.estimated
    assert Decimal("0.20") <= record.score <= Decimal("0.90")


def test_accountable_suffix_scores_higher_and_noisy_names_lower() -> None:
    assert estimate("stats.gov").score > estimate("plainsite.com").score > estimate("news-24-7-now.com").score
    assert estimate("stats.gov").tier is SourceTier.PRIMARY_OFFICIAL


def test_registry_prefers_the_record_on_file_and_matches_subdomains(tmp_path: Path) -> None:
    path = tmp_path / "records.json"
    path.write_text(
        json.dumps(
            [
                {
                    "record": {
                        "domain": "apnews.com",
                        "score": "0.95",
                        "tier": "wire",
                        "method": "manual",
                        "produced_by": "review",
                        "version": "2",
                    },
                    "source_class": "wire",
                }
            ]
        )
    )
    registry = load_registry(path)
    entry = registry.lookup("https://www.apnews.com/article/x")
    assert entry.record.score == Decimal("0.95") and entry.source_class is SourceClass.WIRE
    assert registry.lookup("unknown.example").record.estimated
    assert domain_of("https://news.bbc.co.uk/a") == "bbc.co.uk"


def test_a_broken_registry_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[{"record": {"domain": "x.com"}}]')
    with pytest.raises(RegistryFileError, match=r"bad\.json"):
        load_registry(path)


def test_empty_registry_estimates_everything() -> None:
    assert Registry().lookup("example.org").record.method is ReputationMethod.HEURISTIC
