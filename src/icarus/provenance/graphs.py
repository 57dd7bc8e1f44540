"""igraph, imported without its plotting backend.

When matplotlib is installed, ``import igraph`` imports ``matplotlib.pyplot`` for its drawing functions:
about half a second, most of what ``icarus score`` spent starting up. Icarus never draws with igraph, so
igraph is imported with matplotlib hidden and takes its own stand-in for it; matplotlib itself stays
importable afterwards (the evaluation plots use it). Where matplotlib is already loaded, nothing is hidden.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["igraph"]


def _import_igraph() -> Any:
    if "igraph" in sys.modules or "matplotlib" in sys.modules:
        import igraph as loaded

        return loaded
    sys.modules["matplotlib"] = None  # type: ignore[assignment]  # None makes ``import matplotlib`` fail
    try:
        import igraph as loaded
    finally:
        del sys.modules["matplotlib"]
    return loaded


igraph = _import_igraph()
