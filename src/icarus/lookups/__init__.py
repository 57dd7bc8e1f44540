"""External look-ups (adapters at the edge): domain registration (H10), scholarly update notices (H16),
content credentials (H22) and archives (H24).

The scoring core never calls these. ``enrich`` runs the adapters a policy wires and records each answer on
the evidence item as a ``LookupResult``. Every look-up runs by default; one the deployment does not run
(offline, or turned off by its setting: ``plan``) or whose service cannot be reached answers ``not_run``
with the reason, which is honest and changes nothing.
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
