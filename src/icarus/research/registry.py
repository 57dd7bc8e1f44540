"""The providers a check searches, built from settings: the local corpus first, then configured web APIs."""

from __future__ import annotations

from icarus.research.corpus import CorpusError, LocalCorpus, LocalCorpusProvider
from icarus.research.providers import ProviderResult, SearchProvider
from icarus.research.queries import PlannedQuery
from icarus.research.web import (
    BraveSearchProvider,
    FactCheckToolsProvider,
    GdeltDocProvider,
    SearxngProvider,
    WikipediaSearchProvider,
)
from icarus.settings import Settings

__all__ = ["UnavailableProvider", "configured_providers"]


class UnavailableProvider:
    """Stands in for a provider that cannot run here, so the result still says why it is missing."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def __repr__(self) -> str:
        return f"UnavailableProvider({self.name!r})"

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        return ProviderResult.not_run(self.name, self.reason)


def configured_providers(settings: Settings, *, public_web: bool = False) -> list[SearchProvider]:
    """The local corpus, plus Brave, SearXNG and Fact Check Tools when their key or URL is set.

    Wikipedia and GDELT need no key; they join only with ``public_web=True``, because the embedded default
    reads no network. Unconfigured web providers are listed anyway and answer ``not_run``.
    """
    corpus_path = settings.resolved_corpus_path
    providers: list[SearchProvider] = []
    if corpus_path.is_file():
        try:
            providers.append(LocalCorpusProvider(LocalCorpus(corpus_path)))
        except CorpusError as exc:
            providers.append(UnavailableProvider(LocalCorpusProvider.name, str(exc)))
    else:
        providers.append(UnavailableProvider(LocalCorpusProvider.name, f"no local corpus at {corpus_path}"))
    timeout, agent = settings.fetch_timeout_s, settings.user_agent
    providers.append(BraveSearchProvider(settings.brave_api_key, timeout_s=timeout, user_agent=agent))
    providers.append(SearxngProvider(settings.searxng_url, timeout_s=timeout, user_agent=agent))
    providers.append(
        FactCheckToolsProvider(settings.google_factcheck_api_key, timeout_s=timeout, user_agent=agent)
    )
    if public_web:
        providers.append(WikipediaSearchProvider(timeout_s=timeout, user_agent=agent))
        providers.append(GdeltDocProvider(timeout_s=timeout, user_agent=agent))
    return providers
