"""A neighbourhood as a PNG: matplotlib's Agg canvas, no pyplot, no global state.

Columns are hops before (left) and after (right) the centre, which is
highlighted; edges carry their probability; look-alikes are dashed. Labels
use the chosen locale, wrap between words and CJK characters without breaking
a word or identifier (:mod:`graph.labels`), and fall back across fonts, so Chinese renders with the
Noto Sans SC face that the ``pylopdf-fonts-zh-cn`` package ships (SIL OFL),
without touching the network. Sized to stay readable as a Slack thumbnail.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path

from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from graph.draw import Neighbourhood
from graph.labels import wrap_label

LATIN_FAMILY = "DejaVu Sans"
FONT_SIZE = 13
LINE_CELLS = 20  # label width in half-width character cells
LABEL_LINES = 3
CENTRE_COLOUR, NODE_COLOUR, PLACEHOLDER_COLOUR = "#ffd166", "#e8f1fb", "#eeeeee"


def cjk_font_path() -> Path | None:
    """The bundled CJK font file, if its package is installed."""
    try:
        import pylopdf_fonts_zh_cn
    except ImportError:
        return None
    path = Path(pylopdf_fonts_zh_cn.sans_path())
    return path if path.is_file() else None


@lru_cache(maxsize=1)
def font_families() -> tuple[str, ...]:
    """Families for labels, in fallback order (registers the CJK font once)."""
    families = [LATIN_FAMILY]
    path = cjk_font_path()
    if path is not None:
        font_manager.fontManager.addfont(str(path))
        families.append(font_manager.FontProperties(fname=str(path)).get_name())
    return tuple(families)


def font_paths() -> tuple[Path, ...]:
    """The font files labels are drawn with, in fallback order."""
    prop = font_manager.FontProperties(family=list(font_families()))
    return tuple(Path(p) for p in font_manager.fontManager._find_fonts_by_props(prop))


def _positions(nb: Neighbourhood) -> dict[str, tuple[float, float]]:
    columns: dict[int, list[str]] = {}
    for node in nb.nodes:
        columns.setdefault(node.layer, []).append(node.id)
    centre_column = columns.get(0, [])
    if nb.centre in centre_column:  # centre in the middle of its column
        centre_column.remove(nb.centre)
        centre_column.insert(len(centre_column) // 2, nb.centre)
    places = {}
    for layer, ids in columns.items():
        for i, node_id in enumerate(ids):
            places[node_id] = (layer * 1.0, (len(ids) - 1) / 2 - i)
    return places


def render_png(nb: Neighbourhood, *, dpi: int = 100) -> bytes:
    """The neighbourhood as PNG bytes."""
    families = list(font_families())
    places = _positions(nb)
    layers = [n.layer for n in nb.nodes]
    span_x = max(layers) - min(layers) + 1
    span_y = max(sum(1 for n in nb.nodes if n.layer == layer) for layer in set(layers))
    fig = Figure(figsize=(max(3.6, 3.1 * span_x), max(1.8, 1.2 * span_y + 0.3)), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(min(layers) - 0.5, max(layers) + 0.5)
    ax.set_ylim(-span_y / 2 - 0.05, span_y / 2 + 0.05)
    ax.axis("off")
    boxes = {}
    for node in nb.nodes:
        x, y = places[node.id]
        centre = node.id == nb.centre
        text = "\n".join(wrap_label(node.label, cells=LINE_CELLS, lines=LABEL_LINES))
        colour = (
            CENTRE_COLOUR if centre else PLACEHOLDER_COLOUR if node.placeholder else NODE_COLOUR
        )
        boxes[node.id] = ax.text(
            x, y, text, ha="center", va="center", fontsize=FONT_SIZE, fontfamily=families,
            zorder=3,
            bbox={"boxstyle": "round,pad=0.35", "facecolor": colour,
                  "edgecolor": "#b5651d" if centre else "#5b7fa6",
                  "linewidth": 2.5 if centre else 1.0,
                  "linestyle": "--" if node.placeholder else "-"},
        )  # fmt: skip
    for edge in nb.edges:
        (x1, y1), (x2, y2) = places[edge.source], places[edge.target]
        confused = edge.kind != "leads_to"
        bend = 0.0 if confused or x2 > x1 else 0.45 if x2 == x1 else 0.25
        ax.annotate(
            "", xy=(x2, y2), xytext=(x1, y1), zorder=2,
            arrowprops={"arrowstyle": "-" if confused else "-|>", "color": "#555555",
                        "linestyle": "--" if confused else "-", "linewidth": 1.4,
                        "mutation_scale": 18, "shrinkA": 2, "shrinkB": 2,
                        "patchA": boxes[edge.source].get_bbox_patch(),
                        "patchB": boxes[edge.target].get_bbox_patch(),
                        "connectionstyle": f"arc3,rad={bend}"},
        )  # fmt: skip
        if not confused:
            label = "?" if edge.probability is None else f"{edge.probability:.2f}"
            ax.text(
                (x1 + x2) / 2, (y1 + y2) / 2 + (0.18 if bend else 0.0), label,
                ha="center", va="center", fontsize=FONT_SIZE - 1, fontfamily=families,
                zorder=4, bbox={"boxstyle": "round,pad=0.15", "facecolor": "white",
                                "edgecolor": "none"},
            )  # fmt: skip
    fig.canvas.draw()  # place the label boxes so that arrows stop at their edges
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return buffer.getvalue()


__all__ = ["cjk_font_path", "font_families", "font_paths", "render_png", "wrap_label"]
