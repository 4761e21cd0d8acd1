"""Keeping one built graph per process, rebuilt when the knowledge base changes.

The database's change counter (``kb_state``) is read by the caller and passed
in; :class:`GraphCache` rebuilds only when it differs from the counter the
current graph was built at. No I/O here: ``load`` is the caller's function.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from bot.records import Record
from graph.build import KnowledgeGraph, ObservedEdge, build_graph

Loader = Callable[[], tuple[Iterable[Record], Iterable[ObservedEdge]]]


class GraphCache:
    """The current :class:`KnowledgeGraph`, rebuilt when ``version`` changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: int | None = None
        self._graph: KnowledgeGraph | None = None

    @property
    def version(self) -> int | None:
        return self._version

    def get(self, version: int, load: Loader) -> KnowledgeGraph:
        """The graph at ``version``; calls ``load`` (records, observed edges) only to rebuild."""
        with self._lock:
            if self._graph is None or self._version != version:
                records, observed = load()
                self._graph = build_graph(records, observed=observed)
                self._graph.centralities()  # compute once per build, then look up
                self._version = version
            return self._graph
