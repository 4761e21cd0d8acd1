"""Variants: records of one error that differ only by version or environment.

Large knowledge bases hold the same error several times (a ``pip23`` and a
``pip24`` record, a Linux and a macOS one). They are recognised at build:
records sharing an id slug, or a domain and an error template
(:func:`bot.match.info.variant_key`), form one group. The ranker then lets the
paste's versions and OS choose among a group's members and names the others as
variants of the answer, not as rival answers; ``errkb graph check`` lists the
groups so maintainers can merge them or tell them apart.
"""

from __future__ import annotations

from collections.abc import Sequence


def variant_groups(keys: Sequence[tuple[str, str]]) -> list[int]:
    """The group of each record (the index of its group's first member), given each
    record's :func:`~bot.match.info.variant_key`: records sharing either part of a key
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
                a, b = find(i), find(j)
                parent[max(a, b)] = min(a, b)
    return [find(i) for i in range(len(keys))]


def members(groups: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """Group → its members, for groups of two or more records."""
    found: dict[int, list[int]] = {}
    for i, group in enumerate(groups):
        found.setdefault(group, []).append(i)
    return {g: tuple(m) for g, m in found.items() if len(m) > 1}
