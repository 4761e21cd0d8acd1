"""Records kept packed: what a long-lived index or graph holds instead of the models.

A :class:`~bot.records.Record` model costs several times its JSON in memory,
and matching and ranking read none of it once a record's parts are computed:
only an answer shown to someone reads a record again, a few records at a time.
So the index and the graph keep each record as its native data, pickled and
compressed (:func:`pack`), and unpack the records they are asked for
(:func:`unpack`, cheap next to an answer), the last :data:`CACHED` kept.

Unpacking validates with :data:`~bot.records.STORED` (the record was accepted
when packed) and gives a record equal to the one packed. The native data is
pickled rather than written as JSON: a text may hold a lone surrogate, which
JSON cannot carry.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache

from bot.records.model import STORED, Record

#: Unpacked records kept (an answer shows a few; a digest or a home tab some dozens).
CACHED = 256


def pack(record: Record) -> bytes:
    """``record`` as compressed bytes (:func:`unpack` gives it back)."""
    return zlib.compress(pickle.dumps(record.model_dump(), pickle.HIGHEST_PROTOCOL), 6)


@lru_cache(maxsize=CACHED)
def unpack(packed: bytes) -> Record:
    """The record :func:`pack` made ``packed`` of (the same object while it is cached)."""
    data = pickle.loads(zlib.decompress(packed))  # noqa: S301 - bytes this process packed
    return Record.model_validate(data, context=STORED)


class PackedRecords(Mapping[str, Record]):
    """Records by id, each kept packed, unpacked when looked up. Immutable: :meth:`changed`
    gives a new one (sharing the packed bytes of the records it does not change)."""

    __slots__ = ("_packed",)

    def __init__(self, packed: Mapping[str, bytes]) -> None:
        self._packed = dict(packed)

    @classmethod
    def of(cls, records: Iterable[Record]) -> PackedRecords:
        return cls({record.id: pack(record) for record in records})

    def __getitem__(self, record_id: str) -> Record:
        return unpack(self._packed[record_id])

    def get_packed(self, record_id: str) -> bytes | None:
        return self._packed.get(record_id)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._packed

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def changed(self, upserted: Iterable[Record], removed: Iterable[str] = ()) -> PackedRecords:
        """These records with ``upserted`` added or replaced and ``removed`` ids gone."""
        packed = dict(self._packed)
        for record_id in removed:
            packed.pop(record_id, None)
        for record in upserted:
            packed[record.id] = pack(record)
        out = PackedRecords.__new__(PackedRecords)
        out._packed = packed
        return out
