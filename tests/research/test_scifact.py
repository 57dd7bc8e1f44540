"""Retrieval on real data: SciFact's 5,183 abstracts, read in place from the shared datasets folder."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from icarus.ledger import FieldName, Span
from icarus.ledger.claims import Claim
from icarus.research.corpus import LocalCorpus, LocalCorpusProvider
from icarus.research.providers import ProviderStatus
from icarus.research.queries import plan_queries

AS_OF = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)

# The shared datasets folder sits next to the repository (DESIGN.md: ../shared/datasets); never copied in.
SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "scifact"
CORPUS = SCIFACT / "corpus.jsonl"
CLAIMS = SCIFACT / "claims_train.jsonl"

pytestmark = pytest.mark.skipif(
    not (CORPUS.is_file() and CLAIMS.is_file()),
    reason=f"SciFact not found at {SCIFACT} (corpus.jsonl, claims_train.jsonl); retrieval check skipped",
)


def test_scifact_cited_abstracts_rank_in_the_top_ten(tmp_path: Path) -> None:
    started = time.perf_counter()
    corpus = LocalCorpus(tmp_path / "scifact.db")
    report = corpus.add([CORPUS])
    elapsed = time.perf_counter() - started
    assert (report.documents, report.skipped) == (5183, [])

    claims = [json.loads(line) for line in CLAIMS.read_text().splitlines() if line.strip()]
    sample = [claim for claim in claims if claim["cited_doc_ids"]][:20]
    provider = LocalCorpusProvider(corpus)
    found = 0
    for row in sample:
        text = row["claim"]
        claim = Claim(
            claim_id=str(row["id"]),
            source_field=FieldName.PLAIN_TEXT,
            span=Span(start=0, end=len(text)),
            text=text,
        )
        close_wording = plan_queries(claim, AS_OF, 1)[0]
        result = provider.search(close_wording, 10)
        assert result.status is ProviderStatus.OK
        cited = {str(doc_id) for doc_id in row["cited_doc_ids"]}
        ranked = {document.source_id for hit in result.hits if (document := corpus.get(hit.doc_id))}
        found += bool(cited & ranked)
    print(f"SciFact: indexed 5,183 abstracts in {elapsed:.2f} s; recall@10 {found}/20")
    assert found > len(sample) // 2
