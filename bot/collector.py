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
def collector_off() -> Iterator[None]:
    """No cyclic garbage collection inside (process-wide; nested uses are fine)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
