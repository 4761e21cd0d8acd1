"""The live knowledge base of one process: match index and graph, updated when records change.

:class:`LiveKnowledge` builds the :class:`~bot.match.index.MatchIndex` and the
:class:`~graph.build.KnowledgeGraph` on its own thread, then polls the
knowledge version (``kb_state``; evidence such as votes, confirmations and
snoozes never moves it) and, when it moves, asks the change feed
(:func:`bot.store.changes.knowledge_changes`) which records changed since the
version it built: only those are indexed again (:meth:`MatchIndex.update`,
:meth:`KnowledgeGraph.update`), the other records' parts are shared with the
index in service. When the feed cannot answer (too many changes, a version
it no longer remembers) everything is loaded and built again. Answering never
waits: ``index.current()`` and ``graph.current()`` return the previous build
until the new one is swapped in (one assignment each), and a failed update
keeps serving the old one. Deprecated records are left out.

With a snapshot file (:mod:`bot.snapshot`), a start re-links the index from
the snapshot instead of building it when the snapshot is at the database's
version, or older by changes the feed still remembers (then applied as an
update); any other snapshot is ignored with one log line. The snapshot is
written after a full build, at most every :data:`SNAPSHOT_EVERY` seconds
after updates, and at stop, on a thread of its own (taken under the build
lock, written outside it: the next update does not wait for the file).

:attr:`LiveKnowledge.readiness` says what ``/healthz`` reports: starting
(the first build runs, or a snapshot older than the database is being brought
up to its version: nothing is served from it before), ready, or broken (the
first build failed; the reason in one line).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar

from bot.collector import collector_off
from bot.match.index import MatchIndex
from bot.records import Record
from bot.store.changes import KnowledgeChanges
from bot.store.db import Store
from graph.build import KnowledgeGraph, ObservedEdge, build_graph, relink_graph

log = logging.getLogger(__name__)
T = TypeVar("T")
#: Most records an update reads through the change feed; past it a full load is as cheap.
CHANGES_LIMIT = 5_000
#: Least time between two snapshot writes after updates.
SNAPSHOT_EVERY = 300.0
#: How long stopping waits for a snapshot being written.
SAVE_WAIT = 30.0


class IndexSource(Protocol):
    """The live match index; None until the first build."""

    def current(self) -> MatchIndex | None: ...


class GraphSource(Protocol):
    """The live transition graph; None until the first build."""

    def current(self) -> KnowledgeGraph | None: ...


Loader = Callable[[], tuple[int, Sequence[Record], Sequence[ObservedEdge]]]
Changes = Callable[[int], KnowledgeChanges]
Observed = Callable[[], Sequence[ObservedEdge]]


def store_loader(store: Store) -> Loader:
    def load() -> tuple[int, Sequence[Record], Sequence[ObservedEdge]]:
        from bot.store import repository
        from bot.store.observed import list_observed

        with store.read() as session:
            records = repository.load_records(session, include_deprecated=False)
            return repository.kb_version(session), records, list_observed(session)

    return load


def version_reader(store: Store) -> Callable[[], int]:
    def read() -> int:
        from bot.store import repository

        with store.read() as session:
            return repository.kb_version(session)

    return read


def epoch_reader(store: Store) -> Callable[[], int]:
    """The database's knowledge epoch (given on first asking: a write)."""

    def read() -> int:
        from bot.store.changes import knowledge_epoch

        with store.transaction() as session:
            return knowledge_epoch(session)

    return read


def change_reader(store: Store) -> Changes:
    """The records changed since a version, read in one snapshot of the database."""

    def read(since: int) -> KnowledgeChanges:
        from bot.store import repository

        with store.read() as session:
            return repository.knowledge_changes(session, since=since, limit=CHANGES_LIMIT)

    return read


def observed_reader(store: Store) -> Observed:
    def read() -> Sequence[ObservedEdge]:
        from bot.store.observed import list_observed

        with store.read() as session:
            return list_observed(session)

    return read


def store_knowledge(
    store: Store,
    *,
    poll_seconds: float,
    on_rebuild: Callable[[Literal["full", "incremental"]], None] | None = None,
    on_first_load: Callable[[], None] | None = None,
    snapshot: Path | Callable[[], Path] | None = None,
) -> LiveKnowledge:
    """The live knowledge of ``store``: loaded from it, kept up to date through its change
    feed, its observed transitions in the graph."""
    return LiveKnowledge(
        store_loader(store),
        version_reader(store),
        changes=change_reader(store),
        observed=observed_reader(store),
        poll_seconds=poll_seconds,
        on_rebuild=on_rebuild,
        on_first_load=on_first_load,
        snapshot=snapshot,
    )


