"""Research: plan the searches for a claim and run them on search providers.

``plan_queries`` (pure) turns a claim into typed queries; a ``SearchProvider`` answers each with a
``ProviderResult`` that is ``ok``, ``not_run`` or ``error`` and never raises. The embedded default provider
is the local SQLite FTS5 corpus (``LocalCorpus``); web providers live in ``icarus.research.web``. Of each
document found, ``excerpts.best_excerpt`` picks the sentence an evidence item quotes, passing over sentences
that only report the claim (``reported_claims``).
"""

from icarus.research.corpus import (
    AddReport,
    CorpusDocument,
    CorpusError,
    LocalCorpus,
    LocalCorpusProvider,
    match_expression,
)
from icarus.research.providers import (
    ClaimReviewRecord,
    ProviderResult,
    ProviderStatus,
    SearchHit,
    SearchProvider,
)
from icarus.research.queries import PRIORITY, PlannedQuery, QueryKind, plan_queries, web_query
from icarus.research.registry import UnavailableProvider, configured_providers

__all__ = [
    "PRIORITY",
    "AddReport",
    "ClaimReviewRecord",
    "CorpusDocument",
    "CorpusError",
    "LocalCorpus",
    "LocalCorpusProvider",
    "PlannedQuery",
    "ProviderResult",
    "ProviderStatus",
    "QueryKind",
    "SearchHit",
    "SearchProvider",
    "UnavailableProvider",
    "configured_providers",
    "match_expression",
    "plan_queries",
    "web_query",
]
