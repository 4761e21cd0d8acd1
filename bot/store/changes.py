"""The knowledge version and its per-record change feed. Keyword-only; nothing commits.

What matching reads — record content, links, translations, deprecation — is
*knowledge*; votes, confirmations, snoozes and usage are *evidence* and move
nothing here. Each transaction that changes knowledge calls
:func:`lock_knowledge` first and :func:`note_changes` once: the version
(``kb_state["kb_version"]``) moves by one and every record it touched gets
that version in ``knowledge_changes``, in the same transaction.

Writers of knowledge are serialised: SQLite has one writer at a time
(``BEGIN IMMEDIATE``), and on PostgreSQL :func:`lock_knowledge` locks the
version row until commit. So versions are given out in commit order, and a
reader that has seen version *v* has seen every change up to *v*.

A process that built its index at version *v* asks :func:`knowledge_changes`
``since=v`` and gets the records to (re)index and the ids to drop. What it
gets is decided by each record's state now, not by how it changed: a record
changed and then deprecated is removed, whichever came first. The feed keeps
one row per record; rows of records removed longer than :data:`KEEP_REMOVED`
ago are pruned, and ``kb_state["knowledge_floor"]`` remembers the newest
version pruned: a reader from before it is told to reload everything.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import case, func, select, update
from sqlalchemy.orm import Session

from bot.records import Record
from bot.store import dialect
from bot.store.loading import load_records
from bot.store.models import KnowledgeChangeRow, StateRow, table_of

KB_VERSION = "kb_version"
FLOOR = "knowledge_floor"
EPOCH = "knowledge_epoch"
UPSERTED = "upserted"
REMOVED = "removed"
#: How long the feed remembers a record that was deleted or deprecated.
KEEP_REMOVED = timedelta(days=7)

_STATE = table_of(StateRow)
_FEED = table_of(KnowledgeChangeRow)


@dataclass(frozen=True)
class KnowledgeChanges:
    """What changed in the knowledge base after ``since``, as of ``version``.

    ``upserted``: records to (re)index, current content, none deprecated;
    ``removed``: ids to drop (deleted or deprecated). ``complete`` is False when
    the feed cannot answer (``since`` is older than what it keeps, newer than
    the database's version, or more records changed than asked for): reload
    everything at ``version`` instead.
    """

    version: int
    upserted: list[Record] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    complete: bool = True


def _state(session: Session, key: str) -> int | None:
    return session.scalar(select(_STATE.c.value).where(_STATE.c.key == key))


def knowledge_version(session: Session) -> int:
    """The knowledge version: moves when what matching reads changes, never for evidence."""
    return int(_state(session, KB_VERSION) or 0)


def knowledge_epoch(session: Session) -> int:
    """A random number this database's knowledge gets once, on first asking.

    Versions count from 0 in every database, so a database dropped and made again
    at the same address soon reaches versions the old one had: what was built from
    the old one (a snapshot) is recognised by its epoch, not by its version.
    """
    found = _state(session, EPOCH)
    if found is None:
        dialect.insert_ignoring_conflicts(
            session, _STATE, {"key": EPOCH, "value": secrets.randbelow(2**31 - 1) + 1}
        )
        found = _state(session, EPOCH)  # ours, or the one another process put first
    return int(found or 0)


def lock_knowledge(session: Session) -> int:
    """Serialise knowledge writers until this transaction ends; returns the version.

    Call it first in a transaction that will change knowledge: on PostgreSQL it
    locks the version row (SQLite's ``BEGIN IMMEDIATE`` already holds the one
    write lock), so concurrent imports of the same ids run one after the other.
    """
    dialect.insert_ignoring_conflicts(session, _STATE, {"key": KB_VERSION, "value": 0})
    locked = session.scalar(
        select(_STATE.c.value).where(_STATE.c.key == KB_VERSION).with_for_update()
    )
    return int(locked or 0)


def note_changes(
    session: Session,
    *,
    upserted: Iterable[str] = (),
    removed: Iterable[str] = (),
    at: datetime,
) -> int:
    """Move the knowledge version once and mark each record with it; returns the new version.

    Nothing to note leaves the version where it is.
    """
    kinds: dict[str, str] = {rid: UPSERTED for rid in upserted}
    kinds.update({rid: REMOVED for rid in removed})
    if not kinds:
        return knowledge_version(session)
    lock_knowledge(session)
    version = int(
        session.execute(
            update(_STATE)
            .where(_STATE.c.key == KB_VERSION)
            .values(value=_STATE.c.value + 1)
            .returning(_STATE.c.value)
        ).scalar_one()
    )
    statement = dialect.insert(session, _FEED)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[_FEED.c.record_id],
            set_={
                "seq": statement.excluded.seq,
                "kind": statement.excluded.kind,
                "at": statement.excluded.at,
            },
        ),
        [{"record_id": rid, "seq": version, "kind": kind, "at": at} for rid, kind in kinds.items()],
    )
    _prune(session, before=at - KEEP_REMOVED)
    return version


def _prune(session: Session, *, before: datetime) -> None:
    """Forget records removed before ``before``; the floor moves past them."""
    newest = session.scalar(
        select(func.max(_FEED.c.seq)).where(_FEED.c.kind == REMOVED, _FEED.c.at < before)
    )
    if newest is None:
        return
    session.execute(_FEED.delete().where(_FEED.c.kind == REMOVED, _FEED.c.seq <= newest))
    statement = dialect.insert(session, _STATE).values(key=FLOOR, value=newest)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[_STATE.c.key],
            set_={
                "value": case(
                    (statement.excluded.value > _STATE.c.value, statement.excluded.value),
                    else_=_STATE.c.value,
                )
            },
        )
    )


def knowledge_changes(
    session: Session, *, since: int, limit: int | None = None
) -> KnowledgeChanges:
    """The records to (re)index and the ids to drop to go from version ``since`` to now.

    ``limit``: when more records than that changed, answer ``complete=False``
    without loading them (a full reload is then as cheap). Read it in
    ``Store.read()``: one snapshot, so ``version`` and the records agree.
    """
    version = knowledge_version(session)
    floor = int(_state(session, FLOOR) or 0)
    if since > version or since < floor:
        return KnowledgeChanges(version=version, complete=False)
    if since == version:
        return KnowledgeChanges(version=version)
    changed = list(
        session.scalars(
            select(_FEED.c.record_id).where(_FEED.c.seq > since, _FEED.c.seq <= version)
        )
    )
    if limit is not None and len(changed) > limit:
        return KnowledgeChanges(version=version, complete=False)
    upserted = load_records(session, ids=changed, include_deprecated=False)
    present = {record.id for record in upserted}
    removed = sorted(rid for rid in changed if rid not in present)
    return KnowledgeChanges(version=version, upserted=upserted, removed=removed)
