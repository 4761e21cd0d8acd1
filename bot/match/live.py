"""The index the bot answers from: built once, rebuilt in the background.

``LiveIndex(loader, version)`` builds a :class:`MatchIndex` from ``loader()``
(``(version, records)``). ``refresh()`` is cheap: it asks ``version()`` (the
store's change counter) and, when it moved, starts one background rebuild.
Answering never waits for a rebuild: ``current`` is the last good index until
the new one is ready and swapped in atomically. A failed rebuild keeps the
old index and is reported through ``last_error``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.records import Record

log = logging.getLogger(__name__)

Loader = Callable[[], tuple[int, Sequence[Record]]]


class LiveIndex:
    def __init__(
        self,
        loader: Loader,
        version: Callable[[], int],
        *,
        build: Callable[[Sequence[Record]], MatchIndex] = MatchIndex.build,
    ) -> None:
        self._loader = loader
        self._version = version
        self._build = build
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self.last_error: BaseException | None = None
        number, records = loader()
        self._index = build(records)
        self._built_version = number

    @property
    def current(self) -> MatchIndex:
        return self._index

    @property
    def version(self) -> int:
        return self._built_version

    def triage(self, text: str, *, limit: int = 10) -> Triage:
        return self._index.triage(text, limit=limit)

    def refresh(self) -> bool:
        """Start a background rebuild if the store changed; ``True`` if one started."""
        if self._version() == self._built_version:
            return False
        with self._lock:
            if self._worker is not None and self._worker.is_alive():
                return False
            self._worker = threading.Thread(target=self._rebuild, name="errkb-index", daemon=True)
            self._worker.start()
        return True

    def wait(self, timeout: float | None = None) -> None:
        """Block until a running rebuild ends (for tests and shutdown)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def _rebuild(self) -> None:
        try:
            number, records = self._loader()
            index = self._build(records)
        except Exception as exc:
            self.last_error = exc
            log.exception("index rebuild failed; still serving version %s", self._built_version)
            return
        self._index, self._built_version = index, number
        self.last_error = None
        log.info("index rebuilt", extra={"version": number, "records": len(index)})
