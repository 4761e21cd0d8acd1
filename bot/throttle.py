"""How errkb keeps a repeated warning from flooding the log: one line every so often.

A condition that fails every request (a workspace errkb is not installed in, a queue
that is full, tokens that no key decrypts) would otherwise log once per request; a
:class:`LogThrottle` lets the first occurrence through at once, then one line per
period, each saying how many occurrences it stands for.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class LogThrottle:
    """At most one log line per ``every`` seconds of ``clock`` (monotonic by default)."""

    def __init__(self, every: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self._clock = clock
        self._lock = threading.Lock()
        self._next = float("-inf")
        self._count = 0

    def due(self) -> int:
        """Count one occurrence. Returns how many occurrences a line logged now stands for
        (this one and those held back since the last line), or 0 while the last line is
        younger than ``every`` seconds: log only when it is not 0."""
        with self._lock:
            self._count += 1
            now = self._clock()
            if now < self._next:
                return 0
            self._next = now + self.every
            count = self._count
            self._count = 0
            return count
