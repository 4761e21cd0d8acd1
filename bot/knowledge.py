"""The live knowledge base of one process: match index and graph, rebuilt when records change.

:class:`LiveKnowledge` builds the :class:`~bot.match.index.MatchIndex` and the
graph (through ``graph.cache.GraphCache``) at start, then polls the
database's change counter (``kb_state``) and rebuilds both on its own thread
when it moves. Answering never waits: ``index.current()`` and
``graph.current()`` return the previous build until the new one is swapped
in, and a failed rebuild keeps serving the old one. Deprecated records are
left out, so they are no longer offered as answers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from bot.match.index import MatchIndex
from bot.records import Record
from bot.store.db import Store
from graph.build import KnowledgeGraph, ObservedEdge
from graph.cache import GraphCache

log = logging.getLogger(__name__)
T = TypeVar("T")

class IndexSource(Protocol):
    """The live match index; None until the first build."""

    def current(self) -> MatchIndex | None: ...


class GraphSource(Protocol):
    """The live transition graph; None until the first build."""

    def current(self) -> KnowledgeGraph | None: ...


@dataclass(frozen=True)
class Fixed(Generic[T]):
    """A source that always gives the same thing (tests, one-shot tools)."""

    value: T

    def current(self) -> T:
        return self.value


Loader = Callable[[], tuple[int, Sequence[Record], Sequence[ObservedEdge]]]


def store_loader(store: Store) -> Loader:
    def load() -> tuple[int, Sequence[Record], Sequence[ObservedEdge]]:
        from bot.store import digest_repo, repository
        from bot.store.observed import list_observed

        with store.transaction() as session:
            gone = digest_repo.deprecated_ids(session)
            records = [r for r in repository.load_records(session) if r.id not in gone]
            return repository.kb_version(session), records, list_observed(session)

    return load


def version_reader(store: Store) -> Callable[[], int]:
    def read() -> int:
        from bot.store import repository

        with store.transaction() as session:
            return repository.kb_version(session)

    return read


class _Source(Generic[T]):
    """What is built now (None before the first build), read at each call."""

    def __init__(self, get: Callable[[], T | None]) -> None:
        self._get = get

    def current(self) -> T | None:
        return self._get()


class LiveKnowledge:
    def __init__(
        self, load: Loader, version: Callable[[], int], *, poll_seconds: float = 5.0
    ) -> None:
        self._load, self._version, self.poll_seconds = load, version, poll_seconds
        self._index: MatchIndex | None = None
        self._graph: KnowledgeGraph | None = None
        self._built: int | None = None
        self._graphs = GraphCache()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.index: _Source[MatchIndex] = _Source(lambda: self._index)
        self.graph: _Source[KnowledgeGraph] = _Source(lambda: self._graph)

    @property
    def records(self) -> int:
        return len(self._index) if self._index is not None else 0

    def refresh(self) -> bool:
        """Rebuild when the change counter moved; True when a new build is in place."""
        version = self._version()
        if version == self._built:
            return False
        loaded, records, observed = self._load()
        index = MatchIndex.build(records)
        graph = self._graphs.get(loaded, lambda: (records, observed))
        self._index, self._graph, self._built = index, graph, loaded
        log.info("knowledge base loaded", extra={"kb_version": loaded, "records": len(records)})
        return True

    def start(self) -> None:
        self.refresh()
        self._thread = threading.Thread(target=self._run, name="errkb-knowledge", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.refresh()
            except Exception:
                log.exception("knowledge base refresh failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
