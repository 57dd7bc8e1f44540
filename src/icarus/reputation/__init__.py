"""Source reputation: versioned records on file, and a labelled heuristic estimate for everything else.

This is the minimal registry the check pipeline needs: records are read from JSON files of reviewed
classifications, and an unknown domain gets an estimate (method ``heuristic``), which the policy discounts
and captions "reputation estimated, not on file" (H4). Dataset importers and the review queue build on it.
"""

from icarus.reputation.heuristic import estimate
from icarus.reputation.registry import Registry, RegistryEntry, domain_of, load_registry

__all__ = ["Registry", "RegistryEntry", "domain_of", "estimate", "load_registry"]
