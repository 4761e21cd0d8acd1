"""A long paste, read where its errors are. Pure.

Logs put their error anywhere: a crash at the end, the root cause in the
middle, a failed start at the head. A paste over the read limit keeps, in
paste order and within the limit:

- its head (:data:`HEAD_SHARE` of the limit) and its tail (:data:`TAIL_SHARE`);
- every *strong* error line (an exception type, ``Traceback``, ``Caused by:``,
  ``panic:``, ``FATAL`` …) with :data:`STRONG_BEFORE` lines before it (a
  traceback's frames) and :data:`STRONG_AFTER` after it (a Java stack), then
  the *weak* ones (``failed``, ``refused``, ``timed out`` …) with a line or two
  around them, while the limit allows. Lines that repeat with only their
  numbers changed (a retry loop, a warning per step) count once: their first
  and their last occurrence are kept, so a thousand identical warnings cannot
  push out the one exception. The last error lines of each strength go first:
  a log's final error is usually the one it died of.

What the limit still allows after that goes to more of the tail. Error lines are found by two linear
RE2 passes over the paste's UTF-8 bytes (one per strength) and line numbers by numpy over the
newline positions: no Python loop runs per line, only per error line found, and those passes stop
after :data:`MAX_HITS` lines each. A kept line longer than :data:`LINE_CHARS`
is cut around its error word.

:class:`Excerpt` carries the kept text and where each of its runs of lines
starts in the paste, so every line number errkb reports is the paste's own
(:meth:`Excerpt.line`), and what was skipped can be said (:attr:`Excerpt.skipped`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np
import re2

from bot.match.re2util import Finder, either, finder

HEAD_SHARE = 0.1
TAIL_SHARE = 0.25
STRONG_BEFORE = 24
STRONG_AFTER = 8
WEAK_AROUND = 2
LINE_CHARS = 2_000
MAX_HITS = 20_000
#: the start of a repeated line that tells its occurrences apart (after digits are dropped)
REPEAT_KEY = 160

#: a line that can hold an error (the words extract's roles are built on)
ERRORISH = re2.compile(
    r"(?i)error|exception|fatal|panic|caused by|failed|denied|refused|traceback"
    r"|cannot|unable|not found|timed out|killed|abort|错误|失败|异常"
)
#: a line that announces an error outright: an exception type, a traceback, a chain, a panic
_STRONG = re2.compile(
    r"[A-Z]\w*(?:Error|Exception|Fault|Failure)\b|Traceback \(most recent|Caused by:|panic:"
    r"|\bFATAL\b|(?i:fatal error)|error\[E\d+\]|\bERROR\b|npm ERR!|Exception in thread|错误|异常"
)
_find_weak = finder(ERRORISH)
_find_strong = finder(_STRONG)
#: a line an excerpt keeps for its error, strong or weak, as one pattern
ERROR_LINE = either(_STRONG, ERRORISH)


_DIGITS = b"0123456789"


@dataclass(frozen=True)
class Skipped:
    """What reading a long paste skipped: the paste's size, and how many lines were read."""

    chars: int
    lines: int
    read: int


@dataclass(frozen=True)
class Excerpt:
    """What is read of a paste: ``text``, and where its runs of lines come from.

    ``runs`` holds, for each run of consecutive paste lines kept, its first line number
    in ``text`` and in the paste (both 1-based); it is empty when the paste is read
    whole. ``chars`` and ``lines`` are the paste's own size.
    """

    text: str
    chars: int
    lines: int
    runs: tuple[tuple[int, int], ...] = ()

    @classmethod
    def whole(cls, text: str) -> Excerpt:
        return cls(text, len(text), text.count("\n") + 1)

    @property
    def cut(self) -> bool:
        """Whether lines of the paste were skipped."""
        return bool(self.runs)

    @property
    def skipped(self) -> Skipped | None:
        """What was skipped, or None when the paste was read whole."""
        return Skipped(self.chars, self.lines, self.read_lines) if self.runs else None

    @property
    def read_lines(self) -> int:
        return self.text.count("\n") + 1 if self.runs else self.lines

    def line(self, no: int) -> int:
        """The paste's line number of line ``no`` of :attr:`text`."""
        if not self.runs:
            return no
        at = bisect_right(self.runs, (no, self.lines + 1)) - 1
        first, origin = self.runs[max(at, 0)]
        return origin + no - first

    def within(self, limit: int) -> Excerpt:
        """This excerpt read again within ``limit``, its line numbers still the paste's."""
        if len(self.text) <= limit:
            return self
        inner = excerpt(self.text, limit)
        runs: list[tuple[int, int]] = []
        for i, (first, origin) in enumerate(inner.runs):
            end = inner.runs[i + 1][0] if i + 1 < len(inner.runs) else inner.read_lines + 1
            for no in range(first, end):  # a run of the inner excerpt may span outer runs
                mapped = self.line(origin + no - first)
                if not runs or mapped != runs[-1][1] + no - runs[-1][0]:
                    runs.append((no, mapped))
        return Excerpt(inner.text, self.chars, self.lines, tuple(runs))


