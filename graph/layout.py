"""Where each box of a neighbourhood picture goes: layered columns, no overlap. Pure geometry.

A column per hop: what comes before the centre on the left, what follows on
the right, the centre with its look-alikes in the middle. A column shows at
most ``per_column`` records, best path probability first, and one "+k more"
box for the rest; within a column records are ordered by where their
neighbours sit in the column nearer the centre, so edges cross little.
A record's box shows its id (to copy into ``errkb show``) above its label.
Each label is cleaned (banner lines such as ``=====`` dropped), wrapped
between words and CJK characters (:mod:`graph.labels`) and measured with the
``measure`` function the drawing passes in (pixels of one line), so every box
is as tall and wide as its text needs. Every box has one width; columns are
``GAP_X`` apart and boxes in a column ``GAP_Y`` apart, so no two boxes can
overlap and every box is inside the picture: the tests check both on the
geometry and on the drawn text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from graph.draw import EdgeView, Neighbourhood, NodeView
from graph.labels import wrap_label

#: Records a column shows before the rest are one "+k more" box.
PER_COLUMN = 5
#: Records a picture's neighbourhood reads (``neighbourhood(max_nodes=...)``), so that each
#: column's "+k more" counts every record within reach, not only the first few overall.
PICTURE_NODES = 500
LINE_CELLS = 24  # label width in half-width character cells
LABEL_LINES = 3
PAD_X = 12.0
PAD_Y = 8.0
GAP_X = 110.0
GAP_Y = 22.0
MARGIN = 16.0
#: Room beside the outer columns (for a look-alike's arc beside the centre's column).
ARC_ROOM = 24.0
LINE_SPACING = 1.3
_WORDLESS = re.compile(r"^\W*$")


@dataclass(frozen=True)
class Box:
    id: str
    kind: str  # "centre", "record", "placeholder" (not in the knowledge base) or "more"
    layer: int
    x: float  # left
    y: float  # top (y grows downwards)
    w: float
    h: float
    lines: tuple[str, ...]  # a record's box: its id first, then its signature
    line_height: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def centre_y(self) -> float:
        return self.y + self.h / 2

    def overlaps(self, other: Box) -> bool:
        return not (
            self.right <= other.x
            or other.right <= self.x
            or self.bottom <= other.y
            or other.bottom <= self.y
        )


@dataclass(frozen=True)
class Layout:
    width: float
    height: float
    boxes: tuple[Box, ...]
    #: what is drawn: leads-to from a column to the next one out, the centre's look-alikes
    #: (the tree and --json have every link)
    edges: tuple[EdgeView, ...]
    #: (source, target) of a leads-to edge → the y where it leaves its source and enters its target
    ports: dict[tuple[str, str], tuple[float, float]]

    def box(self, node_id: str) -> Box:
        return next(b for b in self.boxes if b.id == node_id)

    def between(self, one: Box, other: Box) -> bool:
        """Whether another box of their column lies between ``one`` and ``other``."""
        top, bottom = sorted((one, other), key=lambda b: b.y)
        return any(
            b.layer == one.layer and top.bottom <= b.y and b.bottom <= bottom.y
            for b in self.boxes
            if b.id not in (one.id, other.id)
        )


def label_lines(text: str) -> list[str]:
    """A signature as at most :data:`LABEL_LINES` lines: lines of no word (``=====``) dropped."""
    kept = [line for line in text.splitlines() if not _WORDLESS.match(line)]
    return wrap_label(
        " ".join(" ".join(kept).split()),
        cells=LINE_CELLS,
        lines=LABEL_LINES,
        max_cells=LINE_CELLS + 6,
    )


def _columns(
    nb: Neighbourhood, per_column: int
) -> tuple[dict[int, list[NodeView]], dict[int, int]]:
    """Each layer's shown nodes (best first, the centre first in its own) and how many are not.

    Columns are filled from the centre outwards; a record further out is shown only when an
    edge joins it to one shown in the column nearer the centre (the picture draws no other).
    """
    layers: dict[int, list[NodeView]] = {}
    for node in nb.nodes:
        layers.setdefault(node.layer, []).append(node)
    shown: dict[int, list[NodeView]] = {}
    hidden: dict[int, int] = {}
    for layer in sorted(layers, key=abs):
        nodes = sorted(layers[layer], key=lambda n: (n.id != nb.centre, -n.score, n.id))
        if layer:
            inner = {n.id for n in shown.get(layer - (1 if layer > 0 else -1), [])}
            drawn = {
                (e.target if layer > 0 else e.source)
                for e in nb.edges
                if e.kind == "leads_to" and (e.source if layer > 0 else e.target) in inner
            }
            nodes = [n for n in nodes if n.id in drawn]
        kept = nodes[:per_column]
        if kept or layer == 0:
            shown[layer] = kept
        hidden[layer] = len(layers[layer]) - len(kept)
    return shown, {k: v for k, v in hidden.items() if k in shown}


def _order(shown: dict[int, list[NodeView]], edges: tuple[EdgeView, ...], centre: str) -> None:
    """Order each column by the mean position of its neighbours in the column nearer the centre."""
    position: dict[str, float] = {}
    middle = shown.get(0, [])
    others = [n for n in middle if n.id != centre]
    ordered = (
        others[: len(others) // 2]
        + [n for n in middle if n.id == centre]
        + others[len(others) // 2 :]
    )
    shown[0] = ordered
    position.update({n.id: float(i) for i, n in enumerate(ordered)})
    linked: dict[str, set[str]] = {}
    for e in edges:
        linked.setdefault(e.source, set()).add(e.target)
        linked.setdefault(e.target, set()).add(e.source)
    for step in (1, -1):
        layer = step
        while layer in shown:

            def weight(node: NodeView) -> float:
                near = [position[o] for o in linked.get(node.id, ()) if o in position]
                return sum(near) / len(near) if near else float(len(position))

            shown[layer].sort(key=lambda n: (weight(n), -n.score, n.id))
            position.update({n.id: float(i) for i, n in enumerate(shown[layer])})
            layer += step


def layout(
    nb: Neighbourhood,
    measure: Callable[[str], tuple[float, float]],
    *,
    more: Callable[[int], str],
    missing: str,
    per_column: int = PER_COLUMN,
) -> Layout:
    """The boxes of ``nb`` placed in columns; ``measure(line)`` is a line's (width, height) in
    pixels, ``more(k)`` the text of a "+k more" box, ``missing`` what marks a placeholder."""
    shown, hidden = _columns(nb, per_column)
    _order(shown, nb.edges, nb.centre)
    texts: dict[str, tuple[list[str], str]] = {}
    for nodes in shown.values():
        for node in nodes:
            if node.placeholder:
                texts[node.id] = (
                    [*wrap_label(node.id, cells=LINE_CELLS, lines=2), missing],
                    "placeholder",
                )
            else:
                kind = "centre" if node.id == nb.centre else "record"
                texts[node.id] = ([node.id, *label_lines(node.label)], kind)
    for layer, count in hidden.items():
        if count:
            texts[f"+more:{layer}"] = ([more(count)], "more")
    line_height = max(measure("Ag国")[1], 1.0) * LINE_SPACING
    width = max(
        max(measure(line)[0] for lines, _ in texts.values() for line in lines) + 2 * PAD_X, 140.0
    )
    first = min(shown)
    boxes: list[Box] = []
    heights: dict[int, float] = {}
    columns: dict[int, list[tuple[str, str, list[str]]]] = {}
    for layer in sorted(shown):
        entries = [(n.id, texts[n.id][1], texts[n.id][0]) for n in shown[layer]]
        if hidden.get(layer):
            key = f"+more:{layer}"
            entries.append((key, "more", texts[key][0]))
        columns[layer] = entries
        heights[layer] = sum(len(lines) * line_height + 2 * PAD_Y for _, _, lines in entries)
        heights[layer] += GAP_Y * (len(entries) - 1)
    tallest = max(heights.values())
    for layer, entries in columns.items():
        x = MARGIN + ARC_ROOM + (layer - first) * (width + GAP_X)
        y = MARGIN + (tallest - heights[layer]) / 2
        for node_id, kind, lines in entries:
            h = len(lines) * line_height + 2 * PAD_Y
            boxes.append(Box(node_id, kind, layer, x, y, width, h, tuple(lines), line_height))
            y += h + GAP_Y
    by_id = {b.id: b for b in boxes}
    edges = tuple(
        e
        for e in nb.edges
        if e.source in by_id
        and e.target in by_id
        and (
            by_id[e.target].layer == by_id[e.source].layer + 1
            if e.kind == "leads_to"
            else by_id[e.source].layer == by_id[e.target].layer == 0
        )
    )
    span = max(shown) - first + 1
    total = 2 * (MARGIN + ARC_ROOM) + span * width + (span - 1) * GAP_X
    return Layout(total, 2 * MARGIN + tallest, tuple(boxes), edges, _ports(by_id, edges))


def _ports(
    boxes: dict[str, Box], edges: tuple[EdgeView, ...]
) -> dict[tuple[str, str], tuple[float, float]]:
    """Where each leads-to edge leaves its source and enters its target (y of each end): spread
    along the box's side in the order of the other ends, so arrows do not meet in one point."""
    ends: dict[tuple[str, str], list[float]] = {}
    leaving: dict[str, list[EdgeView]] = {}
    entering: dict[str, list[EdgeView]] = {}
    for e in edges:
        if e.kind == "leads_to":
            leaving.setdefault(e.source, []).append(e)
            entering.setdefault(e.target, []).append(e)
    for groups, other in ((leaving, "target"), (entering, "source")):  # the source end first
        for node, group in groups.items():
            box = boxes[node]
            group.sort(key=lambda e: boxes[getattr(e, other)].centre_y)
            for i, e in enumerate(group):
                ends.setdefault((e.source, e.target), []).append(
                    box.y + box.h * (i + 1) / (len(group) + 1)
                )
    return {key: (ys[0], ys[1]) for key, ys in ends.items()}


__all__ = ["Box", "Layout", "label_lines", "layout"]
