"""Size limits of an import: what no knowledge base needs, refused before it costs memory or time.

A record is a few kilobytes of text nested three or four levels deep. A file
of hundreds of megabytes, a value nested thousands of levels deep (which
makes a recursive parser fail) or a text of megabytes in one field is a
mistake or an attack; each is refused with one line naming the file, the
record and the field. :func:`item_problem` walks one item without recursion,
so it is safe on anything a parser returned.
"""

from __future__ import annotations

from typing import Any

#: One file, after decompression.
MAX_FILE_BYTES = 256 << 20
#: Objects and lists inside one another in one record (a record needs about five).
MAX_DEPTH = 32
#: Characters of one text value (a signature, a root cause, a workaround).
MAX_FIELD_CHARS = 100_000
#: Values in one record, counting every object, list, text and number.
MAX_VALUES = 100_000


def too_big() -> str:
    return f"larger than {MAX_FILE_BYTES >> 20} MiB: split it into several files"


def too_deep() -> str:
    return f"nested more than {MAX_DEPTH} levels deep"


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def item_problem(data: Any) -> tuple[str, str] | None:
    """``(field path, message)`` for the first limit ``data`` exceeds; None when within them."""
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    seen = 0
    while stack:
        path, value, depth = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            return path or "(record)", f"more than {MAX_VALUES:,} values in one record"
        if isinstance(value, str):
            if len(value) > MAX_FIELD_CHARS:
                return path or "(record)", (
                    f"{len(value):,} characters; at most {MAX_FIELD_CHARS:,} are accepted"
                )
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= MAX_DEPTH:
            return path or "(record)", too_deep()
        if isinstance(value, dict):
            children = [(_path(path, str(key)), child) for key, child in value.items()]
        else:
            children = [(_path(path, i), child) for i, child in enumerate(value)]
        stack.extend((where, child, depth + 1) for where, child in reversed(children))
    return None


__all__ = ["MAX_DEPTH", "MAX_FIELD_CHARS", "MAX_FILE_BYTES", "MAX_VALUES", "item_problem"]
