"""Repository functions for the Slack bot's tables. Keyword-only arguments; nothing commits.

- :func:`cast_vote`: one verdict per (user, record, workaround, thread),
  changeable; keeps ``workarounds.fixed_count``/``failed_count`` in step, and
  a new "fixed it" is fresh evidence (:func:`record_evidence`, audited).
- unknown errors by normalised template; user language choices; replies.

Everything here is evidence or bookkeeping: none of it moves the knowledge
version (:mod:`bot.store.changes`), so no process rebuilds its index for it.
Counters and choices are single ``INSERT … ON CONFLICT`` or ``UPDATE … SET
n = n + 1`` statements, never a read followed by a write; evidence on a record
locks the record's row first (:func:`bot.store.repository.note_evidence`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, case, delete, exists, func, select, update
from sqlalchemy.orm import Session

from bot.records import Record
from bot.store import utc
from bot.store.dialect import dialect_name, insert, insert_ignoring_conflicts
from bot.store.loading import chunks, workaround_counts
from bot.store.models import (
    RecordRow,
    SlackReplyRow,
    SlackUserRow,
    UnknownErrorRow,
    UnknownSightingRow,
    VoteRow,
    WorkaroundRow,
    table_of,
)
from bot.store.repository import add_audit, note_evidence
from bot.store.sightings import note_sighting

if TYPE_CHECKING:
    from bot.store.loading import Rows

VERDICTS = ("fixed", "failed")
KEEP_PERMALINKS = 5
SAMPLE_CHARS = 2_000


# -- users -----------------------------------------------------------------------


def chosen_locale(session: Rows, *, user_id: str) -> str | None:
    """The language this user chose, None for automatic (:func:`chosen_locales`)."""
    return chosen_locales(session, user_ids=(user_id,)).get(user_id)


_USERS = table_of(SlackUserRow).c
_CHOSEN_LOCALES = select(_USERS.user_id, _USERS.locale).where(
    _USERS.user_id.in_(bindparam("p_users", expanding=True))
)  # built once: every paste asks it


def chosen_locales(session: Rows, *, user_ids: Collection[str]) -> dict[str, str | None]:
    """The language each of these users chose, for those who chose one (a Core select)."""
    if not user_ids:
        return {}
    rows = session.execute(_CHOSEN_LOCALES, {"p_users": sorted(user_ids)})
    return {user_id: locale for user_id, locale in rows}


def choose_locale(session: Session, *, user_id: str, locale: str | None, at: datetime) -> None:
    """Store the user's language; ``None`` goes back to automatic."""
    table = table_of(SlackUserRow)
    if locale is None:
        session.execute(delete(table).where(table.c.user_id == user_id))
        return
    statement = insert(session, table).values(user_id=user_id, locale=locale, updated_at=at)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[table.c.user_id], set_={"locale": locale, "updated_at": at}
        )
    )


# -- replies ---------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    id: int
    kind: str
    locale: str
    user_id: str
    channel: str
    thread_ts: str | None
    args: dict[str, Any]

    @property
    def thread(self) -> str:
        """The conversation a vote belongs to (a private reply is its own)."""
        return f"{self.channel}:{self.thread_ts or f'reply-{self.id}'}"


_REPLIES = table_of(SlackReplyRow)
# Built once: every answer runs them, and building one costs more than running it.
_ADD_REPLY = _REPLIES.insert().returning(_REPLIES.c.id)
_THREAD_ANSWERS = (
    select(
        _REPLIES.c.id,
        _REPLIES.c.kind,
        _REPLIES.c.locale,
        _REPLIES.c.user_id,
        _REPLIES.c.channel,
        _REPLIES.c.thread_ts,
        _REPLIES.c.args,
    )
    .where(
        _REPLIES.c.channel == bindparam("p_channel"),
        _REPLIES.c.thread_ts == bindparam("p_thread"),
    )
    .order_by(_REPLIES.c.created_at.desc(), _REPLIES.c.id.desc())
)


def add_reply(
    session: Rows,
    *,
    kind: str,
    locale: str,
    user_id: str,
    channel: str,
    thread_ts: str | None,
    args: dict[str, Any],
    at: datetime,
) -> int:
    """Store a reply errkb is about to post, and give its id (a Core insert: every answer
    writes one)."""
    values = {
        "kind": kind,
        "locale": locale,
        "user_id": user_id,
        "channel": channel,
        "thread_ts": thread_ts,
        "args": args,
        "created_at": at,
    }
    reply_id: int = session.execute(_ADD_REPLY, values).scalar_one()
    return reply_id


def get_reply(session: Session, *, reply_id: int) -> Reply | None:
    row = session.get(SlackReplyRow, reply_id)
    if row is None:
        return None
    return Reply(
        row.id, row.kind, row.locale, row.user_id, row.channel, row.thread_ts, dict(row.args)
    )


