"""The knowledge base as last built, kept in a file so a restart need not rebuild it.

A snapshot holds the records and everything the index and the graph compute
from each record alone (:class:`~bot.match.index.RecordParts`, each record's
transition-graph references), at one knowledge version. Loading it only
re-links the global structures (BM25 arrays, the automaton, the graph's
edges), which takes a fraction of a full build; the RE2 matchers are not
picklable and are compiled again (at once for a small base, on first use for
a large one, as in a full build).

The file is named after the database (a hash of its URL without password and
of its knowledge epoch, so a database dropped and made again is not taken for
the old one),
and holds a key: :data:`FORMAT`, the Python version, and a hash of the
source of the modules whose results it stores (:func:`code_key`), so a
snapshot written by another errkb is not used. It is written to a temporary
file beside it and renamed into place, so a reader never sees half of one. A
snapshot that cannot be read, or whose key differs, is ignored with one log
line; the caller then builds from the database as if there were none.

Loading pauses the cyclic garbage collector: unpickling 100k records makes
millions of objects, and measured at 100k records the collector's repeated
passes over them made the load about seven times slower.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import logging
import os
import pickle
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot.match.index import RecordParts
from bot.match.similarity import Vocabulary
from graph.build import Reference

log = logging.getLogger(__name__)
#: Bump when what a snapshot holds changes shape.
FORMAT = 1
#: A temporary file this old is what a killed writer left (another may be writing its own).
STALE_TEMPORARY = 3600.0
#: The packages whose code computes what a snapshot stores.
_SOURCES = ("bot/match", "bot/records", "graph")


@dataclass(frozen=True)
class Snapshot:
    """What a restart needs to re-link the index and graph at ``version``."""

    version: int
    parts: tuple[RecordParts, ...]
    vocabulary: Vocabulary
    references: dict[str, tuple[Reference, ...]]


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
    from sqlalchemy.engine import make_url

    safe = make_url(database_url).render_as_string(hide_password=True)
    return folder / f"knowledge-{hashlib.sha256(f'{safe} {epoch}'.encode()).hexdigest()[:16]}.pickle"


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
            pickle.dump((code_key(), snapshot), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load(path: Path) -> Snapshot | None:
    """The snapshot at ``path``; None (with one log line) when it is absent, unreadable or
    written by other code. Only read files this process's own cache folder holds: a
    pickle runs code when loaded."""
    if not path.exists():
        return None
    collecting = gc.isenabled()
    gc.disable()  # millions of new objects: the collector would walk them again and again
    try:
        with path.open("rb") as source:
            key, snapshot = pickle.load(source)  # noqa: S301 - our own cache file
    except Exception as error:  # noqa: BLE001 - any damage means: build from the database
        log.warning("ignoring an unreadable knowledge snapshot %s: %s", path, error,
                    extra={"path": str(path)})  # fmt: skip
        return None
    finally:
        if collecting:
            gc.enable()
    if key != code_key() or not isinstance(snapshot, Snapshot):
        log.info("ignoring a knowledge snapshot written by another errkb version: %s", path,
                 extra={"path": str(path)})  # fmt: skip
        return None
    return snapshot
