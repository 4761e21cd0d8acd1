"""A record's neighbourhood: as plain data, and as a text tree with probabilities.

:func:`neighbourhood` picks what ``errkb graph show`` displays: the record,
what leads to it and what it leads to within ``depth`` hops (best paths
first, at most ``max_nodes``), and its look-alikes. :func:`render_tree` draws
it as text; :mod:`graph.picture` draws it as a PNG. Labels, conditions and
distinctions are in the chosen locale, and so are the tree's own words (each falling back to its
record's own words); long texts are cut between words, never inside one.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import t as translate
from graph import said
from graph.build import KnowledgeGraph
from graph.labels import shorten
from graph.lookalike import look_alikes
from graph.triage import best_paths

MAX_CHILDREN = 8


@dataclass(frozen=True)
class NodeView:
    id: str
    label: str  # signature in the chosen locale, or the id
    layer: int  # 0 the centre, -n n hops before it, +n n hops after it
    score: float  # best path probability to or from the centre (1.0 for the centre)
    placeholder: bool


@dataclass(frozen=True)
class EdgeView:
    source: str
    target: str
    kind: str  # "leads_to" or "frequently_confused_with"
    probability: float | None
    conditions: tuple[str, ...]


@dataclass(frozen=True)
class Neighbourhood:
    centre: str
    depth: int
    locale: str
    nodes: tuple[NodeView, ...]
    edges: tuple[EdgeView, ...]
    left_out: int  # nodes within depth not shown (over max_nodes)


def neighbourhood(
    kg: KnowledgeGraph, record_id: str, *, depth: int = 2, locale: str = "en", max_nodes: int = 25
) -> Neighbourhood:
    """What surrounds ``record_id`` within ``depth`` hops (``KeyError`` if it is not a node)."""
    if record_id not in kg:
        raise KeyError(record_id)
    before = best_paths(kg, record_id, hops=depth, backward=True)
    after = best_paths(kg, record_id, hops=depth, backward=False)
    found: dict[str, tuple[int, float]] = {}
    for node, (score, path) in before.items():
        found[node] = (-(len(path) - 1), score)
    for node, (score, path) in after.items():
        hops = len(path) - 1
        if node not in found or hops <= -found[node][0]:
            found[node] = (hops, score)
    for alike in look_alikes(kg, record_id):
        found.setdefault(alike.id, (0, 0.0))
    ranked = sorted(found.items(), key=lambda kv: (abs(kv[1][0]), -kv[1][1], kv[0]))
    kept = ranked[: max(0, max_nodes - 1)]
    layers = {record_id: (0, 1.0), **dict(kept)}

    def view(node: str) -> NodeView:
        layer, score = layers[node]
        label = kg.label(node, locale)
        return NodeView(node, label, layer, score, kg.is_placeholder(node))

    edges = []
    for node in sorted(layers):
        for other, t in sorted(kg.successors(node).items()):
            if other in layers and other != node:
                told = said.conditions(kg, node, other, locale)
                edges.append(EdgeView(node, other, "leads_to", t.probability, told))
    for alike in look_alikes(kg, record_id):
        if alike.id in layers:
            told = said.distinctions(kg, record_id, alike.id, locale)
            edges.append(EdgeView(record_id, alike.id, "frequently_confused_with", None, told))
    nodes = tuple(view(n) for n in sorted(layers, key=lambda n: (layers[n][0], n)))
    return Neighbourhood(record_id, depth, locale, nodes, tuple(edges), len(ranked) - len(kept))


def _short(text: str, limit: int = 70) -> str:
    """One line of at most ``limit`` cells, cut between words (or CJK characters)."""
    return shorten(" ".join(text.split()), limit)


def _label(kg: KnowledgeGraph, node: str, locale: str) -> str:
    if kg.is_placeholder(node):
        return translate(locale, "graph.picture.missing")
    return _short(kg.label(node, locale))


def _probability(value: float | None) -> str:
    return "  ?  " if value is None else f"{value:.2f}"


def _branch(
    kg: KnowledgeGraph,
    node: str,
    *,
    backward: bool,
    depth: int,
    locale: str,
    seen: tuple[str, ...],
    prefix: str,
) -> list[str]:
    if depth == 0:
        return []
    adjacency = kg.predecessors(node) if backward else kg.successors(node)
    children = [(other, t) for other, t in adjacency.items() if other not in seen]
    children.sort(key=lambda c: (-c[1].weight, c[0]))
    lines = []
    shown = children[:MAX_CHILDREN]
    for i, (other, t) in enumerate(shown):
        last = i == len(shown) - 1 and len(children) <= MAX_CHILDREN
        arrow = "←" if backward else "→"
        source, target = (other, node) if backward else (node, other)
        told = said.conditions(kg, source, target, locale)
        lines.append(
            f"{prefix}{'└─' if last else '├─'} {arrow} {_probability(t.probability)}  {other}"
            f"  {_label(kg, other, locale)}"
            + (
                f"  [{translate(locale, 'graph.tree.if', conditions=_short('; '.join(told), 60))}]"
                if told
                else ""
            )
        )
        lines += _branch(
            kg,
            other,
            backward=backward,
            depth=depth - 1,
            locale=locale,
            seen=(*seen, other),
            prefix=prefix + ("   " if last else "│  "),
        )
    if len(children) > MAX_CHILDREN:
        lines.append(
            f"{prefix}└─ {translate(locale, 'graph.tree.more', count=len(children) - MAX_CHILDREN)}"
        )
    return lines


def render_tree(kg: KnowledgeGraph, record_id: str, *, depth: int = 2, locale: str = "en") -> str:
    """The neighbourhood of ``record_id`` as an indented text tree with probabilities."""
    if record_id not in kg:
        raise KeyError(record_id)
    head = f"{record_id}  {_short(kg.label(record_id, locale), 100)}"
    if kg.is_placeholder(record_id):
        head += "  " + translate(locale, "graph.picture.missing")
    lines = [head]
    sections = []
    for title, backward in (
        (translate(locale, "graph.tree.preceded_by"), True),
        (translate(locale, "graph.tree.leads_to"), False),
    ):
        branch = _branch(
            kg,
            record_id,
            backward=backward,
            depth=depth,
            locale=locale,
            seen=(record_id,),
            prefix="   ",
        )
        sections.append((title, branch))
    alikes = []
    for alike in look_alikes(kg, record_id):
        told = said.distinctions(kg, record_id, alike.id, locale)
        alikes.append(f"   ≈ {alike.id}  {_short(told[0]) if told else ''}".rstrip())
    sections.append((translate(locale, "graph.tree.confused_with"), alikes))
    for title, branch in sections:
        lines.append(title + ("" if branch else " " + translate(locale, "graph.tree.none")))
        lines += branch
    return "\n".join(lines)
