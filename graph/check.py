"""Checking the transition graph: what ``errkb graph check`` reports.

- dangling references: a link to an id that is not a record (kept as a placeholder);
- one-sided links: A ``leads_to`` B but B is not ``preceded_by`` A (or the
  reverse), A confused with B but not B with A;
- self-loops: a record linking to itself;
- cycles: groups of records that lead back to themselves (strongly connected
  components), each with one example cycle;
- orphans: records with no link either way; components; hubs;
- variant groups: records of one error that differ only by version or
  environment (the same id slug, or the same domain and error template), so
  maintainers can merge them or tell them apart (:mod:`bot.match.variants`).

``--strict`` fails on dangling references and self-loops only
(:attr:`GraphReport.strict_ok`); the rest is advice.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import networkx as nx

from graph.build import CONFUSED, LEADS_TO, PRECEDED_BY, KnowledgeGraph

HUB_MIN_DEGREE = 10
HUB_LIMIT = 10
SAMPLE_CYCLE_LIMIT = 20


@dataclass(frozen=True)
class Dangling:
    source: str
    kind: str
    target: str


@dataclass(frozen=True)
class OneSided:
    source: str  # the record that said it
    kind: str  # what it said
    target: str  # the record that did not say the converse
    missing: str  # the converse kind target should list source under


@dataclass(frozen=True)
class SelfLoop:
    record_id: str
    kind: str


@dataclass(frozen=True)
class Cycle:
    members: tuple[str, ...]  # a strongly connected group, sorted
    example: tuple[str, ...]  # one cycle through it: a → b → … → a


@dataclass(frozen=True)
class Hub:
    id: str
    in_degree: int
    out_degree: int
    confused_degree: int

    @property
    def degree(self) -> int:
        return self.in_degree + self.out_degree + self.confused_degree


@dataclass(frozen=True)
class GraphReport:
    records: int
    placeholders: int
    references: int
    leads_to_edges: int
    confusion_pairs: int
    dangling: tuple[Dangling, ...]
    one_sided: tuple[OneSided, ...]
    self_loops: tuple[SelfLoop, ...]
    cycles: tuple[Cycle, ...]
    orphans: tuple[str, ...]
    components: int  # connected groups of linked nodes (orphans not counted)
    largest_components: tuple[int, ...]
    hubs: tuple[Hub, ...]
    variants: tuple[tuple[str, ...], ...] = ()  # groups of records that are variants of one error

    @property
    def strict_ok(self) -> bool:
        """What ``--strict`` requires: no dangling reference, no self-loop."""
        return not self.dangling and not self.self_loops

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["strict_ok"] = self.strict_ok
        return data


_CONVERSE = {LEADS_TO: PRECEDED_BY, PRECEDED_BY: LEADS_TO, CONFUSED: CONFUSED}


def _one_sided(kg: KnowledgeGraph) -> list[OneSided]:
    said = {(ref.source, ref.kind, ref.target) for ref in kg.references}
    found = []
    for ref in kg.references:
        if ref.source == ref.target or kg.record(ref.target) is None:
            continue
        converse = _CONVERSE[ref.kind]
        if (ref.target, converse, ref.source) not in said:
            found.append(OneSided(ref.source, ref.kind, ref.target, converse))
    return sorted(set(found), key=lambda o: (o.source, o.kind, o.target))


def _cycles(kg: KnowledgeGraph) -> list[Cycle]:
    leads = kg._leads
    found = []
    for group in nx.strongly_connected_components(leads):
        if len(group) < 2:
            continue
        members = tuple(sorted(group))
        sub = leads.subgraph(group)
        example = tuple(u for u, _ in nx.find_cycle(sub, source=members[0]))
        found.append(Cycle(members, (*example, example[0])))
    return sorted(found, key=lambda c: (-len(c.members), c.members))


def _components(kg: KnowledgeGraph) -> tuple[int, tuple[int, ...]]:
    linked = nx.Graph()
    linked.add_edges_from((u, v) for u, v in kg._leads.edges if u != v)
    linked.add_edges_from(kg._confused.edges)
    sizes = sorted((len(c) for c in nx.connected_components(linked)), reverse=True)
    return len(sizes), tuple(sizes[:5])


def _hubs(kg: KnowledgeGraph) -> list[Hub]:
    leads = kg._leads
    confused = kg._confused
    hubs = [
        Hub(
            id=node,
            in_degree=int(leads.in_degree(node)),
            out_degree=int(leads.out_degree(node)),
            confused_degree=int(confused.degree(node)) if node in confused else 0,
        )
        for node in leads.nodes
    ]
    hubs = [h for h in hubs if h.degree >= HUB_MIN_DEGREE]
    return sorted(hubs, key=lambda h: (-h.degree, h.id))[:HUB_LIMIT]


def _variants(kg: KnowledgeGraph) -> list[tuple[str, ...]]:
    from bot.match.info import variant_key
    from bot.match.variants import members, variant_groups

    records = [r for r in (kg.record(rid) for rid in kg.record_ids) if r is not None]
    groups = members(variant_groups([variant_key(r) for r in records]))
    return sorted(tuple(sorted(records[i].id for i in group)) for group in groups.values())


def check_graph(kg: KnowledgeGraph) -> GraphReport:
    """Everything ``errkb graph check`` reports about ``kg``."""
    dangling = [
        Dangling(ref.source, ref.kind, ref.target)
        for ref in kg.references
        if kg.record(ref.target) is None
    ]
    self_loops = sorted(
        {SelfLoop(ref.source, ref.kind) for ref in kg.references if ref.source == ref.target},
        key=lambda s: (s.record_id, s.kind),
    )
    linked = {ref.source for ref in kg.references if ref.target != ref.source}
    linked |= {ref.target for ref in kg.references if ref.target != ref.source}
    orphans = tuple(rid for rid in kg.record_ids if rid not in linked)
    components, largest = _components(kg)
    return GraphReport(
        records=len(kg.record_ids),
        placeholders=len(kg.placeholder_ids),
        references=len(kg.references),
        leads_to_edges=kg.edge_count,
        confusion_pairs=kg.confusion_count,
        dangling=tuple(sorted(dangling, key=lambda d: (d.source, d.kind, d.target))),
        one_sided=tuple(_one_sided(kg)),
        self_loops=tuple(self_loops),
        cycles=tuple(_cycles(kg)),
        orphans=orphans,
        components=components,
        largest_components=largest,
        hubs=tuple(_hubs(kg)),
        variants=tuple(_variants(kg)),
    )
