"""Turning files into validated records, with precise errors and no partial results.

``read_records`` reads every path, detects each item's format (native or a
deadends.dev canon, unless forced), validates every item and reports *every*
problem with its file, line or index, record id and field path. Callers write
nothing unless the problem list is empty.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from bot.errors import ImportFailed, Problem
from bot.ingest.deadends import canon_to_native, is_canon
from bot.ingest.limits import item_problem
from bot.ingest.sources import RawItem, expand_paths, read_file
from bot.records import Record, link_target, validation_problems

Format = Literal["auto", "native", "deadends"]


@dataclass
class ReadResult:
    records: list[Record] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # record id → "file:where"
    problems: list[Problem] = field(default_factory=list)


def parse_item(item: RawItem, fmt: Format = "auto") -> tuple[Record | None, list[Problem]]:
    """One raw item as a record, or the problems with it."""
    data = item.data
    if not isinstance(data, dict):
        kind = type(data).__name__
        return None, [
            Problem(item.file, item.where, None, "(record)", f"expected an object, got {kind}")
        ]
    raw_id = data.get("id")
    record_id = raw_id if isinstance(raw_id, str) and 0 < len(raw_id) <= 300 else None
    too_much = item_problem(data)
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
    progress: Callable[[int, int], None] | None = None,
) -> ReadResult:
    """Read and validate everything under ``paths``; never stops at the first problem."""
    files, problems = expand_paths(paths)
    result = ReadResult(problems=problems)
    items: list[RawItem] = []
    for path in files:
        found, file_problems = read_file(path)
        items.extend(found)
        result.problems.extend(file_problems)
    for number, item in enumerate(items, start=1):
        record, item_problems = parse_item(item, fmt)
        result.problems.extend(item_problems)
        if record is not None:
            place = f"{item.file}:{item.where}" if item.where else item.file
            if record.id in result.sources:
                result.problems.append(
                    Problem(item.file, item.where, record.id, "id",
                            f"duplicate id: also defined at {result.sources[record.id]}")
                )  # fmt: skip
            else:
                result.sources[record.id] = place
                result.records.append(record)
        if progress is not None:
            progress(number, len(items))
    return result


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