def thread_answers(session: Rows, *, channel: str, thread_ts: str) -> list[Reply]:
    """errkb's replies posted in a thread (an answer, candidates, "nothing known"; each
    keeps the ``ts`` Slack gave its post), newest first: what a later mention or look-up
    in the thread is pointed at. A reply stored by an attempt whose post failed is none.
    A Core select: every paste in a thread asks it."""
    rows = session.execute(_THREAD_ANSWERS, {"p_channel": channel, "p_thread": thread_ts})
    return [Reply(*row[:6], dict(row.args)) for row in rows if (row.args or {}).get("ts")]


# -- votes -----------------------------------------------------------------------


@dataclass(frozen=True)
class VoteOutcome:
    previous: str | None  # the user's earlier verdict here, if any
    changed: bool


def _count(session: Session, *, record_id: str, position: int, verdict: str, delta: int) -> None:
    column = WorkaroundRow.fixed_count if verdict == "fixed" else WorkaroundRow.failed_count
    session.execute(
        update(WorkaroundRow)
        .where(WorkaroundRow.record_id == record_id, WorkaroundRow.position == position)
        .values({column.key: column + delta})
    )


def cast_vote(
    session: Session,
    *,
    user_id: str,
    record_id: str,
    position: int,
    thread: str,
    verdict: str,
    at: datetime,
) -> VoteOutcome:
    """Record or change a verdict and move the workaround's counters with it."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
    key = (
        VoteRow.user_id == user_id,
        VoteRow.record_id == record_id,
        VoteRow.position == position,
        VoteRow.thread == thread,
    )
    inserted = insert_ignoring_conflicts(
        session,
        table_of(VoteRow),
        {
            "user_id": user_id,
            "record_id": record_id,
            "position": position,
            "thread": thread,
            "verdict": verdict,
            "created_at": at,
            "updated_at": at,
        },
    )
    if inserted:
        _count(session, record_id=record_id, position=position, verdict=verdict, delta=1)
        return VoteOutcome(previous=None, changed=True)
    # two verdicts: a row that held another one held the other one
    switched = session.execute(
        update(VoteRow)
        .where(*key, VoteRow.verdict != verdict)
        .values(verdict=verdict, updated_at=at)
    )
    if not switched.rowcount:  # type: ignore[attr-defined]
        return VoteOutcome(previous=verdict, changed=False)
    previous = next(v for v in VERDICTS if v != verdict)
    _count(session, record_id=record_id, position=position, verdict=previous, delta=-1)
    _count(session, record_id=record_id, position=position, verdict=verdict, delta=1)
    return VoteOutcome(previous=previous, changed=True)


def record_evidence(
    session: Session, *, record_id: str, actor: str, today: date, at: datetime
) -> bool:
    """Fresh evidence: one more ``evidence_count`` and ``last_confirmed = today``, audited.

    Evidence, not knowledge: the knowledge version stays (no index is rebuilt)."""
    noted = note_evidence(session, record_id=record_id, now=at, confirmed=today, more=1)
    if noted is None:
        return False
    old, new = noted
    add_audit(
        session,
        actor=actor,
        record_id=record_id,
        action="confirm",
        at=at,
        before=_evidence(old),
        after=_evidence(new),
    )
    return True


def _evidence(record: Record) -> dict[str, Any]:
    confirmed = record.last_confirmed
    return {
        "evidence_count": record.evidence_count,
        "last_confirmed": confirmed.isoformat() if confirmed else None,
    }


_RECORDS = table_of(RecordRow).c
# A Core select built once: the ORM's statement setup cost more than the query.
_EVIDENCE = select(_RECORDS.id, _RECORDS.last_confirmed, _RECORDS.evidence_count).where(
    _RECORDS.id.in_(bindparam("p_ids", expanding=True))
)


def with_evidence(session: Rows, *, records: Sequence[Record]) -> list[Record]:
    """``records`` (as indexed) with their evidence as stored now: ``last_confirmed`` and
    ``evidence_count`` move without a knowledge change, so an index holds them stale."""
    ids = sorted({r.id for r in records})
    stored = {
        rid: (confirmed, count)
        for part in chunks(ids)
        for rid, confirmed, count in session.execute(_EVIDENCE, {"p_ids": part})
    }
    out = []
    for record in records:
        now = stored.get(record.id)
        if now is not None and now != (record.last_confirmed, record.evidence_count):
            record = record.model_copy(update={"last_confirmed": now[0], "evidence_count": now[1]})
        out.append(record)
    return out


# -- unknown errors --------------------------------------------------------------


@dataclass(frozen=True)
class UnknownError:
    id: int
    template: str
    sample: str
    count: int
    first_seen: datetime
    last_seen: datetime
    permalinks: tuple[str, ...]
    source: str | None = None  # the app whose alert carried it
    fixed_in_thread: bool = False  # someone marked a reply in one of its threads as the fix

    @property
    def example(self) -> str:
        """A readable example: the first line of a pasted sample (the template masks its values)."""
        lines = [line for line in self.sample.strip().splitlines() if line.strip()]
        return lines[0] if lines else self.template


def _unknown(row: UnknownErrorRow, fixed: bool = False) -> UnknownError:
    return UnknownError(
        row.id,
        row.template,
        row.sample,
        row.count,
        utc(row.first_seen),
        utc(row.last_seen),
        tuple(row.permalinks),
        row.source,
        fixed,
    )


def _fix_found() -> Any:
    """Whether a reply in one of the unknown error's threads was marked as its fix."""
    return exists().where(
        UnknownSightingRow.unknown_id == UnknownErrorRow.id,
        UnknownSightingRow.fix_text.is_not(None),
    )


