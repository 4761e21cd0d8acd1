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


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if path.name.lower().endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.decode("utf-8-sig")


def read_file(path: Path) -> tuple[list[RawItem], list[Problem]]:
    """Every item in one file, or the problems that stop it from being read."""
    name = str(path)
    kind = _kind(path)
    try:
        text = _text(path)
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        return [], [Problem(name, "", None, "(file)", f"cannot read: {exc}")]
    if not kind:
        kind = "jsonl" if text.lstrip().startswith("{") and "\n{" in text else "json"
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


def _read_json(name: str, text: str) -> tuple[list[RawItem], list[Problem]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}"
        return [], [Problem(name, where, None, "(file)", f"invalid JSON: {exc.msg}")]
    return list(_listed(name, data, "index ")), []


def _read_jsonl(name: str, text: str) -> tuple[list[RawItem], list[Problem]]:
    items: list[RawItem] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(RawItem(name, f"line {number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(
                Problem(name, f"line {number}", None, "(line)", f"invalid JSON: {exc.msg}")
            )
    return items, problems


def _read_yaml(name: str, text: str) -> tuple[list[RawItem], list[Problem]]:
    try:
        documents = [doc for doc in yaml.safe_load_all(text) if doc is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        return [], [Problem(name, where, None, "(file)", f"invalid YAML: {exc}")]
    if len(documents) == 1:
        return list(_listed(name, documents[0], "index ")), []
    items: list[RawItem] = []
    for number, doc in enumerate(documents):
        for item in _listed(name, doc, f"document {number} index "):
            where = item.where or f"document {number}"
            items.append(RawItem(name, where, item.data))
    return items, []
