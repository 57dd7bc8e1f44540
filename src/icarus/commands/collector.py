"""The cyclic garbage collector paused while a command starts and runs.

A command's imports and a check's run build several hundred thousand objects that live as long as the
process, and little cyclic garbage. Each collection they set off walks the survivors again: about a tenth
of the CPU time of ``icarus check``. Unlike ``provenance.gc_pause`` this module loads nothing else, so that
the pause can start before the imports do; it is for one thread (the command line's), and nests.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


@contextmanager
def collection_paused() -> Iterator[None]:
    """Run the body with the collector off; switch it back on afterwards if it was on before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
