"""Look-up adapter protocol, the offline default, and ledger enrichment."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from icarus.fetching import ArchiveSource, SafeFetcher, SnapshotStore, WaybackArchive
from icarus.ledger import EvidenceItem, Ledger, LookupName, LookupResult, LookupStatus
from icarus.lookups.plan import lookup_plans
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
    detail: str = "no look-up provider configured"
    """Why it does not run, as the item's result says (``plan.LookupPlan.detail``)."""

    def lookup(self, item: EvidenceItem) -> LookupResult:
        return LookupResult(
            name=self.name, status=LookupStatus.NOT_RUN, provider=self.provider, detail=self.detail[:300]
        )


@dataclass
class LookupRegistry:
    """Adapters by look-up name. Unknown names fall back to the offline default.

    ``factories`` build an adapter when it is first asked for, so a check that looks nothing up never
    imports a look-up's module or its HTTP client (start-up stays fast with every look-up on).
    """

    adapters: dict[LookupName, LookupAdapter] = field(default_factory=dict)
    factories: dict[LookupName, Callable[[], LookupAdapter]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def adapter(self, name: LookupName) -> LookupAdapter:
        with self._lock:
            found = self.adapters.get(name)
            if found is None and name in self.factories:
                found = self.adapters[name] = self.factories.pop(name)()
        return found or OfflineLookup(name)


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
    """The look-ups the settings turn on (``plan.lookup_plans``); each other one answers "not run" with
    the plan's reason (offline, or turned off by its setting).

    A check passes its own snapshot store (the C2PA look-up reads media from it), fetcher and archive (so
    the drift look-up shares their per-host limits) and policy; each defaults to what the settings name.
    """
    store = snapshots if snapshots is not None else SnapshotStore(settings.data_dir / "snapshots")
    plans = lookup_plans(settings)
    factories: dict[LookupName, Callable[[], LookupAdapter]] = {}

    # Each look-up's module (and the HTTP client it brings) is imported when the adapter is first asked for.
    def rdap() -> LookupAdapter:
        from icarus.lookups.rdap import RdapLookup

        assert settings.rdap_url
        return RdapLookup(settings.rdap_url, timeout_s=settings.lookup_timeout_s)

    def scholarly() -> LookupAdapter:
        from icarus.lookups.scholarly import (
            CrossrefUpdatesLookup,
            RetractionWatchLookup,
            ScholarlyUpdatesLookup,
        )

        crossref = (
            CrossrefUpdatesLookup(
                settings.crossref_url, settings.crossref_mailto, timeout_s=settings.lookup_timeout_s
            )
            if settings.crossref_url and not settings.offline
            else None
        )
        retraction_watch = (
            RetractionWatchLookup(settings.retraction_watch_csv) if settings.retraction_watch_csv else None
        )
        return ScholarlyUpdatesLookup(crossref, retraction_watch)

    def c2pa() -> LookupAdapter:
        from icarus.lookups.c2pa import C2paLookup

        return C2paLookup.from_files(store, settings.c2pa_trust_anchors)

    def drift() -> LookupAdapter:
        from icarus.lookups.drift import DriftLookup
        from icarus.scoring.icarus.config import load_policy

        drift_fetcher = fetcher if fetcher is not None else SafeFetcher()
        drift_archive = archive
        if drift_archive is None and settings.resolved_archive_url:
            drift_archive = WaybackArchive(settings.resolved_archive_url, drift_fetcher)
        min_chars = (policy or load_policy(settings.policy)).media.soft_404_min_chars
        return DriftLookup(
            drift_fetcher,
            store,
            min_chars=min_chars,
            archive=drift_archive,
            max_seconds=settings.fetch_timeout_s,
        )

    builders = {
        LookupName.RDAP: rdap,
        LookupName.SCHOLARLY_UPDATES: scholarly,
        LookupName.C2PA: c2pa,
        LookupName.ARCHIVE: drift,
    }
    adapters: dict[LookupName, LookupAdapter] = {}
    for name, plan in plans.items():
        if plan.runs:
            factories[name] = builders[name]
        else:
            adapters[name] = OfflineLookup(name, detail=f"not run: {plan.detail}")
    return LookupRegistry(adapters, factories)


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
