"""Reading record files: JSON (one object or an array), JSONL, YAML, and ``.gz`` of each.

Every item read keeps where it came from (file and line or index), so a
problem can be reported precisely. Nothing here knows record formats.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bot.errors import Problem
from bot.ingest.limits import MAX_DEPTH, MAX_FILE_BYTES, too_big, too_deep

SUFFIXES = (".json", ".jsonl", ".ndjson", ".yaml", ".yml")


@dataclass(frozen=True)
class RawItem:
    file: str
    where: str  # "line 3", "index 0", "document 2" or ""
    data: Any


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


def _text(path: Path) -> str:
    """The file's text; :class:`_TooBig` past :data:`MAX_FILE_BYTES` (read no further)."""
    size = path.stat().st_size
    if path.name.lower().endswith(".gz"):
        with gzip.open(path, "rb") as unpacked:
            raw = unpacked.read(MAX_FILE_BYTES + 1)
        size = len(raw)
    elif size <= MAX_FILE_BYTES:
        raw = path.read_bytes()
    if size > MAX_FILE_BYTES:
        raise _TooBig
    return raw.decode("utf-8-sig")


def sniff_kind(kind: str, text: str) -> str:
    """JSON or JSON lines by what the text holds, whatever the extension says: a ``[`` first
    is one JSON array, several top-level objects are JSON lines; YAML stays YAML."""
    if kind in ("yaml", "yml"):
        return kind
    body = text.lstrip()
    if body.startswith("["):
        return "json"
    if body.startswith("{") and kind != "jsonl":
        try:
            _, end = json.JSONDecoder().raw_decode(body)
        except (ValueError, RecursionError):
            return kind or "json"
        return "jsonl" if body[end:].strip() else "json"
    return kind or "json"


def read_file(path: Path) -> tuple[list[RawItem], list[Problem]]:
    """Every item in one file, or the problems that stop it from being read."""
    name = str(path)
    kind = _kind(path)
    try:
        text = _text(path)
    except _TooBig as exc:
        return [], [Problem(name, "", None, "(file)", str(exc))]
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        return [], [Problem(name, "", None, "(file)", f"cannot read: {exc}")]
    if not text.strip():
        return [], [Problem(name, "", None, "(file)", "the file is empty: no records in it")]
    kind = sniff_kind(kind, text)
    if kind in ("jsonl", "ndjson"):
        return _read_jsonl(name, text)
    if kind in ("yaml", "yml"):
        return _read_yaml(name, text)
    return _read_json(name, text)


def _listed(name: str, data: Any, label: str) -> Iterator[RawItem]:
    if isinstance(data, list):
        for index, item in enumerate(data):
            yield RawItem(name, f"{label}{index}", item)
    else:
        yield RawItem(name, "", data)


def _json(text: str) -> Any:
    """``json.loads``; a document nested too deep for its recursive decoder is a ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(too_deep()) from None


def _json_problem(name: str, where: str, field: str, exc: ValueError) -> Problem:
    if isinstance(exc, json.JSONDecodeError):
        where = where or f"line {exc.lineno}"
        return Problem(name, where, None, field, f"invalid JSON: {exc.msg}")
    message = str(exc)
    if "integer string conversion" in message:
        message = "a number with more than 4,300 digits"
    return Problem(name, where, None, field, f"invalid JSON: {message}")


def _read_json(name: str, text: str) -> tuple[list[RawItem], list[Problem]]:
    try:
        data = _json(text)
    except ValueError as exc:
        return [], [_json_problem(name, "", "(file)", exc)]
    return list(_listed(name, data, "index ")), []


def _read_jsonl(name: str, text: str) -> tuple[list[RawItem], list[Problem]]:
    items: list[RawItem] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(RawItem(name, f"line {number}", _json(line)))
        except ValueError as exc:
            problems.append(_json_problem(name, f"line {number}", "(line)", exc))
    return items, problems


def _yaml_too_deep(text: str) -> Problem | None:
    """Nesting past :data:`MAX_DEPTH`, found from the parser's events (which do not recurse)
    before the recursive composer sees the document."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = f"line {mark.line + 1}" if mark is not None else ""
                return Problem("", where, None, "(file)", too_deep())
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


def _read_yaml(name: str, text: str) -> tuple[list[RawItem], list[Problem]]:
    try:
        deep = _yaml_too_deep(text)
        if deep is not None:
            return [], [Problem(name, deep.where, None, deep.field, deep.message)]
        documents = [doc for doc in yaml.safe_load_all(text) if doc is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        message = " ".join(str(exc).split())  # one line
        return [], [Problem(name, where, None, "(file)", f"invalid YAML: {message}")]
    except ValueError as exc:  # a value the safe constructor cannot build (a 13th month)
        return [], [Problem(name, "", None, "(file)", f"invalid YAML: {exc}")]
    if len(documents) == 1:
        return list(_listed(name, documents[0], "index ")), []
    items: list[RawItem] = []
    for number, doc in enumerate(documents):
        for item in _listed(name, doc, f"document {number} index "):
            where = item.where or f"document {number}"
            items.append(RawItem(name, where, item.data))
    return items, []
