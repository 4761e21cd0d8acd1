"""Variants: records of one error that differ only by version or environment.

Large knowledge bases hold the same error several times (a ``pip23`` and a
``pip24`` record, a Linux and a macOS one; a ``cuda/`` and a ``pytorch/`` record of
``CUDA out of memory``). They are recognised at build: records sharing an id slug, a
domain and an error template, or an error message (:func:`bot.match.info.variant_key`),
form one group. The ranker then lets the
paste's versions and OS choose among a group's members and names the others as
variants of the answer, not as rival answers; ``errkb graph check`` lists the
groups so maintainers can merge them or tell them apart. An index update
regroups only the records its changes touch (:meth:`Variants.update`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bot.match.info import VariantKey

#: Changes a :class:`Layered` mapping keeps apart from its base before it folds them in
#: (at least this many, or a sixteenth of the base).
FOLD_LEAST = 256
#: The parts of a :data:`~bot.match.info.VariantKey`.
KEY_PARTS = 3
_GONE = object()


def variant_groups(keys: Sequence[VariantKey]) -> list[int]:
    """The group of each record (the index of its group's first member), given each
    record's :func:`~bot.match.info.variant_key`: records sharing any part of a key
    are in one group, transitively."""
    parent = list(range(len(keys)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[int, str], int] = {}
    for i, key in enumerate(keys):
        for part, value in enumerate(key):
            if not value:
                continue
            j = first.setdefault((part, value), i)
            if j != i:
                a = find(i)
                b = find(j)
                parent[max(a, b)] = min(a, b)
    return [find(i) for i in range(len(keys))]


def members(groups: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """Group → its members, for groups of two or more records."""
    found: dict[int, list[int]] = {}
    for i, group in enumerate(groups):
        found.setdefault(group, []).append(i)
    return {g: tuple(m) for g, m in found.items() if len(m) > 1}


def moved(before: int, gone: Sequence[int], added: Sequence[int]) -> np.ndarray:
    """Where each of ``before`` positions is after the (sorted) positions ``gone`` are taken
    out and records are put in at the (sorted, new) positions ``added``; a gone position's
    entry means nothing."""
    new = np.asarray(added, dtype=np.int64)
    at = np.arange(before, dtype=np.int64)
    at -= np.searchsorted(np.asarray(gone, dtype=np.int64), at)
    at += np.searchsorted(new - np.arange(len(new)), at, side="right")
    return at


class Layered(Mapping[str, str]):
    """A mapping kept as a base shared between versions and this version's changes: a
    version with a few keys changed copies the changes, not the base (copying a holder
    table of a large knowledge base would hold the interpreter at every update). The
    changes are folded into a new base once they are many."""

    __slots__ = ("_base", "_changes")

    def __init__(self, base: dict[str, str], changes: dict[str, object] | None = None) -> None:
        self._base = base
        self._changes = changes or {}

    def __getitem__(self, key: str) -> str:
        value = self._changes.get(key, self._base.get(key, _GONE))
        if value is _GONE:
            raise KeyError(key)
        return value  # type: ignore[return-value]

    def __iter__(self) -> Iterator[str]:
        changes = self._changes
        yield from (k for k in self._base if k not in changes)
        yield from (k for k, v in changes.items() if v is not _GONE)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def changed(self, changes: Mapping[str, str | None]) -> Layered:
        """A new version with ``changes`` (a key's new value, or None: gone); this one stays."""
        merged: dict[str, object] = {
            **self._changes,
            **{k: _GONE if v is None else v for k, v in changes.items()},
        }
        if len(merged) <= max(FOLD_LEAST, len(self._base) // 16):
            return Layered(self._base, merged)
        base = dict(self._base)
        for key, value in merged.items():
            if value is _GONE:
                base.pop(key, None)
            else:
                base[key] = value  # type: ignore[assignment]
        return Layered(base)


@dataclass(frozen=True)
class Variants:
    """Each record's variant group (:func:`variant_groups`, by position), and for each key
    part's value a record that has it: what an update needs to regroup only the records
    its changes touch."""

    groups: Sequence[int]  # Python ints when read, 8 bytes each
    holders: tuple[Layered, ...] = field(repr=False)  # one per key part
    array: np.ndarray = field(repr=False, compare=False)  # ``groups`` as an array

    @classmethod
    def of(cls, keys: Sequence[VariantKey], ids: Sequence[str]) -> Variants:
        holders: list[dict[str, str]] = [{} for _ in range(KEY_PARTS)]
        for record_id, key in zip(ids, keys, strict=True):
            for part, value in enumerate(key):
                if value:
                    holders[part].setdefault(value, record_id)
        groups = np.array(variant_groups(keys), dtype=np.int64)
        return cls(_ints(groups), tuple(Layered(h) for h in holders), groups)

    def update(
        self,
        before: Sequence[VariantKey],
        position: Mapping[str, int],
        keys: Sequence[VariantKey],
        id_of: Callable[[int], str],
        gone: Sequence[int],
        added: Sequence[int],
    ) -> Variants:
        """The groups :meth:`of` gives for ``keys`` (of the records ``id_of`` names): the keys
        ``before`` (at ``position`` by id) with those at the sorted positions ``gone``
        taken out and those at the sorted new positions ``added`` put in. Only the groups
        of the records taken out, and those the added keys join, are formed again."""
        old = self.array
        at = moved(len(before), gone, added)
        alive = np.ones(len(before), dtype=bool)
        alive[list(gone)] = False
        groups = np.empty(len(keys), dtype=np.int64)
        groups[at[alive]] = at[old[alive]]  # an untouched group keeps its first member
        touched = set(old[list(gone)].tolist())
        for j in added:
            for part, value in enumerate(keys[j]):
                holder = self.holders[part].get(value) if value else None
                if holder is not None:
                    touched.add(int(old[position[holder]]))
        again = at[np.flatnonzero(np.isin(old, list(touched)) & alive)].tolist()
        again = sorted({*again, *added})
        for j, group in zip(again, variant_groups([keys[j] for j in again]), strict=True):
            groups[j] = again[group]
        changes: list[dict[str, str | None]] = [{} for _ in self.holders]
        values = {(p, v) for o in gone for p, v in enumerate(before[o]) if v}
        values |= {(p, v) for j in added for p, v in enumerate(keys[j]) if v}
        for part, value in values:
            changes[part][value] = next((id_of(j) for j in again if keys[j][part] == value), None)
        holders = tuple(h.changed(c) for h, c in zip(self.holders, changes, strict=True))
        return Variants(_ints(groups), holders, groups)


def _ints(values: np.ndarray) -> array[int]:
    """``values`` as a compact array that gives Python ints."""
    out = array("q")
    out.frombytes(values.astype(np.int64, copy=False).tobytes())
    return out
