"""The C allocator's part in a long-lived process's memory (glibc; elsewhere nothing).

Building or updating the knowledge base makes large short-lived numpy arrays
(the BM25 postings of every record). glibc's malloc raises its mmap threshold
each time such an array is freed, so later ones come from the heap, and the
heap keeps pages freed below live objects: measured at 20,000 records, a
restored knowledge base held 381 MB, of which 47 MB were such freed pages.
:func:`tune_allocator` fixes the threshold (large arrays are mapped and
unmapped whole: 334 MB), and :func:`release_freed` hands freed heap pages back
after a build. Both are process-wide: the serving process calls them, not the
pure code.

:func:`collector_off` is the Python side of the same concern: code that makes
very many objects which outlive it (loading records, reading a snapshot,
building or updating the knowledge base) runs without the cyclic collector,
which would otherwise walk the growing heap again and again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

#: glibc's ``M_MMAP_THRESHOLD`` option, and the threshold it is fixed at (glibc's default).
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 * 1024


@cache
def _libc() -> ctypes.CDLL | None:
    import ctypes  # only where the allocator is tuned (errkb serve), not in every command
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def tune_allocator() -> bool:
    """Allocations of :data:`MMAP_THRESHOLD` or more are mapped on their own, always;
    False where the C library is not glibc."""
    libc = _libc()
    return libc is not None and bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def release_freed() -> bool:
    """Hand the heap pages malloc holds free back to the system; False where it cannot."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)  # says whether any page went back; either way the call did its work
    return True


@contextmanager
def collector_off() -> Iterator[None]:
    """No cyclic garbage collection inside (process-wide; nested uses are fine).

    Measured: loading 100,000 records spent over half its CPU time in collections,
    building their index about a third, and an update's collections of the young
    objects (lists and dicts of 100k items) stopped every other thread for 50-100 ms.
    Reference counting still frees what is dropped meanwhile.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
