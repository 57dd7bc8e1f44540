"""The independent re-search (step 5): queries from the claim text through the research providers.

An adapter at the edge: it runs the configured ``SearchProvider``s (the local corpus by default) and hands
the pure core a ``SearchOutcome``. Hits at the address of evidence the debater already cited are dropped:
they are not independent of the citations being checked. A provider that did not run or failed is a gap in
the search, never evidence against the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from icarus.ledger import Claim, FieldName, Span
from icarus.provenance.canonical import canonical_url
from icarus.research.providers import ProviderStatus, SearchHit, SearchProvider
from icarus.research.queries import plan_queries
from icarus.scoring.evidenceverify.models import ClaimItem, EvidenceStore, EvidenceVerifyConfig
from icarus.scoring.evidenceverify.verify import SearchOutcome

__all__ = ["independent_search"]


def independent_search(
    claim: ClaimItem,
    store: EvidenceStore,
    providers: Sequence[SearchProvider],
    config: EvidenceVerifyConfig,
    as_of: datetime,
) -> SearchOutcome:
    subject = Claim(
        claim_id=claim.claim_id,
        source_field=FieldName.PLAIN_TEXT,
        span=Span(start=0, end=len(claim.text)),
        text=claim.text,
    )
    queries = plan_queries(subject, as_of, config.search_max_queries)
    cited = {canonical_url(r.url) for r in store.evidence if r.evidence_id in claim.evidence_ids}
    hits: dict[str, SearchHit] = {}
    ran, problems = False, []
    for provider in providers:
        for query in queries:
            result = provider.search(query, config.search_hits_per_query)
            if result.status is not ProviderStatus.OK:
                problems.append(f"{result.provider}: {result.detail or result.status.value}")
                break
            ran = True
            for hit in result.hits:
                url = canonical_url(hit.url)
                if url not in cited and url not in hits:
                    hits[url] = hit
    if not ran:
        return SearchOutcome(ran=False, detail="; ".join(problems) or "no search provider configured")
    return SearchOutcome(ran=True, hits=tuple(hits[url] for url in sorted(hits)))
