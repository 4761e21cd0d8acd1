"""Turning files into validated records, with precise errors and no partial results.

``read_records`` reads every path, detects each item's format (native or a
deadends.dev canon, unless forced), validates every item and reports *every*
problem with its file, line or index, record id and field path (up to
:data:`~bot.ingest.limits.MAX_FILE_PROBLEMS` a file, then how many more).
Callers write nothing unless the problem list is empty.

Items are validated as they are read, so memory holds the valid records, not
the files. A file that crosses a limit of :mod:`bot.ingest.limits` is
refused in one line (its :class:`~bot.ingest.sources.Refusal`), which
replaces whatever else was found in it; the values of every item count
towards the import's limit, and the first file past it is the one refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from bot.errors import ImportFailed, Problem
from bot.ingest.deadends import canon_to_native, is_canon
from bot.ingest.limits import (
    MAX_FILE_PROBLEMS,
    MAX_IMPORT_VALUES,
    count_values,
    too_many_values,
)
from bot.ingest.sources import RawItem, Refusal, expand_paths, read_file
from bot.records import Record, link_target, validation_problems

Format = Literal["auto", "native", "deadends"]


@dataclass
class ReadResult:
    records: list[Record] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # record id → "file:where"
    problems: list[Problem] = field(default_factory=list)


def parse_item(item: RawItem, fmt: Format = "auto") -> tuple[Record | None, list[Problem]]:
    """One raw item as a record, or the problems with it."""
    return _parse(item, fmt, count_values(item.data)[1])


def _parse(
    item: RawItem, fmt: Format, too_much: tuple[str, str] | None
) -> tuple[Record | None, list[Problem]]:
    data = item.data
    if not isinstance(data, dict):
        kind = type(data).__name__
        return None, [
            Problem(item.file, item.where, None, "(record)", f"expected an object, got {kind}")
        ]
    raw_id = data.get("id")
    record_id = raw_id if isinstance(raw_id, str) and 0 < len(raw_id) <= 300 else None
    if too_much is not None:
        return None, [Problem(item.file, item.where, record_id, *too_much)]
    if fmt == "deadends" or (fmt == "auto" and is_canon(data)):
        data = canon_to_native(data)
    try:
        return Record.model_validate(data), []
    except ValidationError as exc:
        return None, [
            Problem(item.file, item.where, record_id, path, message)
            for path, message in validation_problems(exc)
        ]


def read_records(
    paths: list[Path],
    fmt: Format = "auto",
    progress: Callable[[int, int | None], None] | None = None,
) -> ReadResult:
    """Read and validate everything under ``paths``; never stops at the first problem
    (but at the first limit: a file past one is refused whole, in one line)."""
    files, problems = expand_paths(paths)
    result = ReadResult(problems=problems)
    values_left = MAX_IMPORT_VALUES
    number = 0
    for path in files:
        file = ReadResult()
        more = 0
        unchecked = 0
        refusal = None
        for thing in read_file(path, values_left=values_left):
            if isinstance(thing, Refusal):
                refusal = thing
                break
            if isinstance(thing, Problem):
                item_problems = [thing]
            else:
                number += 1
                values, too_much = count_values(thing.data)
                values_left -= values
                if values_left < 0:
                    refusal = Refusal(thing.file, thing.where, None, "(file)", too_many_values())
                    break
                if len(file.problems) >= MAX_FILE_PROBLEMS:  # failed anyway: count, do not check
                    unchecked += 1
                    continue
                record, item_problems = _parse(thing, fmt, too_much)
                if record is not None:
                    item_problems += _keep(result, file, thing, record)
            room = max(0, MAX_FILE_PROBLEMS - len(file.problems))
            file.problems.extend(item_problems[:room])
            more += len(item_problems) - min(room, len(item_problems))
            if progress is not None:
                progress(number, None)
        if refusal is not None:
            result.problems.append(refusal)
            continue
        result.records.extend(file.records)
        result.sources.update(file.sources)
        result.problems.extend(file.problems)
        if more or unchecked:
            result.problems.append(Problem(str(path), "", None, "(file)", _untold(more, unchecked)))
    return result


def _untold(more: int, unchecked: int) -> str:
    told = [f"{more:,} more problems not listed"] if more else []
    if unchecked:
        told.append(f"{unchecked:,} more items not checked after {MAX_FILE_PROBLEMS:,} problems")
    return "; ".join(told)


def _keep(result: ReadResult, file: ReadResult, item: RawItem, record: Record) -> list[Problem]:
    """Keep ``record`` (read in ``file``) unless its id is taken; the problem when it is."""
    place = f"{item.file}:{item.where}" if item.where else item.file
    other = result.sources.get(record.id) or file.sources.get(record.id)
    if other is not None:
        return [
            Problem(
                item.file, item.where, record.id, "id", f"duplicate id: also defined at {other}"
            )
        ]
    file.sources[record.id] = place
    file.records.append(record)
    return []


def load_records(paths: list[Path], fmt: Format = "auto") -> list[Record]:
    """Every record under ``paths``, or :class:`ImportFailed` listing every problem."""
    result = read_records(paths, fmt)
    if result.problems:
        raise ImportFailed(result.problems)
    return result.records


def dangling_links(records: list[Record], known_ids: set[str]) -> list[tuple[str, str, str]]:
    """``(source, kind, target)`` for links whose target is neither in ``records`` nor known."""
    ids = known_ids | {r.id for r in records}
    return [
        (record.id, kind, link_target(item))
        for record in records
        for kind, item in record.links()
        if link_target(item) not in ids
    ]
