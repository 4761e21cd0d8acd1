"""The knowledge base as last built, kept in a file so a restart need not rebuild it.

A snapshot holds the records and everything the index and the graph compute
from each record alone (:class:`~bot.match.index.RecordParts`, each record's
transition-graph references), at one knowledge version, and what the index
linked from all of them (:class:`~bot.match.index.Links`: the prefilter
automata, the BM25 postings, the variant groups). Loading it re-links only the
graph's edges; the RE2 matchers are not picklable and are compiled again (at
once for a small base, on first use for a large one, as in a full build).

The file is named after the database (a hash of its URL without password and
of its knowledge epoch, so a database dropped and made again is not taken for
the old one),
and holds a key: :data:`FORMAT`, the Python version, and a hash of the
source of the modules whose results it stores (:func:`code_key`), so a
snapshot written by another errkb is not used. It is written to a temporary
file beside it and renamed into place, so a reader never sees half of one. A
snapshot that cannot be read, or whose key differs, is ignored with one log
line; the caller then builds from the database as if there were none.

The file is :data:`MAGIC` (a file that is a single pickle, the older format, is
ignored unread), then a run of pickles, written and read one after another so that
neither side holds more than a run of records twice: the key (read first: a
snapshot of other code is not unpickled further), the version and counts, the
vocabulary's terms in runs of :data:`TERMS`, the records' parts with their
references in runs of :data:`CHUNK`, then whether the links follow, and the links
(a pickler keeps a table of every object it wrote until it is done: one pickle of
a large base, or of all its terms, would hold a second copy of it in memory while
writing; the links are arrays the index holds already). The terms come back as
the strings the pickles hold and are numbered in one pass, the cheapest way a
one-shot command has to its vocabulary.

Loading pauses the cyclic garbage collector: unpickling a large base makes
millions of objects, and the collector's repeated passes over them would
cost the load several times its own work.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

from bot.collector import collector_off
from bot.match.index import Links, RecordParts, read_links, write_links
from bot.match.similarity import Vocabulary
from bot.store.urls import without_password
from graph.build import Reference

log = logging.getLogger(__name__)
#: Bump when what a snapshot holds changes shape.
FORMAT = 4
#: Records written (and read) per pickle.
CHUNK = 4096
#: Vocabulary terms written (and read) per pickle.
TERMS = 1 << 16
#: What a snapshot file starts with.
MAGIC = b"errkb knowledge snapshot\n"
#: A temporary file this old is what a killed writer left (another may be writing its own).
STALE_TEMPORARY = 3600.0
#: The packages whose code computes what a snapshot stores.
_SOURCES = ("bot/match", "bot/records", "graph")


@dataclass(frozen=True)
class Snapshot:
    """What a restart needs to re-link the index and graph at ``version``. The vocabulary
    may still grow while it is written (terms numbered later are written too, unused)."""

    version: int
    parts: Sequence[RecordParts]
    vocabulary: Vocabulary
    references: Mapping[str, tuple[Reference, ...]]
    #: what the index linked from the parts (None: the reader links them again)
    links: Links | None = None


@cache
def code_key() -> str:
    """A hash of the source of every module whose output a snapshot stores."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{FORMAT} {sys.version}".encode())
    for folder in _SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def snapshot_path(folder: Path, database_url: str, epoch: int = 0) -> Path:
    """The snapshot file of the database at ``database_url`` (password not part of it) whose
    knowledge epoch is ``epoch`` (:func:`bot.store.changes.knowledge_epoch`): a database made
    again at the same address has another epoch, so another file."""
    safe = without_password(database_url)
    return (
        folder / f"knowledge-{hashlib.sha256(f'{safe} {epoch}'.encode()).hexdigest()[:16]}.pickle"
    )


def save(path: Path, snapshot: Snapshot) -> None:
    """Write ``snapshot`` to ``path`` atomically (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for left in path.parent.glob(f"{path.name}*.tmp"):  # a write cut short by a kill
        with contextlib.suppress(OSError):
            if time.time() - left.stat().st_mtime > STALE_TEMPORARY:
                left.unlink()
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            _write(out, snapshot)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _write(out: IO[bytes], snapshot: Snapshot) -> None:
    def dump(value: Any) -> None:
        pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)

    terms = list(snapshot.vocabulary.terms)  # one copy of the list, as it is now
    parts = snapshot.parts
    references = snapshot.references
    out.write(MAGIC)
    dump((code_key(), snapshot.version, len(parts), len(terms)))
    for start in range(0, len(terms), TERMS):
        dump(terms[start : start + TERMS])
    del terms
    for start in range(0, len(parts), CHUNK):
        chunk = tuple(parts[start : start + CHUNK])
        dump((chunk, tuple(references.get(part.id, ()) for part in chunk)))
    dump(snapshot.links is not None)
    if snapshot.links is not None:
        write_links(out, snapshot.links, snapshot.vocabulary)


def _head(source: IO[bytes]) -> tuple[int, int, int] | None:
    """The version, record count and vocabulary size ``source`` starts with; None when
    another errkb wrote it."""
    start = source.read(len(MAGIC))
    if start != MAGIC:
        if start.startswith(b"\x80"):  # one pickle: the older format
            return None
        raise ValueError("not a knowledge snapshot")
    head = pickle.load(source)  # noqa: S301 - our own cache file
    if not (isinstance(head, tuple) and len(head) == 4 and head[0] == code_key()):
        return None
    return head[1], head[2], head[3]


def version_of(path: Path) -> int | None:
    """The knowledge version of the snapshot at ``path``, read from its head alone (the
    rest is tens of megabytes at a large knowledge base); None when there is none this
    code can read."""
    try:
        with path.open("rb") as source:
            head = _head(source)
    except Exception:  # noqa: BLE001 - absent or damaged: load() says which
        return None
    return head[0] if head is not None else None


def _read(source: IO[bytes]) -> Snapshot | None:
    """The snapshot ``source`` holds; None when another errkb wrote it."""
    head = _head(source)
    if head is None:
        return None
    version, count, size = head
    terms: list[str] = []
    while len(terms) < size:
        terms.extend(pickle.load(source))  # noqa: S301
    vocabulary = Vocabulary()
    vocabulary.terms = terms
    vocabulary.numbers = dict(zip(terms, range(len(terms)), strict=True))
    parts: list[RecordParts] = []
    references: dict[str, tuple[Reference, ...]] = {}
    while len(parts) < count:
        chunk, said = pickle.load(source)  # noqa: S301
        parts.extend(chunk)
        references.update(zip((part.id for part in chunk), said, strict=True))
    links = read_links(source, parts, vocabulary) if pickle.load(source) else None  # noqa: S301
    return Snapshot(version, tuple(parts), vocabulary, references, links)


def load(path: Path) -> Snapshot | None:
    """The snapshot at ``path``; None (with one log line) when it is absent, unreadable or
    written by other code. Only read files this process's own cache folder holds: a
    pickle runs code when loaded."""
    if not path.exists():
        return None
    try:
        with collector_off(), path.open("rb") as source:  # millions of new objects
            snapshot = _read(source)
    except Exception as error:  # noqa: BLE001 - any damage means: build from the database
        log.warning(
            "ignoring an unreadable knowledge snapshot %s: %s",
            path,
            error,
            extra={"path": str(path)},
        )
        return None
    if snapshot is None:
        log.info(
            "ignoring a knowledge snapshot written by another errkb version: %s",
            path,
            extra={"path": str(path)},
        )
        return None
    return snapshot
