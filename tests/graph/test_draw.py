from __future__ import annotations

import io
import logging
import warnings

import numpy as np
import pytest
from matplotlib import image
from matplotlib.ft2font import FT2Font

from graph.build import KnowledgeGraph, build_graph
from graph.draw import neighbourhood, render_tree
from graph.picture import cjk_font_path, font_paths, render_png, wrap_label
from tests.graph.conftest import rec, to

ZH = "运行时错误：内存不足，无法分配KV缓存块"


@pytest.fixture
def zh_graph() -> KnowledgeGraph:
    return build_graph(
        [
            rec("d/oom", "RuntimeError: out of memory for KV cache block", signature_zh=ZH,
                preceded_by=[to("d/load", 0.7)], leads_to=[to("d/slow", 0.3, "when offloading")],
                frequently_confused_with=[{"error_id": "d/host", "distinction": "host RAM, not GPU"}]),
            rec("d/load", "ValueError: model too large", leads_to=[to("d/oom", 0.7)],
                preceded_by=["d/ghost"]),
            rec("d/slow", "TimeoutError: generation too slow"),
            rec("d/host", "MemoryError", signature_zh="内存错误"),
        ]
    )  # fmt: skip


def test_the_tree_shows_both_directions_with_probabilities(zh_graph: KnowledgeGraph) -> None:
    tree = render_tree(zh_graph, "d/oom", locale="zh")
    lines = tree.splitlines()
    assert lines[0] == f"d/oom  {ZH}"
    assert "← 0.70  d/load  ValueError: model too large" in tree
    assert "← " in tree and "d/ghost  (not in the knowledge base)" in tree
    assert "→ 0.30  d/slow  TimeoutError: generation too slow  [if: when offloading]" in tree
    assert "≈ d/host  host RAM, not GPU" in tree
    assert "d/ghost" not in render_tree(zh_graph, "d/oom", depth=1)


def test_neighbourhood_layers_and_limits(zh_graph: KnowledgeGraph) -> None:
    nb = neighbourhood(zh_graph, "d/oom", depth=2, locale="zh")
    layers = {n.id: n.layer for n in nb.nodes}
    assert layers == {"d/ghost": -2, "d/load": -1, "d/oom": 0, "d/host": 0, "d/slow": 1}
    assert {(e.source, e.target, e.kind) for e in nb.edges} >= {
        ("d/load", "d/oom", "leads_to"), ("d/oom", "d/host", "frequently_confused_with"),
    }  # fmt: skip
    small = neighbourhood(zh_graph, "d/oom", depth=2, max_nodes=3)
    assert len(small.nodes) == 3 and small.left_out == 2
    with pytest.raises(KeyError):
        neighbourhood(zh_graph, "d/none")


def test_png_opens_has_a_sensible_size_and_is_not_blank(zh_graph: KnowledgeGraph) -> None:
    png = render_png(neighbourhood(zh_graph, "d/oom", locale="zh"))
    assert png.startswith(b"\x89PNG")
    pixels = image.imread(io.BytesIO(png))
    height, width = pixels.shape[:2]
    assert 300 <= width <= 2400 and 180 <= height <= 2400
    grey = pixels[..., :3].mean(axis=2)
    assert grey.std() > 0.05  # not one flat colour
    assert (grey < 0.5).mean() > 0.005  # there is dark ink: text and edges
    # the centre is highlighted: its fill colour (#ffd166) is present
    centre = np.array([0xFF, 0xD1, 0x66]) / 255
    assert (np.abs(pixels[..., :3] - centre).max(axis=2) < 0.02).sum() > 500


def test_chinese_labels_render_with_a_cjk_font(
    zh_graph: KnowledgeGraph, caplog: pytest.LogCaptureFixture
) -> None:
    assert cjk_font_path() is not None, "the CJK font package (pylopdf-fonts-zh-cn) is missing"
    covered: set[int] = set()
    for path in font_paths():
        covered |= set(FT2Font(str(path)).get_charmap())
    assert all(ord(ch) in covered for ch in ZH + "内存错误")
    with warnings.catch_warnings(record=True) as seen, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        render_png(neighbourhood(zh_graph, "d/oom", locale="zh"))
    assert [str(w.message) for w in seen] == []
    assert not [
        r for r in caplog.records if "findfont" in r.getMessage() or "Glyph" in r.getMessage()
    ]


def test_labels_wrap_by_display_width() -> None:
    assert wrap_label("short") == ["short"]
    lines = wrap_label(ZH, cells=10, lines=2)
    assert len(lines) == 2 and lines[-1].endswith("…")
    assert all(
        sum(2 if "\u4e00" <= c <= "\u9fff" or c in "：，" else 1 for c in ln) <= 10 for ln in lines
    )
    assert wrap_label("a " * 3 + "x" * 12, cells=8) == ["a a a", "x" * 12]  # a word stays whole
