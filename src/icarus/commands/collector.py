"""The cyclic garbage collector paused while a command starts and runs.

A command's imports and a check's run build several hundred thousand objects that live as long as the
process, and little cyclic garbage. Each collection they set off walks the survivors again: about a tenth
of the CPU time of ``icarus check``. Unlike ``provenance.gc_pause`` this module loads nothing else, so that
the pause can start before the imports do; it is for one thread (the command line's), and nests.

When it ends, every object the collector tracks is frozen (``gc.freeze``) before the collector is switched
back on: otherwise the first allocation after it set off a collection of everything the body built, a tenth
of a second more at the end of a check, and so did the one at interpreter exit. Frozen objects are never
collected, so cyclic garbage left by then is kept until the process ends: a little memory, in a process
that ends when the command does.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


@contextmanager
def collection_paused() -> Iterator[None]:
    """Run the body with the collector off; then freeze the tracked objects, and switch the collector back on
    if it was on before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
