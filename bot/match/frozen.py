"""Frozen slotted dataclasses that pickle as the tuple of their field values.

A snapshot holds one :class:`~bot.match.index.RecordParts` per record, and with it
its :class:`~bot.match.info.RecordInfo` and regex branches: a one-shot command
unpickles every one of them before it matches. The ``__setstate__`` dataclasses
give a frozen slotted class looks its fields up again for each object it restores;
:meth:`Frozen.__reduce__` writes the values in slot order instead, and
:func:`restore` sets them on a new object in that order, without ``__init__`` (a
``__post_init__`` has already run on the object that was pickled).
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def restore(cls: type[T], values: tuple[Any, ...]) -> T:
    """A ``cls`` whose slots hold ``values``, in the order of ``cls.__slots__``."""
    made = object.__new__(cls)
    put = object.__setattr__
    for name, value in zip(cls.__slots__, values, strict=True):  # type: ignore[attr-defined]
        put(made, name, value)
    return made


class Frozen:
    """Base of a ``@dataclass(frozen=True, slots=True)`` that pickles by :func:`restore`."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        names: tuple[str, ...] = type(self).__slots__  # type: ignore[attr-defined]
        return (restore, (type(self), tuple(getattr(self, name) for name in names)))
