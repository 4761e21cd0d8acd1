"""Yes/no and span searches with compiled RE2 patterns on UTF-8 bytes, and patterns joined
into one pass (:func:`either`).

The public ``re2`` API re-encodes the text and builds a match object on every
call, which costs more than the match itself on a short line. These helpers
call the compiled RE2 object directly when the binding exposes it, and fall
back to the public API when it does not.
"""

from __future__ import annotations

from collections.abc import Callable

import re2

Matcher = Callable[[bytes], bool]


def matcher(regex: re2._Regexp) -> Matcher:
    """A yes/no test of UTF-8 bytes."""
    raw = getattr(regex, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is None or anchor is None:
        return lambda data: regex.search(data) is not None
    no_match = (-1, -1)
    match = raw.Match
    return lambda data: match(anchor, data, 0, len(data))[0] != no_match


def either(*regexes: re2._Regexp) -> re2._Regexp:
    """One RE2 pattern that matches where any of ``regexes`` does, each keeping its own
    flags (a leading ``(?i)`` becomes a group's): one linear pass instead of one each."""
    groups = (
        f"(?i:{r.pattern[4:]})" if r.pattern.startswith("(?i)") else f"(?:{r.pattern})"
        for r in regexes
    )
    return re2.compile("|".join(groups))


Finder = Callable[[bytes, int], "tuple[int, int] | None"]


def finder(regex: re2._Regexp) -> Finder:
    """The span of the first match in UTF-8 bytes at or after a position, or None."""
    raw = getattr(regex, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is None or anchor is None:

        def search(data: bytes, pos: int) -> tuple[int, int] | None:
            found = regex.search(data, pos)
            return found.span() if found else None

        return search
    no_match = (-1, -1)
    match = raw.Match

    def find(data: bytes, pos: int) -> tuple[int, int] | None:
        span: tuple[int, int] = match(anchor, data, pos, len(data))[0]
        return None if span == no_match else span

    return find
