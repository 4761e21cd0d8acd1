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
without importing networkx (about a seventh of its CPU time, measured). The
algorithms of ``errkb graph check`` and the exports get the same graph as
networkx objects (``KnowledgeGraph._leads`` and ``_confused``, built on first use).
networkx stays inside ``graph/``: callers get the frozen dataclasses below.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from bot.records import Record, link_condition, link_probability, link_target
from bot.records.packed import PackedRecords

if TYPE_CHECKING:
    import networkx as nx

    from graph.centrality import Centrality

#: Score used for a link that states no probability (a plain id, or an object without one).
DEFAULT_PROBABILITY = 0.5
LEADS_TO, PRECEDED_BY, CONFUSED = "leads_to", "preceded_by", "frequently_confused_with"


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
    references: Mapping[str, tuple[Reference, ...]] | None = None,
    packed: PackedRecords | None = None,
) -> KnowledgeGraph:
    """Build the transition graph of ``records`` (see the module docstring).

    ``references``: each record's references as :meth:`KnowledgeGraph.said` gave them
    (kept from an earlier build), so they need not be read from the records again.
    ``packed``: ``records`` already packed (the match index's), kept as they are; a
    graph keeps its records packed (:mod:`bot.records.packed`).
    """
    records = list(records)
    known = references or {}
    said: dict[str, tuple[Reference, ...]] = {}
    for record in records:
        said[record.id] = known[record.id] if record.id in known else tuple(_references(record))
    by_id = packed if packed is not None else PackedRecords.of(records)
    return _link(by_id, said, observed, {}, {})


def relink_graph(
    packed: PackedRecords,
    references: Mapping[str, tuple[Reference, ...]],
    *,
    observed: Iterable[ObservedEdge] = (),
) -> KnowledgeGraph:
    """The graph :func:`build_graph` made of these records, given every record's references
    as :meth:`KnowledgeGraph.said` gave them: no record is unpacked."""
    said = {
        record_id: references[record_id] if record_id in references
        else tuple(_references(packed[record_id]))
        for record_id in packed
    }  # fmt: skip
    return _link(packed, said, observed, {}, {})


def _link(
    by_id: PackedRecords,
    said: dict[str, tuple[Reference, ...]],
    observed: Iterable[ObservedEdge],
    transitions: dict[tuple[str, str], Transition],
    confusions: dict[tuple[str, str], Confusion],
) -> KnowledgeGraph:
    """The graph of ``by_id`` given each record's references (``said``). ``transitions`` and
    ``confusions``: merged edges of an earlier graph, reused where their references are
    the same objects (the records asserting them did not change)."""
    references: list[Reference] = []
    edges: dict[tuple[str, str], list[Reference]] = {}
    pairs: dict[tuple[str, str], list[Reference]] = {}
    for record_id in sorted(by_id):
        for ref in said[record_id]:
            references.append(ref)
            if ref.kind == CONFUSED:
                pair = (min(ref.source, ref.target), max(ref.source, ref.target))
                pairs.setdefault(pair, []).append(ref)
            else:
                key = (ref.source, ref.target) if ref.kind == LEADS_TO else (ref.target, ref.source)
                edges.setdefault(key, []).append(ref)

    nodes = dict.fromkeys(sorted(by_id), False)
    nodes.update(
        dict.fromkeys(sorted({r.target for r in references if r.target not in by_id}), True)
    )
    succ: dict[str, dict[str, Transition]] = {node: {} for node in nodes}
    pred: dict[str, dict[str, Transition]] = {node: {} for node in nodes}
    for (source, target), refs in sorted(edges.items()):
        merged = _same(transitions.get((source, target)), refs)
        succ[source][target] = pred[target][source] = merged or _merge_transition(
            source, target, refs
        )

    alike: dict[str, dict[str, Confusion]] = {}
    for pair, refs in sorted(pairs.items()):
        if pair[0] != pair[1]:
            confusion = _same(confusions.get(pair), refs) or _merge_confusion(pair, refs)
            alike.setdefault(pair[0], {})[pair[1]] = confusion
            alike.setdefault(pair[1], {})[pair[0]] = confusion

    seen: dict[str, list[ObservedEdge]] = {}
    for edge in observed:
        seen.setdefault(edge.source, []).append(edge)
    return KnowledgeGraph(by_id, nodes, succ, pred, alike, tuple(references), seen, said)


E_ = TypeVar("E_", Transition, Confusion)


def _same(known: E_ | None, refs: list[Reference]) -> E_ | None:
    """``known`` when it was merged from exactly these references, else None."""
    if known is None or len(known.asserted_by) != len(refs):
        return None
    return known if all(a is b for a, b in zip(known.asserted_by, refs, strict=True)) else None


class KnowledgeGraph:
    """The transition graph. Read-only once built; queries live in :mod:`graph.triage`."""

    def __init__(
        self,
        records: PackedRecords,
        nodes: dict[str, bool],
        succ: dict[str, dict[str, Transition]],
        pred: dict[str, dict[str, Transition]],
        alike: dict[str, dict[str, Confusion]],
        references: tuple[Reference, ...],
        observed: dict[str, list[ObservedEdge]],
        said: dict[str, tuple[Reference, ...]] | None = None,
    ) -> None:
        self._records = records
        self._nodes = nodes  # node id → whether it is a placeholder
        self._succ = succ  # A → B → the transition A→B
        self._pred = pred  # B → A → the transition A→B
        self._alike = alike  # A → B → their confusion, both ways
        self.references = references
        self._observed = {
            k: tuple(sorted(v, key=lambda e: (-e.count, e.target))) for k, v in observed.items()
        }
        self._said = said if said is not None else {}

    def said(self) -> dict[str, tuple[Reference, ...]]:
        """Each record's references (what :func:`build_graph` can take again)."""
        return dict(self._said)

    def update(
        self,
        upserted: Iterable[Record],
        removed: Iterable[str] = (),
        *,
        observed: Iterable[ObservedEdge] = (),
    ) -> KnowledgeGraph:
        """A new graph with ``upserted`` records added or replaced and ``removed`` ids gone:
        the graph :func:`build_graph` makes of those records. Only the changed records'
        references are read again; the edges of the others are reused. This graph stays
        as it was."""
        upserted, removed = list(upserted), list(removed)
        by_id, said = self._records.changed(upserted, removed), dict(self._said)
        for record_id in removed:
            said.pop(record_id, None)
        for record in upserted:
            said[record.id] = tuple(_references(record))
        transitions = {
            (t.source, t.target): t for near in self._succ.values() for t in near.values()
        }
        confusions = {
            (c.first, c.second): c for near in self._alike.values() for c in near.values()
        }
        return _link(by_id, said, observed, transitions, confusions)

    # -- nodes -------------------------------------------------------------

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __len__(self) -> int:
        return len(self._nodes)

    @property
    def node_ids(self) -> tuple[str, ...]:
        """Every node, records (by id) then placeholders (by id)."""
        return tuple(self._nodes)

    @property
    def record_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self._records))

    @property
    def placeholder_ids(self) -> tuple[str, ...]:
        return tuple(n for n, p in sorted(self._nodes.items()) if p)

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

    # -- centrality (computed once, looked up) -----------------------------

    @cached_property
    def _centrality(self) -> dict[str, Centrality]:
        from graph.centrality import compute_centrality

        return compute_centrality(self)

    def centrality(self, node_id: str) -> Centrality:
        return self._centrality[node_id]

    def centralities(self) -> dict[str, Centrality]:
        return dict(self._centrality)
