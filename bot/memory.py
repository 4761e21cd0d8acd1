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
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from functools import cache

log = logging.getLogger(__name__)
#: glibc's ``M_MMAP_THRESHOLD`` option, and the threshold it is fixed at (glibc's default).
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 * 1024


@cache
def _libc() -> ctypes.CDLL | None:
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
    return libc is not None and bool(libc.malloc_trim(0) or True)
