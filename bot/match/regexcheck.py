"""Whether errkb can match a record regex: RE2 must compile it, with the index's options.

errkb matches every record regex with RE2, in time linear in the line, so no
paste can make a regex run away. RE2 leaves out what needs backtracking
(lookarounds, backreferences, atomic groups, possessive quantifiers): a
record using them is refused at import and in the add-record modal, with the
reason, by :func:`regex_problem` (the :class:`~bot.records.Record` model's
regex validator calls it, so every path that makes a record is covered).
"""

from __future__ import annotations

import re

import re2

#: RE2's memory budget for one compiled record regex (the index uses the same).
MAX_MEM = 8 << 20
WHY = "errkb matches with RE2, in linear time"

#: (what in the pattern, what it is): constructs RE2 refuses, for a message that names them.
_UNSUPPORTED = (
    (re.compile(r"\(\?<?[=!]"), None),  # told apart below: lookahead or lookbehind
    (re.compile(r"\(\?P=\w+\)|\\k<\w+>|\\[1-9]"), "a backreference"),
    (re.compile(r"\(\?>"), "an atomic group (?>...)"),
    (re.compile(r"(?<!\\)[*+?}]\+"), "a possessive quantifier such as a*+"),
    (re.compile(r"\(\?\("), "a conditional group (?(...)...)"),
    (re.compile(r"\\Z"), r"\Z (RE2 writes the end of the text as \z)"),
)


def re2_options(max_mem: int = MAX_MEM) -> re2.Options:
    """RE2 options of every record regex: case-insensitive, within ``max_mem`` bytes."""
    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = max_mem
    options.log_errors = False
    return options


def _unsupported(pattern: str) -> str | None:
    """The first construct of ``pattern`` RE2 does not support, named for a person."""
    body = re.sub(r"\\\\", "", pattern)  # an escaped backslash starts no construct
    for finder, what in _UNSUPPORTED:
        found = finder.search(body)
        if found is None:
            continue
        if what is None:
            what = "a lookbehind" if found.group().startswith("(?<") else "a lookahead"
            what += f" {found.group()}...)"
        return what
    return None


def regex_problem(pattern: str) -> str | None:
    """Why errkb cannot match with ``pattern``, in one sentence; None when it can."""
    try:
        re2.compile(pattern, re2_options())
    except Exception as exc:  # noqa: BLE001 - RE2 raises its own error type, or a plain one
        what = _unsupported(pattern)
        if what is not None:
            return f"{what} is not supported: {WHY}"
        raw = exc.args[0] if exc.args else ""
        message = (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)).strip()
        message = message or type(exc).__name__
        if "too large" in message or "too big" in message:
            return f"too large to compile within errkb's {MAX_MEM >> 20} MiB regex budget"
        return f"expected a valid regular expression: {message}"
    return None


__all__ = ["MAX_MEM", "re2_options", "regex_problem"]
