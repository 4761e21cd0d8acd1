"""Reading whole records: one query per table, however many records.

A record is a ``records`` row plus its translations, workarounds, dead ends
and links. :func:`load_records` reads each table once (in chunks of ids when
only some records are wanted, with the records' own filter when one domain
is), only the columns a record is built from, groups the child rows by
record in Python and builds the records without validating them again
(:func:`trusted_record`: the store only holds records that were validated on
their way in). Everything here reads plain rows of the Core tables, through
a session or a bare connection (``Store.read_rows()``, which ``errkb triage``
uses so that it never loads the ORM).

A load skips the work it need not do: validating again would compile every
regex once more, so records are trusted; pydantic would parse a default's
signature for each one it fills in, so :func:`~bot.store.convert.trusted_record`
fills them in itself; the cyclic collector would walk the new records again and
again, so it is held off while they are built; each result is fetched whole as
plain tuples, not row by row. ``benchmarks/bench_load.py`` prints the figures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Select, Table, bindparam, select

from bot.collector import collector_off
from bot.records import Record
from bot.store import tables
from bot.store.convert import READ_COLUMNS, record_data, trusted_record

if TYPE_CHECKING:
    from sqlalchemy import Connection
    from sqlalchemy.orm import Session

    #: Where rows are read from: a session, or a connection (``Store.read_rows()``).
    Rows = Session | Connection

CHUNK = 900  # ids per IN (...): under SQLite's old 999-parameter limit
#: The child tables: (table, the column naming the record, the order within a record).
CHILDREN: tuple[tuple[Table, str, tuple[str, ...]], ...] = (
    (tables.record_translations, "record_id", ("locale", "field")),
    (tables.workarounds, "record_id", ("position",)),
    (tables.dead_ends, "record_id", ("position",)),
    (tables.links, "source_id", ("kind", "position")),
)


def chunks(ids: Sequence[str], size: int = CHUNK) -> Iterable[Sequence[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _dicts(session: Rows, stmt: Select[Any]) -> list[dict[str, Any]]:
    result = session.execute(stmt)
    keys = list(result.keys())
    return [dict(zip(keys, row, strict=True)) for row in result.all()]


def _read(table: Table) -> list[Column[Any]]:
    return [table.c[name] for name in READ_COLUMNS[table.name]]


def _where_ids(stmt: Select[Any], column: Column[Any], ids: list[str] | None) -> list[Select[Any]]:
    if ids is None:
        return [stmt]
    return [stmt.where(column.in_(chunk)) for chunk in chunks(ids)]


def load_records(
    session: Rows,
    *,
    domain: str | None = None,
    ids: Iterable[str] | None = None,
    include_deprecated: bool = True,
) -> list[Record]:
    """Records (all, one domain, or the given ids) with everything they carry, ordered by id.

    ``include_deprecated=False`` leaves out what maintainers deprecated: what
    matching should offer.
    """
    table = tables.records
    stmt = select(*_read(table)).order_by(table.c.id)
    # the children of the records read: of every record (one scan), of one domain's (the
    # same filter, as a subquery), or of the given ids (in chunks, as the records are read)
    chosen: Select[Any] | None = None
    if domain is not None:
        stmt = stmt.where(table.c.domain == domain)
        chosen = select(table.c.id).where(table.c.domain == domain)
    if not include_deprecated:
        state = tables.record_state
        deprecated = select(state.c.record_id).where(state.c.deprecated_at.is_not(None))
        stmt = stmt.where(table.c.id.not_in(deprecated))
    wanted = None if ids is None else sorted(set(ids))
    with collector_off():
        rows = [
            row for part in _where_ids(stmt, table.c.id, wanted) for row in _dicts(session, part)
        ]
        if not rows:
            return []
        found = None
        if wanted is not None:
            rows.sort(key=lambda r: r["id"])
            found = [r["id"] for r in rows]
        children = [
            _children(session, child, key, order, ids=found, chosen=chosen)
            for child, key, order in CHILDREN
        ]
        empty: list[dict[str, Any]] = []
        return [
            trusted_record(
                record_data(row, *(rows_of.get(row["id"], empty) for rows_of in children))
            )
            for row in rows
        ]


def _children(
    session: Rows,
    table: Table,
    key: str,
    order: tuple[str, ...],
    *,
    ids: list[str] | None,
    chosen: Select[Any] | None,
) -> dict[str, list[dict[str, Any]]]:
    """``table``'s rows by record: of ``ids``, else of the records ``chosen`` selects, else all."""
    stmt = select(table.c[key], *_read(table)).order_by(
        table.c[key], *(table.c[name] for name in order)
    )
    if ids is None and chosen is not None:
        stmt = stmt.where(table.c[key].in_(chosen))
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for part in _where_ids(stmt, table.c[key], ids):
        for row in _dicts(session, part):
            grouped[row[key]].append(row)
    return grouped


def get_record(session: Rows, *, record_id: str) -> Record | None:
    found = load_records(session, ids=[record_id])
    return found[0] if found else None


_WORKAROUNDS = tables.workarounds.c
# Built once: every answer asks it, and building it costs more than running it.
_WORKAROUND_COUNTS = select(
    _WORKAROUNDS.record_id,
    _WORKAROUNDS.position,
    _WORKAROUNDS.fixed_count,
    _WORKAROUNDS.failed_count,
).where(_WORKAROUNDS.record_id.in_(bindparam("p_ids", expanding=True)))


def workaround_counts(
    session: Rows, *, record_ids: Iterable[str]
) -> dict[tuple[str, int], tuple[int, int]]:
    """``(record id, position) → (fixed, failed)`` for workarounds anyone voted on."""
    ids = sorted(set(record_ids))
    if not ids:
        return {}
    return {
        (rid, pos): (fixed, failed)
        for rid, pos, fixed, failed in session.execute(_WORKAROUND_COUNTS, {"p_ids": ids})
        if fixed or failed
    }
