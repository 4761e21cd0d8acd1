"""Where unknown errors were pasted, so those threads can be told once a record answers them.

Keyword-only arguments; nothing commits. A thread is kept once per unknown
error (the first person who pasted it there); :func:`claim` marks it told
before errkb posts, in one ``UPDATE … WHERE told_at IS NULL``, so two workers
never tell a thread twice, and :func:`release` undoes that when the post
could not be made.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import desc, select, update
from sqlalchemy.orm import Session

from bot.store.dialect import insert_ignoring_conflicts
from bot.store.models import SlackReplyRow, UnknownSightingRow, table_of

if TYPE_CHECKING:
    from bot.store.loading import Rows


@dataclass(frozen=True)
class Sighting:
    id: int
    unknown_id: int
    channel: str
    thread_ts: str
    user_id: str
    at: datetime


def note_sighting(
    session: Rows, *, unknown_id: int, channel: str, thread_ts: str, user_id: str, at: datetime
) -> bool:
    """Remember that ``unknown_id`` was pasted in this thread; False when it already was."""
    values = {
        "unknown_id": unknown_id,
        "channel": channel,
        "thread_ts": thread_ts,
        "user_id": user_id,
        "at": at,
    }
    return insert_ignoring_conflicts(session, table_of(UnknownSightingRow), values)


def untold(session: Session, *, unknown_id: int) -> list[Sighting]:
    """The threads ``unknown_id`` was pasted in and not yet told about, oldest first."""
    rows = session.scalars(
        select(UnknownSightingRow)
        .where(UnknownSightingRow.unknown_id == unknown_id, UnknownSightingRow.told_at.is_(None))
        .order_by(UnknownSightingRow.at, UnknownSightingRow.id)
    )
    return [Sighting(r.id, r.unknown_id, r.channel, r.thread_ts, r.user_id, r.at) for r in rows]


def claim(session: Session, *, sighting_id: int, record_id: str, at: datetime) -> bool:
    """Mark the thread told about ``record_id``; False when it already was."""
    done = session.execute(
        update(UnknownSightingRow)
        .where(UnknownSightingRow.id == sighting_id, UnknownSightingRow.told_at.is_(None))
        .values(told_at=at, told_record=record_id)
    )
    return bool(done.rowcount)  # type: ignore[attr-defined]


def release(session: Session, *, sighting_id: int) -> None:
    """The thread was not told after all: it may be told later."""
    session.execute(
        update(UnknownSightingRow)
        .where(UnknownSightingRow.id == sighting_id)
        .values(told_at=None, told_record=None)
    )


@dataclass(frozen=True)
class ThreadFix:
    """The reply people marked as what fixed an unknown error, in one of its threads."""

    sighting_id: int
    unknown_id: int
    channel: str
    thread_ts: str
    text: str
    user_id: str
    ts: str
    permalink: str | None


def thread_sighting(session: Session, *, channel: str, thread_ts: str) -> Sighting | None:
    """The unknown error pasted in this thread (the most recently noted one), if any."""
    row = session.scalars(
        select(UnknownSightingRow)
        .where(UnknownSightingRow.channel == channel, UnknownSightingRow.thread_ts == thread_ts)
        .order_by(desc(UnknownSightingRow.at), desc(UnknownSightingRow.id))
        .limit(1)
    ).first()
    return (
        None
        if row is None
        else Sighting(row.id, row.unknown_id, row.channel, row.thread_ts, row.user_id, row.at)
    )


def set_fix(
    session: Session, *, sighting_id: int, text: str, user_id: str, ts: str, permalink: str | None
) -> None:
    """Remember the reply that fixed the thread's error (a later mark replaces an earlier one)."""
    session.execute(
        update(UnknownSightingRow)
        .where(UnknownSightingRow.id == sighting_id)
        .values(fix_text=text, fix_user=user_id, fix_ts=ts, fix_permalink=permalink)
    )


def _fix(row: UnknownSightingRow) -> ThreadFix:
    return ThreadFix(
        row.id,
        row.unknown_id,
        row.channel,
        row.thread_ts,
        row.fix_text or "",
        row.fix_user or "",
        row.fix_ts or "",
        row.fix_permalink,
    )


def thread_fix(session: Session, *, channel: str, thread_ts: str) -> ThreadFix | None:
    """The fix found in this thread, if one was marked."""
    row = session.scalars(
        select(UnknownSightingRow)
        .where(
            UnknownSightingRow.channel == channel,
            UnknownSightingRow.thread_ts == thread_ts,
            UnknownSightingRow.fix_text.is_not(None),
        )
        .order_by(desc(UnknownSightingRow.at), desc(UnknownSightingRow.id))
        .limit(1)
    ).first()
    return None if row is None else _fix(row)


def unknown_fix(session: Session, *, unknown_id: int) -> ThreadFix | None:
    """The most recently noted thread fix of an unknown error, if any thread has one."""
    row = session.scalars(
        select(UnknownSightingRow)
        .where(
            UnknownSightingRow.unknown_id == unknown_id, UnknownSightingRow.fix_text.is_not(None)
        )
        .order_by(desc(UnknownSightingRow.at), desc(UnknownSightingRow.id))
        .limit(1)
    ).first()
    return None if row is None else _fix(row)


def thread_answer_locale(session: Session, *, channel: str, thread_ts: str) -> str | None:
    """The language errkb last answered in, in this thread; None when it never did."""
    return session.scalar(
        select(SlackReplyRow.locale)
        .where(SlackReplyRow.channel == channel, SlackReplyRow.thread_ts == thread_ts)
        .order_by(desc(SlackReplyRow.created_at), desc(SlackReplyRow.id))
        .limit(1)
    )


__all__ = [
    "Sighting",
    "ThreadFix",
    "claim",
    "note_sighting",
    "release",
    "set_fix",
    "thread_answer_locale",
    "thread_fix",
    "thread_sighting",
    "unknown_fix",
    "untold",
]
