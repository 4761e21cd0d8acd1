"""Repository functions for learning from use: errors seen per scope, observed transitions.

:func:`observe_error` records that ``record_id`` was seen in ``scope`` and
upserts the transitions :func:`graph.observe.transitions_for` derives from the
scope's earlier sightings. Observed transitions live apart from curated links
(``links``) and never change them. Keyword-only arguments; nothing commits.
The upsert is ``INSERT … ON CONFLICT DO UPDATE`` (:mod:`bot.store.dialect`).
Observed transitions are evidence: they never move the knowledge version.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, case, select

from bot.store import utc
from bot.store.dialect import insert
from bot.store.tables import observed_transitions, thread_errors
from graph.build import ObservedEdge
from graph.observe import DEFAULT_WINDOW, ObservedTransition, Sighting, transitions_for

if TYPE_CHECKING:
    from bot.store.loading import Rows


# Built once: every answer in a thread runs them, and building one costs more than running it.
_RECORD_SIGHTING = thread_errors.insert()
_SIGHTINGS = (
    select(thread_errors.c.record_id, thread_errors.c.seen_at)
    .where(
        thread_errors.c.scope == bindparam("p_scope"),
        thread_errors.c.seen_at >= bindparam("p_since", type_=thread_errors.c.seen_at.type),
    )
    .order_by(thread_errors.c.seen_at, thread_errors.c.id)
)


def record_sighting(session: Rows, *, scope: str, record_id: str, seen_at: datetime) -> None:
    """Remember that ``record_id`` was seen in ``scope`` at ``seen_at``."""
    session.execute(
        _RECORD_SIGHTING, {"scope": scope, "record_id": record_id, "seen_at": utc(seen_at)}
    )


def sightings(session: Rows, *, scope: str, since: datetime) -> list[Sighting]:
    """What ``scope`` showed at or after ``since``, oldest first."""
    rows = session.execute(_SIGHTINGS, {"p_scope": scope, "p_since": utc(since)})
    return [Sighting(record_id, utc(seen_at)) for record_id, seen_at in rows]


def upsert_transition(session: Rows, *, source_id: str, target_id: str, seen_at: datetime) -> None:
    """Count one more A→B: insert it, or bump its count and widen first/last seen."""
    seen_at = utc(seen_at)
    row = observed_transitions.c
    statement = insert(session, observed_transitions).values(
        source_id=source_id, target_id=target_id, count=1, first_seen=seen_at, last_seen=seen_at
    )
    new = statement.excluded
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[row.source_id, row.target_id],
            set_={
                "count": row.count + 1,
                "first_seen": case(
                    (new.first_seen < row.first_seen, new.first_seen), else_=row.first_seen
                ),
                "last_seen": case(
                    (new.last_seen > row.last_seen, new.last_seen), else_=row.last_seen
                ),
            },
        )
    )


def observe_error(
    session: Rows,
    *,
    scope: str,
    record_id: str,
    seen_at: datetime,
    window: timedelta = DEFAULT_WINDOW,
) -> list[ObservedTransition]:
    """Record a sighting and the transitions it implies; returns those transitions."""
    prior = sightings(session, scope=scope, since=seen_at - window)
    found = transitions_for(prior, Sighting(record_id, utc(seen_at)), window=window)
    for transition in found:
        upsert_transition(
            session,
            source_id=transition.source_id,
            target_id=transition.target_id,
            seen_at=transition.seen_at,
        )
    record_sighting(session, scope=scope, record_id=record_id, seen_at=seen_at)
    return found


def list_observed(
    session: Rows, *, min_count: int = 1, limit: int | None = None
) -> list[ObservedEdge]:
    """Observed transitions, most seen first (then most recent, then ids)."""
    table = observed_transitions
    query = (
        select(
            table.c.source_id,
            table.c.target_id,
            table.c.count,
            table.c.first_seen,
            table.c.last_seen,
        )
        .where(table.c.count >= min_count)
        .order_by(
            table.c.count.desc(), table.c.last_seen.desc(), table.c.source_id, table.c.target_id
        )
    )
    if limit is not None:
        query = query.limit(limit)
    return [
        ObservedEdge(
            source=source,
            target=target,
            count=count,
            first_seen=utc(first_seen),
            last_seen=utc(last_seen),
        )
        for source, target, count, first_seen, last_seen in session.execute(query)
    ]