class _Source(Generic[T]):
    """What is built now (None before the first build), read at each call."""

    def __init__(self, get: Callable[[], T | None]) -> None:
        self._get = get

    def current(self) -> T | None:
        return self._get()


@dataclass(frozen=True)
class Readiness:
    """Whether answers can be given: ``starting`` (first build running), ``ready``, or
    ``broken`` (it failed: ``reason``, one line)."""

    state: Literal["starting", "ready", "broken"]
    records: int = 0
    version: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class _Built:
    index: MatchIndex
    graph: KnowledgeGraph
    version: int


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class LiveKnowledge:
    def __init__(
        self,
        load: Loader,
        version: Callable[[], int],
        *,
        changes: Changes | None = None,
        observed: Observed | None = None,
        poll_seconds: float = 5.0,
        on_rebuild: Callable[[Literal["full", "incremental"]], None] | None = None,
        on_first_load: Callable[[], None] | None = None,
        snapshot: Path | Callable[[], Path] | None = None,
    ) -> None:
        """``load``, ``version``, ``changes`` and ``observed`` read the database
        (:func:`store_knowledge` wires them to a :class:`Store`); ``snapshot``: the file,
        or how to find it (asked once, when first needed)."""
        self._load = load
        self._version = version
        self.poll_seconds = poll_seconds
        self._changes = changes
        self._observed = observed
        self._on_rebuild = on_rebuild
        self._on_first_load = on_first_load
        self._snapshot_at = snapshot  # a path, or how to find it (asks the database once)
        self._snapshot_path: Path | None = snapshot if isinstance(snapshot, Path) else None
        self._snapshot_written = float("-inf")
        self._snapshot_version: int | None = None
        self._saver: threading.Thread | None = None
        self._built: _Built | None = None
        self._failure: str | None = None
        self._lock = threading.Lock()  # one build at a time (the thread, or a direct refresh)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.index: _Source[MatchIndex] = _Source(lambda: b.index if (b := self._built) else None)
        self.graph: _Source[KnowledgeGraph] = _Source(
            lambda: b.graph if (b := self._built) else None
        )

    @property
    def records(self) -> int:
        built = self._built
        return len(built.index) if built is not None else 0

    @property
    def version(self) -> int | None:
        built = self._built
        return built.version if built is not None else None

    def readiness(self) -> Readiness:
        built = self._built
        if built is not None:
            return Readiness("ready", len(built.index), built.version)
        if self._failure is not None:
            return Readiness("broken", reason=self._failure)
        return Readiness("starting")

    def refresh(self) -> bool:
        """Catch up with the database; True when a new build is in place."""
        with self._lock:
            try:
                with collector_off():  # a build makes very many objects that outlive it
                    changed = self._refresh()
            except Exception as error:
                if self._built is None:
                    self._failure = one_line(error)
                raise
            self._failure = None
            return changed

    def _refresh(self) -> bool:
        version = self._version()
        built = self._built
        if built is None:  # a snapshot is served only once it is at the database's version
            built = self._restore(version)
            if built is not None and built.version == version:
                self._swap(built)
                return True
        if built is not None and version == built.version:
            return False
        if built is not None and self._changes is not None:
            changes = self._changes(built.version)
            if changes.complete:
                if changes.version == built.version:
                    if built is self._built:
                        return False
                    self._swap(built)  # the feed had nothing after all
                    return True
                self._update(built, changes)
                return True
        self._full()
        return True

    def _update(self, built: _Built, changes: KnowledgeChanges) -> None:
        started = time.perf_counter()
        observed = self._observed() if self._observed is not None else ()
        index = built.index.update(changes.upserted, changes.removed)
        graph = built.graph.update(changes.upserted, changes.removed, observed=observed)
        graph.centralities()  # computed once per build, then looked up
        if self._on_rebuild is not None:  # counted before anyone can see the result
            self._on_rebuild("incremental")
        self._swap(_Built(index, graph, changes.version))
        log.info(
            "knowledge base updated: %d record(s) changed, %d removed",
            len(changes.upserted),
            len(changes.removed),
            extra={
                "kb_version": changes.version,
                "records": len(index),
                "seconds": round(time.perf_counter() - started, 3),
            },
        )
        if time.monotonic() - self._snapshot_written >= SNAPSHOT_EVERY:
            self._save()

    def _full(self) -> None:
        started = time.perf_counter()
        loaded, records, observed = self._load()  # the records are dropped once packed
        records = sorted(records, key=lambda r: r.id)
        index = MatchIndex.build(records)
        graph = build_graph(records, observed=observed, packed=index.packed_records())
        del records  # kept packed by the index and the graph from now on
        graph.centralities()
        if self._on_rebuild is not None:  # counted before anyone can see the result
            self._on_rebuild("full")
        self._swap(_Built(index, graph, loaded))
        log.info(
            "knowledge base loaded",
            extra={
                "kb_version": loaded,
                "records": len(index),
                "seconds": round(time.perf_counter() - started, 3),
            },
        )
        self._save()

    def _swap(self, built: _Built) -> None:
        first = self._built is None
        self._built = built
        if first and self._on_first_load is not None:
            self._on_first_load()

    def _snapshot_file(self) -> Path | None:
        if self._snapshot_path is None and callable(self._snapshot_at):
            self._snapshot_path = self._snapshot_at()
        return self._snapshot_path

    def _restore(self, version: int) -> _Built | None:
        """Re-link the index and graph from the snapshot file when it is at ``version``,
        or older by changes the feed can still tell (applied next); else None. Not put in
        service here: an older one is served only once the feed's changes are applied, so
        nothing answers (and ``/healthz`` says starting) from a knowledge base behind the
        database's."""
        path = self._snapshot_file()
        if path is None:
            return None
        from bot import snapshot

        def usable(at: int) -> bool:
            return at == version or (
                at < version and self._changes is not None and self._changes(at).complete
            )

        started = time.perf_counter()
        at = snapshot.version_of(path)  # one that is not usable is not read past its head
        saved = snapshot.load(path) if at is None or usable(at) else None
        stale = saved.version if saved is not None else at
        if stale is not None and not usable(stale):
            log.info(
                "ignoring the knowledge snapshot at version %d: the database is at %d",
                stale,
                version,
                extra={"path": str(path)},
            )
            return None
        if saved is None:  # absent or damaged: load() said which
            return None
        index = MatchIndex(saved.parts, saved.vocabulary, links=saved.links)
        observed = self._observed() if self._observed is not None else ()
        graph = relink_graph(index.packed_records(), saved.references, observed=observed)
        graph.centralities()
        self._snapshot_version = saved.version
        self._snapshot_written = time.monotonic()  # as good as just written: not again at once
        built = _Built(index, graph, saved.version)
        log.info(
            "knowledge base restored from its snapshot",
            extra={
                "kb_version": saved.version,
                "records": len(index),
                "seconds": round(time.perf_counter() - started, 3),
            },
        )
        return built

    def _save(self, *, wait: bool = False) -> None:
        """Write the snapshot of what is built now, on a thread of its own (the next update
        need not wait for it); ``wait``: here, and wait for a write under way first.
        Call it holding the build lock: what is written is taken under it."""
        path = self._snapshot_file()
        if path is None:
            return
        saver = self._saver
        if saver is not None and saver.is_alive():
            if not wait:
                return  # the next update tries again
            saver.join(SAVE_WAIT)
        built = self._built
        if built is None or built.version == self._snapshot_version:
            return
        from bot import snapshot

        # the vocabulary is not copied: it only grows, and terms added later are unused
        taken = snapshot.Snapshot(
            built.version,
            built.index.parts,
            built.index.vocabulary,
            built.graph.said(),
            built.index.links,
        )

        def write() -> None:
            started = time.perf_counter()
            try:
                snapshot.save(path, taken)
            except OSError as error:
                log.warning(
                    "could not write the knowledge snapshot: %s",
                    one_line(error),
                    extra={"path": str(path)},
                )
                return
            self._snapshot_written = time.monotonic()
            self._snapshot_version = taken.version
            log.info(
                "knowledge snapshot written",
                extra={
                    "kb_version": taken.version,
                    "path": str(path),
                    "seconds": round(time.perf_counter() - started, 3),
                },
            )

        if wait:
            write()
        else:
            self._saver = threading.Thread(target=write, name="errkb-snapshot", daemon=True)
            self._saver.start()

    def start(self, *, wait: bool = True) -> None:
        """Start the thread that builds and then keeps the knowledge base up to date;
        ``wait``: build once here first (and raise if that fails)."""
        if wait:
            self.refresh()
        self._thread = threading.Thread(
            target=self._run, args=(not wait,), name="errkb-knowledge", daemon=True
        )
        self._thread.start()

    def _run(self, first: bool) -> None:
        if first:
            self._try_refresh()
        while not self._stop.wait(self.poll_seconds):
            self._try_refresh()

    def _try_refresh(self) -> None:
        try:
            self.refresh()
        except Exception:
            log.exception("knowledge base refresh failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._lock.acquire(blocking=False):  # not while a build runs: stopping comes first
            try:
                self._save(wait=True)  # the next start re-links instead of building
            finally:
                self._lock.release()
