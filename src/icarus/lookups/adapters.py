"""Look-up adapter protocol, the offline default, and ledger enrichment."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from icarus.fetching import ArchiveSource, SafeFetcher, SnapshotStore, WaybackArchive
from icarus.ledger import EvidenceItem, Ledger, LookupName, LookupResult, LookupStatus
from icarus.scoring.icarus.config import PolicyConfig
from icarus.settings import Settings

# Which policy rule part wires each look-up: under a version where that part is inert, enrichment skips it.
LOOKUP_FEATURES: Mapping[LookupName, str] = {
    LookupName.RDAP: "H10.registration",
    LookupName.SCHOLARLY_UPDATES: "H16.lookup",
    LookupName.C2PA: "H22.lookup",
    LookupName.ARCHIVE: "H24.drift",
}


class LookupAdapter(Protocol):
    """Answers one kind of look-up for one evidence item. Must not raise: failures are results."""

    @property
    def name(self) -> LookupName: ...

    @property
    def provider(self) -> str: ...

    def lookup(self, item: EvidenceItem) -> LookupResult: ...


@dataclass(frozen=True)
class OfflineLookup:
    """The embedded default: no network, so every look-up honestly says it did not run."""

    name: LookupName
    provider: str = "offline"

    def lookup(self, item: EvidenceItem) -> LookupResult:
        return LookupResult(
            name=self.name,
            status=LookupStatus.NOT_RUN,
            provider=self.provider,
            detail="no look-up provider configured",
        )


@dataclass
class LookupRegistry:
    """Adapters by look-up name. Unknown names fall back to the offline default."""

    adapters: dict[LookupName, LookupAdapter] = field(default_factory=dict)

    def adapter(self, name: LookupName) -> LookupAdapter:
        return self.adapters.get(name) or OfflineLookup(name)


def offline_registry() -> LookupRegistry:
    return LookupRegistry()


def registry_from_settings(
    settings: Settings,
    snapshots: SnapshotStore | None = None,
    *,
    fetcher: SafeFetcher | None = None,
    archive: ArchiveSource | None = None,
    policy: PolicyConfig | None = None,
) -> LookupRegistry:
    """The look-ups the settings configure; everything else stays offline ("not run").

    A check passes its own snapshot store (the C2PA look-up reads media from it), fetcher and archive (so
    the drift look-up shares their per-host limits) and policy; each defaults to what the settings name.
    """
    # Each look-up's module (and the HTTP client it brings) is imported only where the settings turn it on.
    store = snapshots if snapshots is not None else SnapshotStore(settings.data_dir / "snapshots")
    adapters: dict[LookupName, LookupAdapter] = {}
    if settings.rdap_url:
        from icarus.lookups.rdap import RdapLookup

        adapters[LookupName.RDAP] = RdapLookup(settings.rdap_url)
    if settings.crossref_url or settings.retraction_watch_csv:
        from icarus.lookups.scholarly import (
            CrossrefUpdatesLookup,
            RetractionWatchLookup,
            ScholarlyUpdatesLookup,
        )

        crossref = (
            CrossrefUpdatesLookup(settings.crossref_url, settings.crossref_mailto)
            if settings.crossref_url
            else None
        )
        retraction_watch = (
            RetractionWatchLookup(settings.retraction_watch_csv) if settings.retraction_watch_csv else None
        )
        adapters[LookupName.SCHOLARLY_UPDATES] = ScholarlyUpdatesLookup(crossref, retraction_watch)
    if settings.c2pa_validation:
        from icarus.lookups.c2pa import C2paLookup

        adapters[LookupName.C2PA] = C2paLookup.from_files(store, settings.c2pa_trust_anchors)
    if settings.drift_check:
        from icarus.lookups.drift import DriftLookup
        from icarus.scoring.icarus.config import load_policy

        fetcher = fetcher if fetcher is not None else SafeFetcher()
        if archive is None and settings.archive_url:
            archive = WaybackArchive(settings.archive_url, fetcher)
        min_chars = (policy or load_policy(settings.policy)).media.soft_404_min_chars
        adapters[LookupName.ARCHIVE] = DriftLookup(fetcher, store, min_chars=min_chars, archive=archive)
    return LookupRegistry(adapters)


def enrich(ledger: Ledger, registry: LookupRegistry, policy: PolicyConfig) -> Ledger:
    """Return a new ledger whose items carry the answers of every look-up the policy wires.

    An item that already holds a result for a look-up keeps it (results are recorded once, then replayed).
    An adapter that raises is recorded as an error result rather than aborting the check.
    """
    wired = [name for name, feature in LOOKUP_FEATURES.items() if policy.live(feature)]
    items: list[EvidenceItem] = []
    for item in ledger.evidence:
        results = list(item.lookups)
        present = {result.name for result in results}
        for name in wired:
            if name in present:
                continue
            adapter = registry.adapter(name)
            try:
                results.append(adapter.lookup(item))
            except Exception as exc:  # an adapter failure must never lose the check
                results.append(
                    LookupResult(
                        name=name,
                        status=LookupStatus.ERROR,
                        provider=adapter.provider,
                        detail=f"{type(exc).__name__}: {exc}"[:300],
                    )
                )
        items.append(item.model_copy(update={"lookups": results}))
    return ledger.model_copy(update={"evidence": items})
