"""The knowledge a one-shot command matches against: the database's snapshot when current.

Building the match index of a large knowledge base costs far more than matching
one paste, so a command re-links the index and the graph from the snapshot file
the server keeps (:mod:`bot.snapshot`, in ``ERRKB_CACHE_DIR``) when that
snapshot is at the database's knowledge version; otherwise it builds from the
records, answers, and then writes the snapshot for the next run. The file is
the server's own (named after the database's URL and knowledge epoch), so
either side starts from what the other built.

The version and the records are read in one read of the database, so what is
matched is the knowledge at that version: a snapshot at any other version is
never used (an import moves the version, so the next command rebuilds). A
snapshot that is damaged or written by other code is ignored by
:func:`bot.snapshot.load`; a cache folder that cannot be written only means
the next run builds again. A database that has no knowledge epoch yet is given
one (what the server does on first asking); one that cannot be written to is
matched without a snapshot.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from bot.collector import collector_off
from bot.match.index import MatchIndex
from bot.records import Record
from bot.store import tables
from bot.store.db import Store
from bot.store.loading import load_records
from bot.store.observed import list_observed
from graph.build import KnowledgeGraph, ObservedEdge, build_graph, relink_graph

log = logging.getLogger(__name__)


@dataclass
class StoredKnowledge:
    """The index and graph at the database's ``version``; ``remember`` writes the snapshot
    of a fresh build (nothing when it came from one)."""

    index: MatchIndex
    graph: KnowledgeGraph
    version: int
    remember: Callable[[], None]


def _state(rows: object, key: str) -> int | None:
    table = tables.kb_state
    query = select(table.c.value).where(table.c.key == key)
    return rows.scalar(query)  # type: ignore[attr-defined]


def _snapshot_file(
    store: Store, cache_dir: Path, database_url: str, epoch: int | None
) -> Path | None:
    from bot import snapshot
    from bot.errors import StorageUnavailable

    if epoch is None:
        from sqlalchemy.exc import SQLAlchemyError

        from bot.knowledge import epoch_reader

        try:
            epoch = epoch_reader(store)()
        except (StorageUnavailable, SQLAlchemyError) as error:  # a read-only database
            log.info(
                "no knowledge snapshot: the database has no epoch and cannot be given one: %s",
                error,
            )
            return None
    return snapshot.snapshot_path(cache_dir, database_url, epoch)


def stored_knowledge(store: Store, *, cache_dir: Path, database_url: str) -> StoredKnowledge:
    """The knowledge of ``store`` for matching one paste (see the module docstring). The
    cyclic collector is held off meanwhile: everything loaded or built here lives as long
    as the command, and collections would only walk it again and again."""
    with collector_off():
        return _stored(store, cache_dir=cache_dir, database_url=database_url)


def _stored(store: Store, *, cache_dir: Path, database_url: str) -> StoredKnowledge:
    from bot import snapshot

    with store.read_rows() as rows:
        version = int(_state(rows, "kb_version") or 0)
        epoch = _state(rows, "knowledge_epoch")
        observed = list_observed(rows)
    path = _snapshot_file(store, cache_dir, database_url, epoch)
    saved = snapshot.load(path) if path is not None else None
    if saved is not None and saved.version == version:
        index = MatchIndex(saved.parts, saved.vocabulary, warm=False, links=saved.links)
        graph = relink_graph(index.packed_records(), saved.references, observed=observed)
        return StoredKnowledge(index, graph, version, lambda: None)
    if saved is not None:
        log.info(
            "ignoring the knowledge snapshot at version %d: the database is at %d",
            saved.version,
            version,
            extra={"path": str(path)},
        )
    with store.read_rows() as rows:  # the version again, in the same read as the records
        version = int(_state(rows, "kb_version") or 0)
        records = load_records(rows, include_deprecated=False)
        observed = list_observed(rows)
    return _built(records, observed, version, path)


def _built(
    records: list[Record], observed: list[ObservedEdge], version: int, path: Path | None
) -> StoredKnowledge:
    index = MatchIndex.build(records, warm=False)
    graph = build_graph(records, observed=observed, packed=index.packed_records())

    def remember() -> None:
        if path is None or not len(index):
            return
        from bot import snapshot

        taken = snapshot.Snapshot(version, index.parts, index.vocabulary, graph.said(), index.links)
        try:
            snapshot.save(path, taken)
        except OSError as error:  # a read-only or full cache folder: the next run builds again
            log.info(
                "could not write the knowledge snapshot %s: %s",
                path,
                error,
                extra={"path": str(path)},
            )

    return StoredKnowledge(index, graph, version, remember)
