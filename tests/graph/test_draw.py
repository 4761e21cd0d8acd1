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
            rec(
                "d/oom",
                "RuntimeError: out of memory for KV cache block",
                signature_zh=ZH,
                preceded_by=[to("d/load", 0.7)],
                leads_to=[to("d/slow", 0.3, "when offloading")],
                frequently_confused_with=[
                    {"error_id": "d/host", "distinction": "host RAM, not GPU"}
                ],
            ),
            rec(
                "d/load",
                "ValueError: model too large",
                leads_to=[to("d/oom", 0.7)],
                preceded_by=["d/ghost"],
            ),
            rec("d/slow", "TimeoutError: generation too slow"),
            rec("d/host", "MemoryError", signature_zh="内存错误"),
        ]
    )


def test_the_tree_shows_both_directions_with_probabilities(zh_graph: KnowledgeGraph) -> None:
    tree = render_tree(zh_graph, "d/oom", locale="zh")
    lines = tree.splitlines()
    assert lines[0] == f"d/oom  {ZH}"
    assert "← 0.70  d/load  ValueError: model too large" in tree
    assert "← " in tree and "d/ghost  （不在知识库中）" in tree
    assert "→ 0.30  d/slow  TimeoutError: generation too slow  [条件：when offloading]" in tree
    assert "≈ d/host  host RAM, not GPU" in tree
    assert [ln for ln in lines if not ln.startswith(" ")][1:] == [
        "之前出现：",
        "之后出现：",
        "常被混淆为：",
    ]
    english = render_tree(zh_graph, "d/oom", locale="en")
    assert "d/ghost  (not in the knowledge base)" in english and "[if: when offloading]" in english
    assert [ln for ln in english.splitlines() if not ln.startswith(" ")][1:] == [
        "preceded by:",
        "leads to:",
        "confused with:",
    ]
    assert "d/ghost" not in render_tree(zh_graph, "d/oom", depth=1)


def test_neighbourhood_layers_and_limits(zh_graph: KnowledgeGraph) -> None:
    nb = neighbourhood(zh_graph, "d/oom", depth=2, locale="zh")
    layers = {n.id: n.layer for n in nb.nodes}
    assert layers == {"d/ghost": -2, "d/load": -1, "d/oom": 0, "d/host": 0, "d/slow": 1}
    assert {(e.source, e.target, e.kind) for e in nb.edges} >= {
        ("d/load", "d/oom", "leads_to"),
        ("d/oom", "d/host", "frequently_confused_with"),
    }
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


# -- the picture's geometry: no overlap, nothing clipped, hubs capped --------------------

from graph.layout import PER_COLUMN, label_lines  # noqa: E402
from graph.picture import draw  # noqa: E402


def _hub(locale_zh: bool = False) -> KnowledgeGraph:
    """A hub: twelve errors lead to it, nine follow it, some of them two hops out, a banner."""
    zh = {"signature_zh": "运行时错误：子进程失败，" + "详细信息" * 6} if locale_zh else {}
    before = [
        rec(
            f"h/cause-{n}",
            f"RuntimeError: cause number {n} with a fairly long message that wraps",
            leads_to=[to("h/hub", round(0.05 * (n + 1), 2))],
            preceded_by=[to(f"h/root-{n}", 0.5)],
        )
        for n in range(12)
    ]
    roots = [rec(f"h/root-{n}", f"ValueError: root {n}") for n in range(12)]
    after = [
        rec(
            f"h/next-{n}",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
            "============================================================\ntrain.py FAILED",
        )
        for n in range(9)
    ]
    hub = rec(
        "h/hub",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        leads_to=[to(f"h/next-{n}", 0.3) for n in range(9)] + [to("h/ghost", 0.2)],
        frequently_confused_with=["h/alike"],
        **zh,
    )
    return build_graph([hub, *before, *roots, *after, rec("h/alike", "MemoryError")])


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_the_picture_of_a_hub_has_no_overlap_nothing_clipped_and_says_how_many_more(
    locale: str,
) -> None:
    kg = _hub(locale_zh=True)
    drawing = draw(neighbourhood(kg, "h/hub", depth=2, locale=locale, max_nodes=60))
    geometry = drawing.layout
    boxes = geometry.boxes
    for i, one in enumerate(boxes):
        assert (
            0 <= one.x
            and one.right <= geometry.width
            and 0 <= one.y
            and one.bottom <= geometry.height
        )
        for other in boxes[i + 1 :]:
            assert not one.overlaps(other), (one.id, other.id)
    columns: dict[int, list[str]] = {}
    for box in boxes:
        columns.setdefault(box.layer, []).append(box.kind)
    assert all(sum(k != "more" for k in kinds) <= PER_COLUMN for kinds in columns.values())
    more = {b.layer: b.lines[0] for b in boxes if b.kind == "more"}
    assert more[-1] == ("+7 more" if locale == "en" else "另有 7 个")  # 12 causes, 5 shown
    assert more[1] == ("+5 more" if locale == "en" else "另有 5 个")  # 9 next + a placeholder
    assert all(not line.strip("= ") == "" for b in boxes for line in b.lines)  # no banner line
    for edge in geometry.edges:  # arrows run from a column to the next one out, nowhere else
        source = geometry.box(edge.source)
        target = geometry.box(edge.target)
        assert target.layer == source.layer + 1 if edge.kind == "leads_to" else source.layer == 0
    ends = {e.source for e in geometry.edges} | {e.target for e in geometry.edges}
    assert all(
        b.id in ends for b in boxes if b.kind in ("record", "placeholder")
    )  # none stands alone
    # every drawn line of text lies inside its box and the picture (measured after drawing)
    canvas = drawing.figure.canvas
    canvas.draw()
    renderer = canvas.get_renderer()  # type: ignore[attr-defined]
    ax = drawing.figure.axes[0]
    for box in boxes:
        (left, top), (right, bottom) = ax.transData.transform(
            [(box.x, box.y), (box.right, box.bottom)]
        )
        for text in drawing.texts[box.id]:
            extent = text.get_window_extent(renderer)
            assert left <= extent.x0 and extent.x1 <= right, (box.id, text.get_text())
            assert bottom <= extent.y0 and extent.y1 <= top, (box.id, text.get_text())
    png = render_png(neighbourhood(kg, "h/hub", depth=2, locale=locale))
    height, width = image.imread(io.BytesIO(png)).shape[:2]
    assert width <= 2400 and height <= 1600


def test_a_label_drops_banner_lines_and_keeps_words_whole() -> None:
    lines = label_lines("ChildFailedError:\n=========================\ntrain.py FAILED\n------")
    assert (
        lines == ["ChildFailedError:", "train.py FAILED"]
        or " ".join(lines) == "ChildFailedError: train.py FAILED"
    )
    assert not any(set(line) <= set("=- ") for line in lines)


def test_each_record_box_shows_its_id(zh_graph: KnowledgeGraph) -> None:
    geometry = draw(neighbourhood(zh_graph, "d/oom", locale="zh")).layout
    assert geometry.box("d/oom").lines[0] == "d/oom" and geometry.box("d/oom").kind == "centre"
    assert (
        geometry.box("d/ghost").kind == "placeholder"
        and "（不在知识库中）" in geometry.box("d/ghost").lines
    )
