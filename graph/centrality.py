"""Centrality of records, for ranking the staleness digest.

PageRank over the ``leads_to`` edges weighted by probability (the same
definition as ``networkx.pagerank``: dangling nodes spread their rank evenly),
computed with numpy power iteration so it needs no scipy and takes well under
a second at 100k nodes; plus in/out degree and the number of look-alikes.
A :class:`~graph.build.KnowledgeGraph` computes the PageRank once (an update
that leaves the ``leads_to`` edges and the nodes as they were keeps it) and
makes each node's :class:`Centrality` when it is looked up.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from graph.build import KnowledgeGraph, Transition


@dataclass(frozen=True)
class Centrality:
    id: str
    pagerank: float
    rank: int  # 1 = most central by PageRank (ties by id)
    in_degree: int
    out_degree: int
    confused_degree: int

    @property
    def degree(self) -> int:
        return self.in_degree + self.out_degree


def pagerank(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    weight: np.ndarray,
    *,
    alpha: float = 0.85,
    max_iter: int = 100,
    tol: float = 1.0e-6,
) -> np.ndarray:
    """PageRank of ``n`` nodes given weighted edges as arrays of source index, target index
    and weight."""
    if n == 0:
        return np.zeros(0)
    out = np.bincount(src, weights=weight, minlength=n)
    share = np.divide(weight, out[src], out=np.zeros_like(weight), where=out[src] > 0)
    dangling = out == 0
    x = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        flow = np.bincount(dst, weights=x[src] * share, minlength=n)
        new = alpha * flow + (alpha * x[dangling].sum() + 1.0 - alpha) / n
        delta = float(np.abs(new - x).sum())
        x = new
        if delta < n * tol:
            break
    return x


@dataclass(frozen=True)
class Ranking:
    """The PageRank of every node of a ``leads_to`` graph and its place (1 = most central,
    ties by id); ``position``: node → its index in the arrays (nodes sorted by id)."""

    nodes: Sequence[str]
    position: Mapping[str, int]
    pagerank: np.ndarray
    rank: np.ndarray


def rank_nodes(nodes: Sequence[str], succ: Mapping[str, Mapping[str, Transition]]) -> Ranking:
    """PageRank over the ``leads_to`` edges of ``succ`` (source → target → transition) among
    ``nodes`` (sorted by id), edges taken by source then target (by id)."""
    position = {node: i for i, node in enumerate(nodes)}
    src: list[int] = []
    dst: list[int] = []
    weight: list[float] = []
    for source, near in succ.items():
        src += [position[source]] * len(near)
        dst += [position[target] for target in near]
        weight += [t.weight for t in near.values()]
    sources = np.array(src, dtype=np.int64)
    targets = np.array(dst, dtype=np.int64)
    order = np.lexsort((targets, sources))
    ranks = pagerank(
        len(nodes), sources[order], targets[order], np.array(weight, dtype=np.float64)[order]
    )
    place = np.empty(len(nodes), dtype=np.int64)
    place[np.argsort(-ranks, kind="stable")] = np.arange(1, len(nodes) + 1)
    return Ranking(nodes, position, ranks, place)


class Centralities(Mapping[str, Centrality]):
    """Every node's :class:`Centrality`, by id (sorted), each made when it is looked up."""

    def __init__(self, kg: KnowledgeGraph, ranking: Ranking) -> None:
        self._kg = kg
        self._ranking = ranking

    def __getitem__(self, node: str) -> Centrality:
        at = self._ranking.position[node]
        kg = self._kg
        return Centrality(
            id=node,
            pagerank=float(self._ranking.pagerank[at]),
            rank=int(self._ranking.rank[at]),
            in_degree=len(kg.predecessors(node)),
            out_degree=len(kg.successors(node)),
            confused_degree=len(kg.look_alikes_of(node)),
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._ranking.nodes)

    def __len__(self) -> int:
        return len(self._ranking.nodes)


def compute_centrality(kg: KnowledgeGraph) -> dict[str, Centrality]:
    """Centrality of every node of ``kg`` (records and placeholders), by id."""
    return dict(kg.centralities())
