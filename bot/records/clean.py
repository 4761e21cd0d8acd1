"""Text as Slack and every database accept it: no NUL, no lone surrogate.

JSON can carry both (``\\u0000``, ``\\ud800``) and Python strings hold them,
but PostgreSQL refuses a NUL in a text or JSON value, and neither SQLite's
nor PostgreSQL's driver (nor a JSON writer asked for UTF-8) can encode a
lone surrogate. So text is cleaned where it comes in (Slack payloads, records,
search words), the same way whatever the database: a NUL is dropped (it
carries no meaning in an error message, and a log padded with NULs stays
readable) and a lone surrogate becomes U+FFFD, the replacement character,
as a decoder does with bytes it cannot read. A surrogate pair written as two
JSON escapes is decoded by the JSON reader into one character, which stays.
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
_UNFIT = re.compile("[\x00\ud800-\udfff]")


def _fix(found: re.Match[str]) -> str:
    return "" if found.group() == "\x00" else REPLACEMENT


def clean_text(text: str) -> str:
    """``text`` without NUL and with each lone surrogate as U+FFFD (itself when already fit)."""
    return _UNFIT.sub(_fix, text) if _UNFIT.search(text) else text


def clean_value(value: Any) -> Any:
    """``value`` with every text in it (dict keys too) cleaned by :func:`clean_text`: the
    value itself when nothing needs it (the common case, checked first), else a copy (the
    input is never changed). Walks without recursion, so any depth a parser returned is fine."""
    if isinstance(value, str):
        return clean_text(value)
    if not isinstance(value, dict | list) or not _needs_cleaning(value):
        return value
    top: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, top)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, child in pairs:
            if isinstance(child, dict | list):
                fixed: Any = {} if isinstance(child, dict) else []
                stack.append((child, fixed))
            else:
                fixed = clean_text(child) if isinstance(child, str) else child
            if isinstance(target, dict):
                target[clean_text(key) if isinstance(key, str) else key] = fixed
            else:
                target.append(fixed)
    return top


def _needs_cleaning(value: dict[Any, Any] | list[Any]) -> bool:
    stack: list[Any] = [value]
    while stack:
        container = stack.pop()
        children = (
            list(container.keys()) + list(container.values())
            if isinstance(container, dict)
            else container
        )
        for child in children:
            if isinstance(child, str):
                if _UNFIT.search(child):
                    return True
            elif isinstance(child, dict | list):
                stack.append(child)
    return False
