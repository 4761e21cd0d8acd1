"""Triage queries on the transition graph: pure and deterministic.

- :func:`likely_causes`: ancestors up to ``hops`` back, scored by the product
  of edge probabilities along the best path;
- :func:`likely_next`: what tends to follow once an error is fixed;
- :func:`~graph.lookalike.look_alikes`: errors it is mistaken for;
- :func:`order_errors`: several matched errors, cause first;
- :func:`triage_sections`: all of it as plain data for ``errkb triage``.

Ties are broken by fewer hops, then by id (or paste position), so the same
graph always gives the same answer. Self-loops are ignored; cycles end at the
hop limit and never revisit the error asked about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from graph import said
from graph.build import KnowledgeGraph, ObservedEdge
from graph.centrality import Centrality, compute_centrality
from graph.lookalike import LookAlike, look_alikes

__all__ = [
    "Cause",
    "Centrality",
    "LookAlike",
    "NextError",
    "OrderedError",
    "Ordering",
    "best_paths",
    "compute_centrality",
    "likely_causes",
    "likely_next",
    "look_alikes",
    "order_errors",
    "triage_sections",
]

DEFAULT_HOPS = 3
DEFAULT_TOP = 5

_Path = tuple[float, tuple[str, ...]]


@dataclass(frozen=True)
class Cause:
    id: str
    score: float
    hops: int
    path: tuple[str, ...]  # from the cause to the error asked about
    placeholder: bool


@dataclass(frozen=True)
class NextError:
    id: str
    probability: float | None  # as stated; None when no link stated one
    weight: float  # what ranking used
    conditions: tuple[str, ...]
    placeholder: bool
    asserted_by: tuple[str, ...]


@dataclass(frozen=True)
class OrderedError:
    id: str
    position: int  # in the paste
    after: tuple[str, ...]  # matched errors that lead to this one
    before: tuple[str, ...]  # matched errors this one leads to


@dataclass(frozen=True)
class Ordering:
    errors: tuple[OrderedError, ...]
    fix_first: str | None
    related: bool  # whether the graph related any two of them


def _better(a: _Path, b: _Path) -> bool:
    if a[0] != b[0]:
        return a[0] > b[0]
    if len(a[1]) != len(b[1]):
        return len(a[1]) < len(b[1])
    return a[1] < b[1]


def best_paths(kg: KnowledgeGraph, start: str, *, hops: int, backward: bool) -> dict[str, _Path]:
    """Best-scoring path (≤ ``hops`` edges) from ``start`` to every node it reaches.

    Paths are listed from ``start`` outward (for ``backward``, against the edges).
    """
    if start not in kg:
        return {}
    adjacency = kg.predecessors if backward else kg.successors
    best: dict[str, _Path] = {}
    frontier: dict[str, _Path] = {start: (1.0, (start,))}
    for _ in range(hops):
        reached: dict[str, _Path] = {}
        for node, (score, path) in frontier.items():
            for other, transition in adjacency(node).items():
                if other == node or other == start:
                    continue
                candidate = (score * transition.weight, (*path, other))
                current = reached.get(other)
                if current is None or _better(candidate, current):
                    reached[other] = candidate
        for node, candidate in reached.items():
            current = best.get(node)
            if current is None or _better(candidate, current):
                best[node] = candidate
        frontier = reached
        if not frontier:
            break
    return best


def likely_causes(
    kg: KnowledgeGraph, record_id: str, *, hops: int = DEFAULT_HOPS, top: int = DEFAULT_TOP
) -> tuple[Cause, ...]:
    """What usually comes before ``record_id``: the ``top`` best ancestors within ``hops``."""
    found = best_paths(kg, record_id, hops=hops, backward=True)
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], len(kv[1][1]), kv[0]))
    return tuple(
        Cause(
            id=node,
            score=score,
            hops=len(path) - 1,
            path=tuple(reversed(path)),
            placeholder=kg.is_placeholder(node),
        )
        for node, (score, path) in ranked[:top]
    )


def likely_next(kg: KnowledgeGraph, record_id: str) -> tuple[NextError, ...]:
    """What tends to follow ``record_id`` once it is fixed, most likely first."""
    found = []
    for other, t in kg.successors(record_id).items():
        if other == record_id:
            continue
        found.append(
            NextError(
                id=other,
                probability=t.probability,
                weight=t.weight,
                conditions=t.conditions,
                placeholder=kg.is_placeholder(other),
                asserted_by=t.asserting_records,
            )
        )
    return tuple(sorted(found, key=lambda e: (-e.weight, e.id)))


def order_errors(
    kg: KnowledgeGraph, matched_ids: Sequence[str], *, hops: int = DEFAULT_HOPS
) -> Ordering:
    """Order errors matched in one paste cause first; ties keep paste order.

    A precedes B when B is reachable from A within ``hops``; when both reach
    each other the stronger path wins (then paste order). Cycles among three or
    more are broken by paste position.
    """
    ids = list(dict.fromkeys(matched_ids))
    position = {rid: i for i, rid in enumerate(ids)}
    reach = {rid: best_paths(kg, rid, hops=hops, backward=False) for rid in ids}
    precedes: dict[str, set[str]] = {rid: set() for rid in ids}
    for a in ids:
        for b in ids:
            if a == b or b not in reach[a]:
                continue
            back = reach[b].get(a)
            forward = reach[a][b][0]
            if (
                back is None
                or forward > back[0]
                or (forward == back[0] and position[a] < position[b])
            ):
                precedes[a].add(b)
    preceded = {rid: {a for a in ids if rid in precedes[a]} for rid in ids}
    remaining = list(ids)
    ordered: list[str] = []
    while remaining:
        free = [rid for rid in remaining if not (preceded[rid] & set(remaining))]
        pick = min(free or remaining, key=position.__getitem__)
        ordered.append(pick)
        remaining.remove(pick)
    errors = tuple(
        OrderedError(
            id=rid,
            position=position[rid],
            after=tuple(sorted(preceded[rid], key=position.__getitem__)),
            before=tuple(sorted(precedes[rid], key=position.__getitem__)),
        )
        for rid in ordered
    )
    related = any(precedes.values())
    return Ordering(errors=errors, fix_first=ordered[0] if ordered else None, related=related)


def _observed(kg: KnowledgeGraph, record_id: str) -> list[dict[str, Any]]:
    edges: tuple[ObservedEdge, ...] = kg.observed_from(record_id)
    return [
        {
            "id": e.target,
            "count": e.count,
            "first_seen": e.first_seen.isoformat(),
            "last_seen": e.last_seen.isoformat(),
            "curated": kg.transition(e.source, e.target) is not None,
        }
        for e in edges
    ]


def triage_sections(
    kg: KnowledgeGraph,
    matched_ids_in_paste_order: Sequence[str],
    *,
    locale: str = "en",
    hops: int = DEFAULT_HOPS,
    top: int = DEFAULT_TOP,
) -> dict[str, Any]:
    """The graph's sections of a triage answer (``causes``, ``next``, ``confused_with``,
    ``order``) as JSON-ready data; labels are signatures in ``locale`` or ids, and
    conditions and distinctions are in ``locale`` where the records translate them."""
    ids = list(dict.fromkeys(matched_ids_in_paste_order))

    def labelled(item: Any, rid: str | None = None) -> dict[str, Any]:
        data = asdict(item)
        data["label"] = kg.label(item.id, locale) if item.id in kg else item.id
        if rid is not None and "conditions" in data:  # the records' words, in ``locale``
            data["conditions"] = said.conditions(kg, rid, item.id, locale)
        if rid is not None and "distinctions" in data:
            data["distinctions"] = said.distinctions(kg, rid, item.id, locale)
        return data

    ordering = order_errors(kg, ids, hops=hops)
    return {
        "causes": [
            {
                "error": rid,
                "items": [labelled(c) for c in likely_causes(kg, rid, hops=hops, top=top)],
            }
            for rid in ids
        ],
        "next": [
            {
                "error": rid,
                "items": [labelled(n, rid) for n in likely_next(kg, rid)[:top]],
                "observed": _observed(kg, rid),
            }
            for rid in ids
        ],
        "confused_with": [
            {"error": rid, "items": [labelled(la, rid) for la in look_alikes(kg, rid)]}
            for rid in ids
        ],
        "order": {
            "errors": [asdict(e) for e in ordering.errors],
            "fix_first": ordering.fix_first,
            "related": ordering.related,
        },
    }
