"""Reading record files: JSON (one object or an array), JSONL, YAML, and ``.gz`` of each.

Every item read keeps where it came from (file and line or index), so a
problem can be reported precisely. Nothing here knows record formats.

Files are read as streams, an item at a time, never as one whole text: a JSON
line or an element of a JSON array is decoded on its own (at most
:data:`~bot.ingest.limits.MAX_RECORD_CHARS`), and a file stops at the first
limit it crosses (bytes after decompression, items, nesting, values). A YAML
document is composed only after its parser events have been counted with
every alias expanded, so an alias bomb is refused before it is built. A limit
crossed ends the file with one :class:`Refusal`, which stands for the whole
file.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import yaml

from bot.errors import Problem
from bot.ingest.limits import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_FILE_ITEMS,
    MAX_IMPORT_VALUES,
    MAX_RECORD_CHARS,
    MAX_VALUES,
    too_big,
    too_deep,
    too_long,
    too_many_items,
    too_many_record_values,
    too_many_values,
)

SUFFIXES = (".json", ".jsonl", ".ndjson", ".yaml", ".yml")
CHUNK = 1 << 20
_NOT_SPACE = re.compile(r"[^ \t\r\n]")
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # to build
_Parser: Any = yaml.SafeLoader  # to count: its events come as it reads, libyaml scans ahead


@dataclass(frozen=True)
class RawItem:
    file: str
    where: str  # "line 3", "index 0", "document 2" or ""
    data: Any


@dataclass(frozen=True)
class Refusal(Problem):
    """A limit the file crossed: reading stopped there, and this one line stands for the file."""


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return suffix.lstrip(".")
    return ""


def expand_paths(paths: list[Path]) -> tuple[list[Path], list[Problem]]:
    """Files named directly, plus record files found under named folders (sorted)."""
    files: list[Path] = []
    problems: list[Problem] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and _kind(p))
            if not found:
                problems.append(Problem(str(path), "", None, "(file)", "no record files here"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(Problem(str(path), "", None, "(file)", "no such file or folder"))
    return files, problems


class _TooBig(Exception):
    def __init__(self) -> None:
        super().__init__(too_big())


class _Bounded(io.RawIOBase):
    """A binary stream that raises :class:`_TooBig` once more than :data:`MAX_FILE_BYTES`
    have been read from it."""

    def __init__(self, inner: IO[bytes]) -> None:
        self.inner = inner
        self.taken = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        self.taken += len(data)
        if self.taken > MAX_FILE_BYTES:
            raise _TooBig
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.inner.close()
        super().close()


def _open(path: Path) -> io.TextIOWrapper:
    raw: Any = gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")
    return io.TextIOWrapper(io.BufferedReader(_Bounded(raw), CHUNK), encoding="utf-8-sig")


def read_file(path: Path, *, values_left: int = MAX_IMPORT_VALUES) -> Iterator[RawItem | Problem]:
    """The items of one file as they are read, and the problems met on the way; a
    :class:`Refusal`, when one comes, is the last thing yielded. ``values_left``: what the
    import may still read (a YAML file counts its values before it is built)."""
    name = str(path)
    kind = _kind(path)
    items = 0
    try:
        with _open(path) as opened:
            stream: IO[str] = opened
            if kind not in ("yaml", "yml"):
                head = stream.read(CHUNK)
                if not head.strip() and len(head) < CHUNK:  # the whole file, and nothing in it
                    yield Problem(name, "", None, "(file)", "the file is empty: no records in it")
                    return
                kind = sniff_kind(kind, head)
                stream = cast(IO[str], _Prefixed(head, opened))  # read once: no seeking back
            if kind in ("jsonl", "ndjson"):
                found = _read_jsonl(name, stream)
            elif kind in ("yaml", "yml"):
                found = _read_yaml(name, stream, values_left)
            else:
                found = _read_json(name, stream)
            for thing in found:
                if isinstance(thing, RawItem):
                    items += 1
                    if items > MAX_FILE_ITEMS:
                        yield Refusal(name, "", None, "(file)", too_many_items())
                        return
                yield thing
    except _TooBig as exc:
        yield Refusal(name, "", None, "(file)", str(exc))
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        yield Refusal(name, "", None, "(file)", f"cannot read: {' '.join(str(exc).split())}")


class _Prefixed:
    """``head``, already read from ``rest``, then the rest of ``rest``: what the readers
    use of a text stream (``read`` and ``readline``)."""

    def __init__(self, head: str, rest: IO[str]) -> None:
        self.head = head
        self.rest = rest

    def read(self, size: int | None = -1) -> str:
        if size is None or size < 0:
            out, self.head = self.head + self.rest.read(), ""
            return out
        if len(self.head) >= size:
            out = self.head[:size]
            self.head = self.head[size:]
            return out
        out = self.head
        self.head = ""
        return out + self.rest.read(size - len(out))

    def readline(self, size: int | None = -1) -> str:
        limit = -1 if size is None else size
        end = self.head.find("\n")
        if end >= 0 and (limit < 0 or end + 1 <= limit):
            out = self.head[: end + 1]
            self.head = self.head[end + 1 :]
            return out
        if limit >= 0 and len(self.head) >= limit:
            out = self.head[:limit]
            self.head = self.head[limit:]
            return out
        out = self.head
        self.head = ""
        return out + self.rest.readline(-1 if limit < 0 else limit - len(out))


def sniff_kind(kind: str, head: str) -> str:
    """JSON or JSON lines by what the file's first chunk ``head`` holds, whatever the
    extension says: a ``[`` first is one JSON array, several top-level objects are JSON
    lines, one object alone is JSON."""
    body = head.lstrip()
    if body.startswith("["):
        return "json"
    if body.startswith("{") and kind not in ("jsonl", "ndjson"):
        try:
            _, end = json.JSONDecoder().raw_decode(body)
        except (ValueError, RecursionError):  # an object longer than the chunk: by its name
            return kind or ("jsonl" if "\n{" in body else "json")
        return "jsonl" if body[end:].strip() else "json"
    return kind or "json"


def _json_problem(name: str, where: str, field: str, exc: ValueError) -> Problem:
    message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
    if "integer string conversion" in message:
        message = "a number with more than 4,300 digits"
    return Problem(name, where, None, field, f"invalid JSON: {message}")


def _read_jsonl(name: str, stream: IO[str]) -> Iterator[RawItem | Problem]:
    number = 0
    while line := stream.readline(MAX_RECORD_CHARS + 1):
        number += 1
        if len(line) > MAX_RECORD_CHARS and not line.endswith("\n"):
            yield Refusal(name, f"line {number}", None, "(line)", too_long())
            return
        if not line.strip():
            continue
        try:
            yield RawItem(name, f"line {number}", json.loads(line))
        except RecursionError:
            yield Problem(name, f"line {number}", None, "(line)", too_deep())
        except ValueError as exc:
            yield _json_problem(name, f"line {number}", "(line)", exc)


class _JsonStream:
    """A JSON text decoded a value at a time from a stream: the buffer holds what is not yet
    decoded plus one chunk, and grows (doubling) only while one value does not fit."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.lines = 0
        self.decoder = json.JSONDecoder()

    def fill(self) -> None:
        chunk = self.stream.read(max(CHUNK, len(self.buf) - self.pos))
        self.eof = not chunk
        self.lines += self.buf.count("\n", 0, self.pos)
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0

    def line(self, at: int) -> int:
        return self.lines + self.buf.count("\n", 0, at) + 1

    def peek(self) -> str:
        """The next character that is not white space ("" at the end), without taking it."""
        while True:
            found = _NOT_SPACE.search(self.buf, self.pos)
            self.pos = found.start() if found else len(self.buf)
            if self.pos < len(self.buf) or self.eof:
                return self.buf[self.pos : self.pos + 1]
            self.fill()

    def value(self) -> Any:
        """The value that starts here; ValueError (a JSONDecodeError with ``lineno``
        of the whole text, or a limit) when there is none."""
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except RecursionError:
                raise ValueError(too_deep()) from None
            except json.JSONDecodeError as exc:
                if self.eof:
                    raise _at(exc, self.line(exc.pos)) from None
                value = None
                end = -1
            if end != -1 and (end < len(self.buf) or self.eof):
                self.pos = end
                return value
            if len(self.buf) - self.pos > MAX_RECORD_CHARS:
                raise _Limit(too_long())
            self.fill()


class _Limit(ValueError):
    """A limit crossed while decoding: the file stops here."""


def _at(exc: json.JSONDecodeError, line: int) -> json.JSONDecodeError:
    found = json.JSONDecodeError(exc.msg, "", 0)
    found.lineno = line
    return found


def _read_json(name: str, stream: IO[str]) -> Iterator[RawItem | Problem]:
    text = _JsonStream(stream)
    index = 0
    try:
        if text.peek() != "[":
            data = text.value()
            _end(text)
            yield RawItem(name, "", data)
            return
        text.pos += 1
        if text.peek() == "]":
            text.pos += 1
        else:
            while True:
                where = f"index {index}"
                yield RawItem(name, where, text.value())
                index += 1
                after = text.peek()
                text.pos += 1
                if after == "]":
                    break
                if after != ",":
                    raise _at(
                        json.JSONDecodeError("Expecting ',' delimiter", "", 0),
                        text.line(text.pos - 1),
                    )
                if text.peek() == "]":
                    raise _at(json.JSONDecodeError("Expecting value", "", 0), text.line(text.pos))
        _end(text)
    except _Limit as exc:
        yield Refusal(name, f"index {index}", None, "(file)", str(exc))
    except json.JSONDecodeError as exc:
        yield Refusal(name, f"line {exc.lineno}", None, "(file)", f"invalid JSON: {exc.msg}")
    except ValueError as exc:
        yield Refusal(name, "", None, "(file)", _json_problem(name, "", "", exc).message)


def _end(text: _JsonStream) -> None:
    """Nothing but white space may follow the document."""
    if text.peek():
        raise _at(json.JSONDecodeError("Extra data", "", 0), text.line(text.pos))


@dataclass
class _Open:
    """A collection being counted: its values so far, its anchor, where it starts."""

    values: int
    anchor: str | None
    line: int


def _yaml_limit(text: str, values_left: int) -> Refusal | None:
    """The first limit the YAML ``text`` crosses, found from its parser events (which neither
    recurse nor expand aliases) before anything is built: nesting past :data:`MAX_DEPTH`, a
    record (a document, or an item of a document's top-level list) of more than
    :data:`MAX_VALUES` values, or more than ``values_left`` in all; an alias counts every
    value of what it names."""
    anchors: dict[str, int] = {}
    stack: list[_Open] = []
    total = 0
    top_is_list = False

    def add(values: int, line: int) -> Refusal | None:
        nonlocal total
        if stack:
            stack[-1].values += values
        record_level = len(stack) == (1 if top_is_list else 0)
        if record_level and values > MAX_VALUES:
            return Refusal("", f"line {line}", None, "(record)", too_many_record_values(True))
        if not stack:
            total += values
            if total > values_left:
                return Refusal("", f"line {line}", None, "(file)", too_many_values(True))
        return None

    for event in yaml.parse(text, Loader=_Parser):
        mark = event.start_mark
        line = mark.line + 1 if mark is not None else 0
        found: Refusal | None = None
        if isinstance(event, yaml.CollectionStartEvent):
            if not stack:
                top_is_list = isinstance(event, yaml.SequenceStartEvent)
            if len(stack) >= MAX_DEPTH:
                return Refusal("", f"line {line}", None, "(file)", too_deep())
            stack.append(_Open(1, event.anchor, line))
        elif isinstance(event, yaml.CollectionEndEvent):
            done = stack.pop()
            if done.anchor is not None:
                anchors[done.anchor] = done.values
            found = add(done.values, done.line)
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor is not None:
                anchors[event.anchor] = 1
            found = add(1, line)
        elif isinstance(event, yaml.AliasEvent):
            found = add(anchors.get(event.anchor or "", 1), line)
        if found is not None:
            return found
        record = stack[1:2] if top_is_list else stack[:1]
        if record and record[0].values > MAX_VALUES:  # a record growing past it
            where = f"line {record[0].line}"
            return Refusal("", where, None, "(record)", too_many_record_values(True))
        if stack and stack[0].values > values_left:  # a document growing past the budget
            return Refusal("", f"line {line}", None, "(file)", too_many_values(True))
    return None


def _listed(name: str, data: Any, label: str) -> Iterator[RawItem]:
    if isinstance(data, list):
        for index, item in enumerate(data):
            yield RawItem(name, f"{label}{index}", item)
    else:
        yield RawItem(name, "", data)


def _read_yaml(name: str, stream: IO[str], values_left: int) -> Iterator[RawItem | Problem]:
    text = stream.read()
    try:
        limit = _yaml_limit(text, values_left)
        if limit is not None:
            yield Refusal(name, limit.where, None, limit.field, limit.message)
            return
        documents = [doc for doc in yaml.load_all(text, Loader=_SafeLoader) if doc is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        message = " ".join(str(exc).split())  # one line
        yield Refusal(name, where, None, "(file)", f"invalid YAML: {message}")
        return
    except ValueError as exc:  # a value the safe constructor cannot build (a 13th month)
        yield Refusal(name, "", None, "(file)", f"invalid YAML: {exc}")
        return
    if len(documents) == 1:
        yield from _listed(name, documents[0], "index ")
        return
    for number, doc in enumerate(documents):
        for item in _listed(name, doc, f"document {number} index "):
            yield RawItem(name, item.where or f"document {number}", item.data)