def _hits(data: bytes, find: Finder, cap: int) -> list[int]:
    """Byte offsets of the first match on each line that has one (at most ``cap``)."""
    found: list[int] = []
    pos = 0
    while len(found) < cap:
        span = find(data, pos)
        if span is None:
            break
        found.append(span[0])
        end = data.find(b"\n", span[1])
        if end < 0:
            break
        pos = end + 1
    return found


def _clip(data: bytes, start: int, end: int, hit: int | None) -> bytes:
    if end - start <= LINE_CHARS:
        return data[start:end]
    if hit is None:
        half = LINE_CHARS // 2
        return data[start : start + half] + " … ".encode() + data[end - half : end]
    left = max(start, hit - LINE_CHARS // 4)
    return data[left : min(end, left + LINE_CHARS)]


def excerpt(paste: str, limit: int) -> Excerpt:
    """``paste`` whole when it fits in ``limit`` characters; otherwise its head, its tail
    and its error lines with their context, in paste order (see the module docstring)."""
    if len(paste) <= limit:
        return Excerpt.whole(paste)
    data = paste.encode("utf-8", "surrogatepass")
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    count = len(newlines) + 1
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(data)]))
    sizes = np.minimum(ends - starts, LINE_CHARS + 8) + 1

    kept: dict[int, int | None] = {}  # line index -> the byte offset of its error word
    budget = limit
    size_of = sizes.tolist()

    def take(index: int, hit: int | None = None) -> bool:
        nonlocal budget
        if index in kept:
            if hit is not None and kept[index] is None:
                kept[index] = hit
            return True
        if size_of[index] > budget:
            return False
        kept[index] = hit
        budget -= size_of[index]
        return True

    head = int(np.searchsorted(np.cumsum(sizes), limit * HEAD_SHARE, side="right"))
    tail_sizes = np.cumsum(sizes[::-1])
    tail = int(np.searchsorted(tail_sizes, limit * TAIL_SHARE, side="right"))
    for index in range(max(head, 1)):
        take(index)
    for index in range(count - max(tail, 1), count):
        take(index)

    seen: dict[bytes, int] = {}
    for find, before, after in (
        (_find_strong, STRONG_BEFORE, STRONG_AFTER),
        (_find_weak, WEAK_AROUND, WEAK_AROUND),
    ):
        offsets = _hits(data, find, MAX_HITS)
        found = np.searchsorted(newlines, offsets) if offsets else np.zeros(0, dtype=np.int64)
        lines = found.tolist()
        key_starts = starts[found]
        key_ends = np.minimum(ends[found], key_starts + REPEAT_KEY).tolist()
        firsts: list[tuple[int, int]] = []
        lasts: dict[bytes, tuple[int, int]] = {}
        for index, offset, start, end in zip(
            lines, offsets, key_starts.tolist(), key_ends, strict=True
        ):
            key = data[start:end].translate(None, _DIGITS)
            if key not in seen:
                seen[key] = index
                firsts.append((index, offset))
            elif seen[key] != index:
                lasts[key] = (index, offset)
        # the last of each strength first: a log's final error is the one it died of
        for index, offset in [*reversed(firsts), *lasts.values()]:
            if not take(index, offset):
                continue
            for around in range(index - 1, max(index - before, 0) - 1, -1):
                if around not in kept and not take(around):
                    break
            for around in range(index + 1, min(index + after, count - 1) + 1):
                if around not in kept and not take(around):
                    break
        if budget <= 0:
            break
    for index in range(count - max(tail, 1) - 1, -1, -1):  # what the limit still allows: more tail
        if not take(index):
            break

    order = sorted(kept)
    text_lines: list[str] = []
    runs: list[tuple[int, int]] = []
    for no, index in enumerate(order, 1):
        if not runs or index != order[no - 2] + 1:
            runs.append((no, index + 1))
        piece = _clip(data, int(starts[index]), int(ends[index]), kept[index])
        text_lines.append(piece.decode("utf-8", "replace"))
    text = "\n".join(text_lines)
    return Excerpt(text, len(paste), count, tuple(runs))


__all__ = ["ERRORISH", "ERROR_LINE", "Excerpt", "Skipped", "excerpt"]
