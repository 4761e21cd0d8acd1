"""Records → the transition graph.

:func:`build_graph` turns records into a :class:`KnowledgeGraph`: a node per
record, a placeholder node for every referenced id that is not a record, one
``leads_to`` edge A→B merged from A's ``leads_to`` and B's ``preceded_by``
(highest probability, every condition, every assertion kept), and
``frequently_confused_with`` as a separate symmetric relation. Observed
transitions (learnt from use) are held apart and never merged into curated
edges.

The graph is held as plain adjacency dicts: a triage's queries (a few hops
from the matched records) need nothing more, and ``errkb triage`` then starts
without importing networkx, a large share of its start-up otherwise. The
algorithms of ``errkb graph check`` and the exports get the same graph as
networkx objects (``KnowledgeGraph._leads`` and ``_confused``, built on first use).
networkx stays inside ``graph/``: callers get the frozen dataclasses below.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING, Any, TypeVar

from bot.records import Record, link_condition, link_probability, link_target
from bot.records.packed import PackedRecords

if TYPE_CHECKING:
    import networkx as nx

    from graph.centrality import Centralities, Centrality, Ranking

#: Score used for a link that states no probability (a plain id, or an object without one).
DEFAULT_PROBABILITY = 0.5
LEADS_TO = "leads_to"
PRECEDED_BY = "preceded_by"
CONFUSED = "frequently_confused_with"


@dataclass(frozen=True, slots=True)
class Reference:
    """One transition-graph item as a record wrote it."""

    source: str
    kind: str
    target: str
    position: int
    probability: float | None = None
    condition: str | None = None
    distinction: str | None = None


@dataclass(frozen=True)
class Transition:
    """A curated ``leads_to`` edge A→B and the references that assert it."""

    source: str
    target: str
    probability: float | None
    conditions: tuple[str, ...]
    asserted_by: tuple[Reference, ...]

    @property
    def weight(self) -> float:
        """The probability used for scoring (:data:`DEFAULT_PROBABILITY` when none is stated)."""
        return DEFAULT_PROBABILITY if self.probability is None else self.probability

    @property
    def asserting_records(self) -> tuple[str, ...]:
        return tuple(sorted({ref.source for ref in self.asserted_by}))


@dataclass(frozen=True)
class Confusion:
    """A symmetric look-alike pair; ``first < second``."""

    first: str
    second: str
    distinctions: tuple[tuple[str, str], ...]  # (record that said it, text)
    asserted_by: tuple[Reference, ...]

    def other(self, record_id: str) -> str:
        return self.second if record_id == self.first else self.first


@dataclass(frozen=True)
class ObservedEdge:
    """A transition learnt from use; shown apart from curated ones."""

    source: str
    target: str
    count: int
    first_seen: datetime
    last_seen: datetime


@dataclass(frozen=True)
class NodeInfo:
    id: str
    placeholder: bool
    signature: str | None
    domain: str | None


def _text(value: Any) -> str | None:
    text = value.strip() if isinstance(value, str) else None
    return text or None


def _references(record: Record) -> Iterator[Reference]:
    positions: dict[str, int] = {}
    for kind, item in record.links():
        position = positions[kind] = positions.get(kind, -1) + 1
        extra = {} if isinstance(item, str) else (item.model_extra or {})
        yield Reference(
            source=record.id,
            kind=kind,
            target=link_target(item),
            position=position,
            probability=link_probability(item),
            condition=_text(link_condition(item)),
            distinction=_text(extra.get("distinction")),
        )


def _merge_transition(source: str, target: str, refs: list[Reference]) -> Transition:
    probabilities = [ref.probability for ref in refs if ref.probability is not None]
    conditions = dict.fromkeys(ref.condition for ref in refs if ref.condition)
    return Transition(
        source=source,
        target=target,
        probability=max(probabilities) if probabilities else None,
        conditions=tuple(conditions),
        asserted_by=tuple(refs),
    )


def _merge_confusion(pair: tuple[str, str], refs: list[Reference]) -> Confusion:
    said: dict[tuple[str, str], None] = {}
    for ref in refs:
        for text in (ref.distinction, ref.condition):
            if text:
                said[(ref.source, text)] = None
    return Confusion(pair[0], pair[1], tuple(said), tuple(refs))


def build_graph(
    records: Iterable[Record],
    *,
    observed: Iterable[ObservedEdge] = (),
    packed: PackedRecords | None = None,
) -> KnowledgeGraph:
    """Build the transition graph of ``records`` (see the module docstring).

    ``packed``: ``records`` already packed (the match index's), kept as they are; a
    graph keeps its records packed (:mod:`bot.records.packed`). A graph made again from
    references kept from an earlier build: :func:`relink_graph`.
    """
    records = list(records)
    said = {record.id: tuple(_references(record)) for record in records}
    by_id = packed if packed is not None else PackedRecords.of(records)
    return _link(by_id, said, observed)


def _edge_key(ref: Reference) -> tuple[str, str]:
    """The ``leads_to`` edge a reference asserts, or the look-alike pair (first < second)."""
    if ref.kind == CONFUSED:
        return (min(ref.source, ref.target), max(ref.source, ref.target))
    return (ref.source, ref.target) if ref.kind == LEADS_TO else (ref.target, ref.source)


def relink_graph(
    packed: PackedRecords,
    references: Mapping[str, tuple[Reference, ...]],
    *,
    observed: Iterable[ObservedEdge] = (),
) -> KnowledgeGraph:
    """The graph :func:`build_graph` made of these records, given every record's references
    as :meth:`KnowledgeGraph.said` gave them: no record is unpacked."""
    said = {
        record_id: references[record_id]
        if record_id in references
        else tuple(_references(packed[record_id]))
        for record_id in packed
    }
    return _link(packed, said, observed)


def _link(
    by_id: PackedRecords,
    said: dict[str, tuple[Reference, ...]],
    observed: Iterable[ObservedEdge],
) -> KnowledgeGraph:
    """The graph of ``by_id`` given each record's references (``said``)."""
    edges: dict[tuple[str, str], list[Reference]] = {}
    pairs: dict[tuple[str, str], list[Reference]] = {}
    targets: set[str] = set()
    for record_id in sorted(by_id):
        for ref in said[record_id]:
            targets.add(ref.target)
            (pairs if ref.kind == CONFUSED else edges).setdefault(_edge_key(ref), []).append(ref)

    nodes = dict.fromkeys(by_id, False)
    nodes.update(dict.fromkeys((t for t in targets if t not in by_id), True))
    succ: dict[str, dict[str, Transition]] = {}
    pred: dict[str, dict[str, Transition]] = {}
    for (source, target), refs in sorted(edges.items()):
        succ.setdefault(source, {})[target] = pred.setdefault(target, {})[source] = (
            _merge_transition(source, target, refs)
        )

    alike: dict[str, dict[str, Confusion]] = {}
    for pair, refs in sorted(pairs.items()):
        if pair[0] != pair[1]:
            confusion = _merge_confusion(pair, refs)
            alike.setdefault(pair[0], {})[pair[1]] = confusion
            alike.setdefault(pair[1], {})[pair[0]] = confusion
    return KnowledgeGraph(by_id, nodes, sorted(nodes), succ, pred, alike, _observed(observed), said)


def _observed(observed: Iterable[ObservedEdge]) -> dict[str, tuple[ObservedEdge, ...]]:
    seen: dict[str, list[ObservedEdge]] = {}
    for edge in observed:
        seen.setdefault(edge.source, []).append(edge)
    return {k: tuple(sorted(v, key=lambda e: (-e.count, e.target))) for k, v in seen.items()}


E_ = TypeVar("E_", Transition, Confusion)


def _same(known: E_ | None, refs: list[Reference]) -> E_ | None:
    """``known`` when it was merged from exactly these references, else None."""
    if known is None or len(known.asserted_by) != len(refs):
        return None
    return known if all(a is b for a, b in zip(known.asserted_by, refs, strict=True)) else None


def _asserting(
    key: tuple[str, str], said: Mapping[str, tuple[Reference, ...]], *, confused: bool
) -> list[Reference]:
    """The references asserting the edge (or look-alike pair) ``key``, in the order a build
    reads them: by record, then as each record gave them."""
    return [
        ref
        for record_id in sorted(set(key))
        for ref in said.get(record_id, ())
        if (ref.kind == CONFUSED) == confused and _edge_key(ref) == key
    ]


class _Edit:
    """The adjacency of a graph being updated: each outer dict copied once, each inner dict
    (a node's neighbours) copied the first time it changes; the old graph keeps its own."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.succ, self.pred, self.alike = dict(kg._succ), dict(kg._pred), dict(kg._alike)
        self._copied: set[tuple[int, str]] = set()

    def near(self, outer: dict[str, dict[str, Any]], node: str) -> dict[str, Any]:
        if (id(outer), node) not in self._copied:
            self._copied.add((id(outer), node))
            outer[node] = dict(outer.get(node, {}))
        return outer[node]

    def put(self, outer: dict[str, dict[str, Any]], a: str, b: str, value: Any) -> None:
        near = self.near(outer, a)
        if value is None:
            near.pop(b, None)
            if not near:
                del outer[a]
        else:
            near[b] = value


class KnowledgeGraph:
    """The transition graph. Read-only once built; queries live in :mod:`graph.triage`."""

    def __init__(
        self,
        records: PackedRecords,
        nodes: dict[str, bool],
        order: list[str],
        succ: dict[str, dict[str, Transition]],
        pred: dict[str, dict[str, Transition]],
        alike: dict[str, dict[str, Confusion]],
        observed: dict[str, tuple[ObservedEdge, ...]],
        said: dict[str, tuple[Reference, ...]],
        ranking: Ranking | None = None,
    ) -> None:
        self._records = records
        self._nodes = nodes  # node id → whether it is a placeholder
        self._order = order  # every node, sorted
        self._succ = succ  # A → B → the transition A→B (nodes with successors only)
        self._pred = pred  # B → A → the transition A→B (nodes with predecessors only)
        self._alike = alike  # A → B → their confusion, both ways
        self._observed = observed
        self._said = said
        if ranking is not None:
            self.__dict__["_ranking"] = ranking  # carried over: the same leads_to graph

    def said(self) -> dict[str, tuple[Reference, ...]]:
        """Each record's references (what :func:`build_graph` can take again)."""
        return dict(self._said)

    @cached_property
    def references(self) -> tuple[Reference, ...]:
        """Every reference, by record (in id order), each record's in the order it gave them."""
        return tuple(chain.from_iterable(self._said[r] for r in self.record_ids))

    def update(
        self,
        upserted: Iterable[Record],
        removed: Iterable[str] = (),
        *,
        observed: Iterable[ObservedEdge] = (),
    ) -> KnowledgeGraph:
        """A new graph with ``upserted`` records added or replaced and ``removed`` ids gone:
        the graph :func:`build_graph` makes of those records. Only the edges the changed
        records' references (old and new) touch are merged again, and the PageRank is
        kept when the ``leads_to`` edges and the nodes are the same. This graph stays as
        it was."""
        upserted, removed = list(upserted), list(removed)
        records = self._records.changed(upserted, removed)
        said = dict(self._said)
        touched: list[Reference] = []
        changed: set[str] = set()
        for record_id in removed:
            if record_id in said:
                touched += said.pop(record_id)
                changed.add(record_id)
        for record in upserted:
            before = said.get(record.id, ())
            given = tuple(_references(record))
            said[record.id] = before if given == before else given  # the same edges, kept
            touched += before
            touched += said[record.id]
            changed.add(record.id)
        edit = _Edit(self)
        moved = False  # whether a leads_to edge changed (PageRank computed again)
        for key in sorted({_edge_key(ref) for ref in touched if ref.kind != CONFUSED}):
            old = self._succ.get(key[0], {}).get(key[1])
            refs = _asserting(key, said, confused=False)
            new = (_same(old, refs) or _merge_transition(*key, refs)) if refs else None
            if new is not old:
                moved = moved or old is None or new is None or old.weight != new.weight
                edit.put(edit.succ, key[0], key[1], new)
                edit.put(edit.pred, key[1], key[0], new)
        for pair in sorted({_edge_key(ref) for ref in touched if ref.kind == CONFUSED}):
            known = self._alike.get(pair[0], {}).get(pair[1])
            refs = _asserting(pair, said, confused=True) if pair[0] != pair[1] else []
            confusion = (_same(known, refs) or _merge_confusion(pair, refs)) if refs else None
            if confusion is not known:
                edit.put(edit.alike, pair[0], pair[1], confusion)
                edit.put(edit.alike, pair[1], pair[0], confusion)
        nodes = self._nodes
        order = self._order
        for node in sorted(changed | {ref.target for ref in touched}):
            was = nodes.get(node)  # placeholder or not; None: not a node
            linked = node in edit.succ or node in edit.pred or node in edit.alike
            now: bool | None = False if node in records else (True if linked else None)
            if now == was:
                continue
            if nodes is self._nodes:
                nodes, order = dict(nodes), list(order)
            if now is None:
                del nodes[node]
                del order[bisect_left(order, node)]
            else:
                if was is None:
                    insort(order, node)
                nodes[node] = now
            moved = moved or was is None or now is None
        ranking = None if moved else self.__dict__.get("_ranking")
        return KnowledgeGraph(
            records,
            nodes,
            order,
            edit.succ,
            edit.pred,
            edit.alike,
            _observed(observed),
            said,
            ranking,
        )

    # -- nodes -------------------------------------------------------------

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __len__(self) -> int:
        return len(self._nodes)

    @cached_property
    def node_ids(self) -> tuple[str, ...]:
        """Every node, records (by id) then placeholders (by id)."""
        return self.record_ids + self.placeholder_ids

    @cached_property
    def record_ids(self) -> tuple[str, ...]:
        nodes = self._nodes
        return tuple(n for n in self._order if not nodes[n])

    @cached_property
    def placeholder_ids(self) -> tuple[str, ...]:
        nodes = self._nodes
        return tuple(n for n in self._order if nodes[n])

    def is_placeholder(self, node_id: str) -> bool:
        return self._nodes[node_id]

    def record(self, record_id: str) -> Record | None:
        return self._records.get(record_id)

    def node(self, node_id: str) -> NodeInfo:
        record = self._records.get(node_id)
        return NodeInfo(
            id=node_id,
            placeholder=record is None,
            signature=record.signature if record else None,
            domain=record.domain if record else None,
        )

    def label(self, node_id: str, locale: str = "en") -> str:
        """The signature in ``locale`` (falling back to the record's own), or the id."""
        record = self._records.get(node_id)
        if record is None:
            return node_id
        text, _ = record.text("signature", locale)
        return str(text)

    # -- edges -------------------------------------------------------------

    def transition(self, source: str, target: str) -> Transition | None:
        return self._succ.get(source, {}).get(target)

    def successors(self, node_id: str) -> dict[str, Transition]:
        """What ``node_id`` leads to: target → transition (empty for an unknown node)."""
        return self._succ.get(node_id, {})

    def predecessors(self, node_id: str) -> dict[str, Transition]:
        """What leads to ``node_id``: source → transition (empty for an unknown node)."""
        return self._pred.get(node_id, {})

    def transitions(self) -> Iterator[Transition]:
        for source in sorted(self._succ):
            for target in sorted(self._succ[source]):
                yield self._succ[source][target]

    def look_alikes_of(self, node_id: str) -> dict[str, Confusion]:
        """The nodes ``node_id`` is confused with: other → their confusion."""
        return self._alike.get(node_id, {})

    def confusion(self, first: str, second: str) -> Confusion | None:
        return self._alike.get(first, {}).get(second)

    def confusions(self) -> Iterator[Confusion]:
        found = {(c.first, c.second): c for near in self._alike.values() for c in near.values()}
        yield from (found[pair] for pair in sorted(found))

    def observed_from(self, source: str) -> tuple[ObservedEdge, ...]:
        """Transitions learnt from use that start at ``source``, most seen first."""
        return self._observed.get(source, ())

    @property
    def edge_count(self) -> int:
        return sum(map(len, self._succ.values()))

    @property
    def confusion_count(self) -> int:
        pairs = sum(map(len, self._alike.values()))
        return pairs // 2

    # -- as networkx graphs (for graph algorithms and exports; same node and edge order) --

    @cached_property
    def _leads(self) -> nx.DiGraph:
        """The ``leads_to`` edges as a networkx graph: nodes carry ``placeholder``,
        edges ``t`` (the :class:`Transition`) and ``w`` (its weight)."""
        import networkx as nx

        leads: nx.DiGraph = nx.DiGraph()
        leads.add_nodes_from((node, {"placeholder": p}) for node, p in self._nodes.items())
        leads.add_edges_from(
            (t.source, t.target, {"t": t, "w": t.weight}) for t in self.transitions()
        )
        return leads

    @cached_property
    def _confused(self) -> nx.Graph:
        """The look-alike pairs as a networkx graph; edges carry ``c`` (the :class:`Confusion`)."""
        import networkx as nx

        confused: nx.Graph = nx.Graph()
        for c in self.confusions():
            confused.add_edge(c.first, c.second, c=c)
        return confused

    # -- centrality (PageRank computed once per leads_to graph, looked up) ----

    @cached_property
    def _ranking(self) -> Ranking:
        from graph.centrality import rank_nodes

        return rank_nodes(self._order, self._succ)

    def centrality(self, node_id: str) -> Centrality:
        return self.centralities()[node_id]

    def centralities(self) -> Centralities:
        """Every node's centrality, by node id (sorted); the PageRank is computed here the
        first time (an update keeps it when its ``leads_to`` edges and nodes are the same)."""
        from graph.centrality import Centralities

        return Centralities(self, self._ranking)