_UNKNOWN = table_of(UnknownErrorRow)
_SET_PERMALINKS = update(_UNKNOWN).where(_UNKNOWN.c.id == bindparam("p_id"))


@functools.cache
def _unknown_upsert(dialect: str) -> Any:
    """One more sighting of an unknown error (built once per dialect: the statement costs
    more to build than to run, and every paste errkb cannot answer runs it)."""
    table = _UNKNOWN

    def p(name: str, column: str) -> Any:
        return bindparam(name, type_=table.c[column].type)

    at = p("p_at", "last_seen")
    statement = insert(dialect, table).values(
        template_hash=p("p_hash", "template_hash"),
        template=p("p_template", "template"),
        sample=p("p_sample", "sample"),
        count=1,
        first_seen=at,
        last_seen=at,
        permalinks=[],
        source=p("p_source", "source"),
    )
    new = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=[table.c.template_hash],
        set_={
            "count": table.c.count + 1,
            "source": func.coalesce(new.source, table.c.source),
            "last_seen": case(
                (new.last_seen > table.c.last_seen, new.last_seen), else_=table.c.last_seen
            ),
        },
    ).returning(table.c.id, table.c.permalinks)


def note_unknown(
    session: Rows,
    *,
    template: str,
    sample: str,
    permalink: str | None,
    at: datetime,
    channel: str | None = None,
    thread_ts: str | None = None,
    user_id: str | None = None,
    source: str | None = None,
) -> int:
    """Count one more sighting of an unknown error; keeps a few example permalinks, and the
    thread it was pasted in (when it was, and by whom) to tell once a record answers it.
    ``source`` names the app whose monitoring alert carried it."""
    digest = hashlib.sha256(template.encode()).hexdigest()
    found = session.execute(
        _unknown_upsert(dialect_name(session)),
        {
            "p_hash": digest,
            "p_template": template,
            "p_sample": sample[:SAMPLE_CHARS],
            "p_at": at,
            "p_source": source,
        },
    ).one()
    kept = list(found.permalinks or [])
    if permalink and permalink not in kept and len(kept) < KEEP_PERMALINKS:
        # the row is this transaction's until commit (the upsert locked it)
        session.execute(_SET_PERMALINKS, {"p_id": found.id, "permalinks": [*kept, permalink]})
    if channel and thread_ts and user_id:
        note_sighting(
            session,
            unknown_id=int(found.id),
            channel=channel,
            thread_ts=thread_ts,
            user_id=user_id,
            at=at,
        )
    return int(found.id)


def unknown_errors(session: Session, *, limit: int = 10) -> list[UnknownError]:
    """The most common unknown errors, most seen (then most recent) first."""
    stmt = (
        select(UnknownErrorRow, _fix_found().label("fixed"))
        .order_by(
            UnknownErrorRow.count.desc(), UnknownErrorRow.last_seen.desc(), UnknownErrorRow.id
        )
        .limit(limit)
    )
    return [_unknown(row, bool(fixed)) for row, fixed in session.execute(stmt)]


def get_unknown(session: Session, *, unknown_id: int) -> UnknownError | None:
    row = session.get(UnknownErrorRow, unknown_id)
    return None if row is None else _unknown(row)


def find_unknown(session: Session, *, template: str) -> int | None:
    """The unknown error noted with this template, if there is one."""
    digest = hashlib.sha256(template.encode()).hexdigest()
    return session.scalar(select(UnknownErrorRow.id).where(UnknownErrorRow.template_hash == digest))


def record_exists(session: Session, *, record_id: str) -> bool:
    return session.scalar(select(RecordRow.id).where(RecordRow.id == record_id)) is not None


_SET_REPLY_ARGS = update(_REPLIES).where(_REPLIES.c.id == bindparam("p_id"))


def set_reply_args(session: Rows, *, reply_id: int, args: dict[str, Any]) -> None:
    """Change what a stored reply shows (which error, folded or expanded, corrected)."""
    session.execute(_SET_REPLY_ARGS, {"p_id": reply_id, "args": args})


__all__ = [
    "Reply",
    "UnknownError",
    "VoteOutcome",
    "add_reply",
    "cast_vote",
    "choose_locale",
    "chosen_locale",
    "chosen_locales",
    "find_unknown",
    "get_reply",
    "get_unknown",
    "note_unknown",
    "record_evidence",
    "record_exists",
    "set_reply_args",
    "thread_answers",
    "unknown_errors",
    "with_evidence",
    "workaround_counts",
]
