"""A neighbourhood as a PNG: matplotlib's Agg canvas, no pyplot, no global state.

Columns are hops before (left) and after (right) the centre, which is
highlighted, placed by :mod:`graph.layout` (at most a few records a column and
"+k more", boxes sized to their measured text, none overlapping); edges carry
their probability; look-alikes are dashed. Drawing is in pixels: the axes span
the figure one data unit a pixel. Labels use the chosen locale, wrap between
words and CJK characters without breaking a word or identifier
(:mod:`graph.labels`), and fall back across fonts, so Chinese renders with the
Noto Sans SC face that the ``pylopdf-fonts-zh-cn`` package ships (SIL OFL),
without touching the network. Sized to stay readable as a Slack thumbnail.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyBboxPatch
from matplotlib.text import Text as MplText

from graph.draw import EdgeView, Neighbourhood
from graph.labels import wrap_label
from graph.layout import PER_COLUMN, Layout, layout

LATIN_FAMILY = "DejaVu Sans"
FONT_SIZE = 13
CENTRE_COLOUR, NODE_COLOUR, PLACEHOLDER_COLOUR = "#ffd166", "#e8f1fb", "#eeeeee"
#: box kind → (fill, border, border width)
_STYLE = {
    "centre": (CENTRE_COLOUR, "#b5651d", 2.5),
    "record": (NODE_COLOUR, "#5b7fa6", 1.0),
    "placeholder": (PLACEHOLDER_COLOUR, "#888888", 1.0),
    "more": ("#ffffff", "#aaaaaa", 1.0),
}


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


@dataclass
class Drawing:
    """A drawn neighbourhood: the figure, its geometry and each box's text artists."""

    figure: Figure
    layout: Layout
    texts: dict[str, list[MplText]]


def _words(locale: str) -> tuple[Callable[[int], str], str]:
    from bot.i18n import t

    return (lambda count: t(locale, "graph.picture.more", count=count)), t(
        locale, "graph.picture.missing"
    )


def draw(nb: Neighbourhood, *, dpi: int = 100, per_column: int = PER_COLUMN) -> Drawing:
    """The neighbourhood laid out (:func:`graph.layout.layout`) and drawn, in pixels."""
    prop = FontProperties(family=list(font_families()), size=FONT_SIZE)
    small = FontProperties(family=list(font_families()), size=FONT_SIZE - 2)
    fig = Figure(dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()

    def measure(line: str) -> tuple[float, float]:
        width, height, _ = renderer.get_text_width_height_descent(line, prop, ismath=False)
        return float(width), float(height)

    more, missing = _words(nb.locale)
    geometry = layout(nb, measure, more=more, missing=missing, per_column=per_column)
    fig.set_size_inches(geometry.width / dpi, geometry.height / dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, geometry.width)
    ax.set_ylim(geometry.height, 0)  # y grows downwards, as in the layout
    ax.axis("off")
    texts: dict[str, list[MplText]] = {}
    for box in geometry.boxes:
        face, border, line_width = _STYLE[box.kind]
        ax.add_patch(
            FancyBboxPatch(
                (box.x, box.y),
                box.w,
                box.h,
                boxstyle="round,pad=0,rounding_size=8",
                facecolor=face,
                edgecolor=border,
                linewidth=line_width,
                linestyle="--" if box.kind == "placeholder" else "-",
                zorder=3,
            )
        )
        top = box.y + (box.h - len(box.lines) * box.line_height) / 2
        captioned = box.kind in ("centre", "record")  # the first line is the record's id
        texts[box.id] = []
        for i, line in enumerate(box.lines):
            quiet = box.kind in ("more", "placeholder") or (captioned and i == 0)
            texts[box.id].append(
                ax.text(
                    box.x + box.w / 2,
                    top + (i + 0.5) * box.line_height,
                    line,
                    ha="center",
                    va="center_baseline",
                    fontproperties=small if captioned and i == 0 else prop,
                    zorder=4,
                    color="#555555" if quiet else "#111111",
                )
            )
    labels: list[tuple[float, float, float, float]] = []
    for edge in geometry.edges:
        _edge(ax, geometry, edge, prop, labels, measure)
    return Drawing(fig, geometry, texts)


def _edge(
    ax: Any,
    geometry: Layout,
    edge: EdgeView,
    prop: FontProperties,
    labels: list[tuple[float, float, float, float]],
    measure: Callable[[str], tuple[float, float]],
) -> None:
    """One edge: a straight arrow from a column to the next (with its probability where the
    label meets no other label), or a dashed line to a look-alike (beside the column when
    another box lies between them)."""
    source = geometry.box(edge.source)
    target = geometry.box(edge.target)
    if edge.kind != "leads_to":
        upper, lower = sorted((source, target), key=lambda b: b.y)
        if geometry.between(source, target):
            start = (upper.x, upper.centre_y)
            end = (lower.x, lower.centre_y)
            bend = 0.3
        else:
            start = (upper.x + upper.w / 2, upper.bottom)
            end = (upper.x + upper.w / 2, lower.y)
            bend = 0.0
        ax.annotate(
            "",
            xy=end,
            xytext=start,
            zorder=2,
            arrowprops={
                "arrowstyle": "-",
                "color": "#777777",
                "linestyle": "--",
                "linewidth": 1.2,
                "shrinkA": 0,
                "shrinkB": 0,
                "connectionstyle": f"arc3,rad={bend}",
            },
        )
        return
    y1, y2 = geometry.ports[(edge.source, edge.target)]
    x1 = source.right
    x2 = target.x
    ax.annotate(
        "",
        xy=(x2, y2),
        xytext=(x1, y1),
        zorder=2,
        arrowprops={
            "arrowstyle": "-|>",
            "color": "#555555",
            "linewidth": 1.3,
            "mutation_scale": 14,
            "shrinkA": 0,
            "shrinkB": 1,
        },
    )
    label = "?" if edge.probability is None else f"{edge.probability:.2f}"
    w, h = measure(label)
    for share in (0.5, 0.35, 0.65, 0.25, 0.75):
        mx = x1 + (x2 - x1) * share
        my = y1 + (y2 - y1) * share
        spot = (mx - w / 2 - 3, my - h / 2 - 3, mx + w / 2 + 3, my + h / 2 + 3)
        if not any(
            spot[0] < o[2] and o[0] < spot[2] and spot[1] < o[3] and o[1] < spot[3] for o in labels
        ):
            labels.append(spot)
            ax.text(
                mx,
                my,
                label,
                ha="center",
                va="center",
                fontproperties=prop,
                fontsize=FONT_SIZE - 2,
                zorder=5,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"},
            )
            return


def render_png(nb: Neighbourhood, *, dpi: int = 100) -> bytes:
    """The neighbourhood as PNG bytes (see :func:`draw`)."""
    drawing = draw(nb, dpi=dpi)
    buffer = io.BytesIO()
    drawing.figure.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return buffer.getvalue()


__all__ = [
    "Drawing",
    "cjk_font_path",
    "draw",
    "font_families",
    "font_paths",
    "render_png",
    "wrap_label",
]
