"""Python's cyclic garbage collector held off while a bulk of long-lived objects is made.

Loading records, reading a snapshot and building an index make very many objects
that outlive the code making them; the collector would walk the growing heap again
and again meanwhile, finding nothing to free. Reference counting still frees what
is dropped inside.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_off(*, freeze: bool = False) -> Iterator[None]:
    """No cyclic garbage collection inside (process-wide; nested uses are fine).

    ``freeze``: what lives when the block ends lives as long as the process, and is
    frozen (``gc.freeze``) before the collector resumes. Everything made while it was
    off is still in the youngest generation, so the first collection after would walk
    all of it; frozen, no collection does.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()
