"""Small builders for ledger evidence items used across the provenance tests."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from icarus.ledger.evidence import EvidenceItem, SourceClass
from icarus.ledger.reputation import ReputationMethod, ReputationRecord, SourceTier
from icarus.scoring.icarus.config import ProvenanceSettings, load_policy
from tests.builders import pseudo_words

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def words(seed: int, count: int) -> list[str]:
    """``count`` pseudo-words from a generator seeded by ``seed``: different seeds barely overlap."""
    return pseudo_words(random.Random(seed), count)


def story(seed: int, count: int = 120) -> str:
    """A story body: sentences of pseudo-words, ten words a line."""
    body = words(seed, count)
    return "\n".join(" ".join(body[i : i + 10]) + "." for i in range(0, count, 10))


def item(
    evidence_id: str,
    *,
    publisher: str | None = None,
    domain: str | None = None,
    url: str | None = None,
    text: str = "",
    minutes: float | None = 0,
    score: str = "0.80",
    source_class: SourceClass = SourceClass.NEWS,
    **extra: Any,
) -> EvidenceItem:
    """An evidence item with sensible defaults: its own domain, URL and publisher derived from its id."""
    domain = domain or f"{evidence_id.replace('_', '-')}.example"
    publisher = publisher or f"Outlet {evidence_id}"
    return EvidenceItem(
        evidence_id=evidence_id,
        url=url or f"https://{domain}/news/{evidence_id}",
        publisher=publisher,
        domain=domain,
        text=text,
        published_at=None if minutes is None else T0 + timedelta(minutes=minutes),
        reputation=ReputationRecord(
            domain=domain,
            score=Decimal(score),
            tier=SourceTier.NATIONAL_NEWS,
            method=ReputationMethod.MANUAL,
            produced_by="tests@1",
            version="1",
        ),
        source_class=source_class,
        **extra,
    )


@pytest.fixture
def settings() -> ProvenanceSettings:
    return load_policy("icarus@1.1").provenance
