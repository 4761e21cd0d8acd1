"""What a one-shot command reads of an SQLite database, through the standard library.

A triage answered from the knowledge snapshot (:func:`bot.bootstrap.build_stored_knowledge`)
needs four things of the database: its schema revision, its knowledge version and
epoch (is the snapshot current?), the observed transitions (the graph's learnt edges)
and the votes on the answer's workarounds. Importing SQLAlchemy would cost such a
command more than everything else it does, so on the embedded default (a plain
``sqlite:///file`` URL) these few reads are plain SQL on a read-only connection that
never creates, migrates or writes. Anything out of the ordinary returns None, and the
caller takes the usual path through :class:`~bot.store.db.Store`, which says what is
wrong: another database or a URL with options, a missing or locked file, a schema at
another revision, a database that has no knowledge epoch yet. Each read is the SQL
of the Core query it stands for (:mod:`bot.store.observed`, :mod:`bot.store.loading`);
a test holds the two equal.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from bot.store import SCHEMA_REVISION, utc
from bot.store.urls import sqlite_file
from graph.build import ObservedEdge

log = logging.getLogger(__name__)

T = TypeVar("T")
#: ``(record id, position) → (fixed, failed)``, as the store reads them.
Votes = dict[tuple[str, int], tuple[int, int]]

_STATE = "SELECT key, value FROM kb_state WHERE key IN ('kb_version', 'knowledge_epoch')"
_OBSERVED = (
    "SELECT source_id, target_id, count, first_seen, last_seen FROM observed_transitions"
    " WHERE count >= 1 ORDER BY count DESC, last_seen DESC, source_id, target_id"
)


@dataclass(frozen=True)
class Peek:
    """The database's knowledge ``version`` and ``epoch`` and its observed transitions,
    read in one transaction."""

    version: int
    epoch: int
    observed: list[ObservedEdge]


def peek(url: str) -> Peek | None:
    """What :func:`bot.bootstrap.build_stored_knowledge` reads first, when ``url`` is a plain
    SQLite file whose schema is this errkb's and which has a knowledge epoch; else None."""
    return _read(url, _peek)


def peek_counts(url: str, record_ids: Iterable[str]) -> Votes | None:
    """:func:`bot.store.loading.workaround_counts` of ``url``'s SQLite file; None when it
    cannot be read so (the caller then asks the store)."""
    ids = sorted(set(record_ids))
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    query = (
        "SELECT record_id, position, fixed_count, failed_count FROM workarounds"
        f" WHERE record_id IN ({marks})"
    )

    def counts(rows: sqlite3.Connection) -> Votes:
        return {
            (rid, pos): (fixed, failed)
            for rid, pos, fixed, failed in rows.execute(query, ids)
            if fixed or failed
        }

    return _read(url, counts)


def _peek(rows: sqlite3.Connection) -> Peek | None:
    revision = rows.execute("SELECT version_num FROM alembic_version").fetchone()
    if revision is None or revision[0] != SCHEMA_REVISION:
        return None
    state = dict(rows.execute(_STATE).fetchall())
    if state.get("knowledge_epoch") is None:
        return None
    observed = [
        ObservedEdge(source, target, count, _moment(first), _moment(last))
        for source, target, count, first, last in rows.execute(_OBSERVED)
    ]
    return Peek(int(state.get("kb_version") or 0), int(state["knowledge_epoch"]), observed)


def _read(url: str, work: Callable[[sqlite3.Connection], T | None]) -> T | None:
    """``work`` in a read transaction on ``url``'s file, opened read-only; None when it is
    not a plain SQLite file or cannot be read so."""
    database = sqlite_file(url)
    try:
        if database is None or not Path(database).is_file():
            return None
    except ValueError:  # a name no file can have (a NUL in it): the store will say
        return None
    uri = f"{Path(database).resolve().as_uri()}?mode=ro"
    try:
        with closing(sqlite3.connect(uri, uri=True, isolation_level=None)) as connection:
            connection.execute("BEGIN")
            return work(connection)
    except sqlite3.Error as error:  # locked, damaged, not errkb's: the store will say
        log.debug("reading %s without the store failed: %s", database, error)
        return None


def _moment(value: str | datetime) -> datetime:
    """A stored moment (SQLite keeps ISO text) as :func:`bot.store.utc` gives it."""
    return utc(value if isinstance(value, datetime) else datetime.fromisoformat(value))
