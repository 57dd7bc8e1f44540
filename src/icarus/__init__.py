"""Icarus: an evidence-review engine for factual claims.

The package is a functional core (``ledger``, ``provenance``, ``scoring``) with adapters at the edge
(``lookups`` today; capture, research, storage and the service come later).
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
