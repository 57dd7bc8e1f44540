"""External look-ups (adapters at the edge): domain registration (H10), scholarly update notices (H16),
content credentials (H22) and archives (H24).

The scoring core never calls these. ``enrich`` runs the adapters a policy wires and records each answer on
the evidence item as a ``LookupResult``; the offline defaults answer ``not_run``, which is honest and
changes nothing. Real providers (RDAP, Crossref and Retraction Watch, c2pa, archives) implement the same
protocols.
"""

from icarus.lookups.adapters import (
    LOOKUP_FEATURES,
    LookupAdapter,
    LookupRegistry,
    OfflineLookup,
    enrich,
    offline_registry,
    registry_from_settings,
)

__all__ = [
    "LOOKUP_FEATURES",
    "LookupAdapter",
    "LookupRegistry",
    "OfflineLookup",
    "enrich",
    "offline_registry",
    "registry_from_settings",
]
