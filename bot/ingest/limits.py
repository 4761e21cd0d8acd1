"""Limits of an import: what no knowledge base needs, refused before it costs memory or time.

A record is a few kilobytes of text nested three or four levels deep. A file
of hundreds of megabytes, a value nested thousands of levels deep (which
makes a recursive parser fail) or a text of megabytes in one field is a
mistake or an attack; each is refused with one line naming the file, the
record and the field.

Bytes alone bound nothing: a quarter of a megabyte of gzip unpacks to tens of
millions of ``{}`` lines or zeros, and a YAML alias repeats a whole list
wherever it is named. So the work is bounded too, counted as it is read:
items in one file (:data:`MAX_FILE_ITEMS`), values in one record
(:data:`MAX_VALUES`) and values in one import (:data:`MAX_IMPORT_VALUES`),
where a YAML alias counts every value it repeats. A reader stops at the first
limit it crosses, so a bomb costs what the limit allows and no more.
:func:`item_problem` walks one item without recursion, so it is safe on
anything a parser returned.
"""

from __future__ import annotations

from typing import Any

#: One file, after decompression.
MAX_FILE_BYTES = 256 << 20
#: Characters of one record's source text (a JSON line, an element of a JSON array).
MAX_RECORD_CHARS = 16 << 20
#: Objects and lists inside one another in one record (a record needs about five).
MAX_DEPTH = 32
#: Characters of one text value (a signature, a root cause, a workaround).
MAX_FIELD_CHARS = 100_000
#: Values in one record, counting every object, list, text and number.
MAX_VALUES = 100_000
#: Items (records, or whatever a file lists) in one file.
MAX_FILE_ITEMS = 500_000
#: Values in one import, over every file; a YAML alias counts the values it repeats.
MAX_IMPORT_VALUES = 20_000_000
#: Problems listed per file; the rest are counted in one more line.
MAX_FILE_PROBLEMS = 1_000


def too_big() -> str:
    return f"larger than {MAX_FILE_BYTES >> 20} MiB: split it into several files"


def too_deep() -> str:
    return f"nested more than {MAX_DEPTH} levels deep"


def too_long() -> str:
    return f"a record longer than {MAX_RECORD_CHARS >> 20} MiB of text"


def too_many_items() -> str:
    return f"more than {MAX_FILE_ITEMS:,} items in one file: split it into several files"


def too_many_values(aliases: bool = False) -> str:
    counted = ", counting every value a YAML alias repeats" if aliases else ""
    return f"more than {MAX_IMPORT_VALUES:,} values in one import{counted}: import fewer at a time"


def too_many_record_values(aliases: bool = False) -> str:
    counted = ", counting every value a YAML alias repeats" if aliases else ""
    return f"more than {MAX_VALUES:,} values in one record{counted}"


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def count_values(data: Any) -> tuple[int, tuple[str, str] | None]:
    """How many values ``data`` holds, and ``(field path, message)`` for the first limit it
    exceeds (None when within them); the walk stops at that limit."""
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    seen = 0
    while stack:
        path, value, depth = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            return seen, (path or "(record)", too_many_record_values())
        if isinstance(value, str):
            if len(value) > MAX_FIELD_CHARS:
                return seen, (
                    path or "(record)",
                    (f"{len(value):,} characters; at most {MAX_FIELD_CHARS:,} are accepted"),
                )
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= MAX_DEPTH:
            return seen, (path or "(record)", too_deep())
        if isinstance(value, dict):
            children = [(_path(path, str(key)), child) for key, child in value.items()]
        else:
            children = [(_path(path, i), child) for i, child in enumerate(value)]
        stack.extend((where, child, depth + 1) for where, child in reversed(children))
    return seen, None


def item_problem(data: Any) -> tuple[str, str] | None:
    """``(field path, message)`` for the first limit ``data`` exceeds; None when within them."""
    return count_values(data)[1]


__all__ = [
    "MAX_DEPTH",
    "MAX_FIELD_CHARS",
    "MAX_FILE_BYTES",
    "MAX_FILE_ITEMS",
    "MAX_FILE_PROBLEMS",
    "MAX_IMPORT_VALUES",
    "MAX_RECORD_CHARS",
    "MAX_VALUES",
    "count_values",
    "item_problem",
]
