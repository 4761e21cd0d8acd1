"""Whether the database takes writes: a full disk or a read-only database, seen and cleared.

A database can answer every read and refuse every write: SQLite on a full disk
("database or disk is full"), a file or URL opened read-only, PostgreSQL out of
space ("could not extend file", "No space left on device") or read-only (a hot
standby, ``default_transaction_read_only``). :class:`WriteHealth` keeps the
last such refusal a write met (:meth:`~bot.store.db.Store.transaction` tells
it of every outcome) until a later write succeeds, and ``/healthz`` reports it
as broken. So that a quiet server (or one a load balancer took out of service)
finds out, and finds out it is well again, :meth:`Store.check_writable` makes
one write of nothing when it was refused or the last check is
:data:`PROBE_EVERY` seconds old: :func:`write_nothing` adds a row that needs
room (:data:`ROOM` bytes) and deletes it in the same committed transaction, so
the database must find the room a real write would need, and nobody ever
sees the row. A busy write lock is not a refusal: it says nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy import Connection, delete, insert

from bot.clock import SYSTEM_CLOCK
from bot.store.tables import audit_log

#: Words of a database error that say it takes no writes at all, and what that is.
UNWRITABLE = (
    ("database or disk is full", "disk full"),
    ("no space left on device", "disk full"),
    ("could not extend file", "disk full"),
    ("disk quota exceeded", "disk full"),
    ("readonly database", "read-only"),
    ("read-only transaction", "read-only"),
    ("read-only file system", "read-only"),
    ("recovery is in progress", "read-only"),
)
#: Seconds between two write checks of a database that took the last one.
PROBE_EVERY = 30.0
#: Bytes the write check needs room for (a few pages of either database).
ROOM = 64 * 1024


def unwritable_reason(error: BaseException) -> str | None:
    """One line saying the database takes no writes, when ``error`` says so; else None."""
    text = str(getattr(error, "orig", None) or error)
    lowered = text.lower()
    for words, what in UNWRITABLE:
        if words in lowered:
            first = text.strip().splitlines()[0] if text.strip() else what
            return f"database takes no writes ({what}): {first}"
    return None


def write_nothing(connection: Connection) -> None:
    """A write that needs room and leaves nothing: a row added and deleted again (in the
    caller's transaction, which commits it)."""
    added = connection.execute(
        insert(audit_log)
        .values(
            at=SYSTEM_CLOCK.now(),
            actor="errkb",
            record_id="",
            action="write_check",
            after={"room": "." * ROOM},
        )
        .returning(audit_log.c.id)
    ).scalar_one()
    connection.execute(delete(audit_log).where(audit_log.c.id == added))


class WriteHealth:
    """The last write refusal (None: writes work), and when writes were last checked."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self.refused: str | None = None
        self._checked = float("-inf")

    def noted(self, error: BaseException | None) -> None:
        """A write ended: ``error`` is what it raised (None: it was committed)."""
        reason = unwritable_reason(error) if error is not None else None
        with self._lock:
            if error is None:
                self.refused = None
                self._checked = self.clock()
            elif reason is not None:
                self.refused = reason

    def due(self) -> bool:
        """Whether a write check should be made now."""
        with self._lock:
            return self.refused is not None or self.clock() - self._checked >= PROBE_EVERY

    def checked(self) -> None:
        with self._lock:
            self._checked = self.clock()


__all__ = ["PROBE_EVERY", "ROOM", "WriteHealth", "unwritable_reason", "write_nothing"]
