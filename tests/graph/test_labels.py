"""Label text breaks between words and CJK characters, never inside a word; the words of
links (conditions, distinctions) follow the locale like labels do."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.records import Record
from graph import said
from graph.build import KnowledgeGraph, build_graph
from graph.draw import neighbourhood, render_tree
from graph.labels import cell_width, shorten, wrap_label
from graph.lookalike import look_alikes
from graph.triage import triage_sections
from tests.conftest import DATA
from tests.graph.conftest import rec, to

HAN = re.compile(r"[\u4e00-\u9fff]")
SIGNATURE = "RuntimeError: OutOfMemoryError: Unable to allocate memory for KV cache block"
ZH = (
    "ValueError: 没有可用于缓存块（cache blocks）的显存。请在初始化引擎时尝试增大 "
    "`gpu_memory_utilization`。"
)


def test_latin_text_breaks_at_spaces_only() -> None:
    lines = wrap_label(SIGNATURE, cells=20, lines=5)
    assert lines == [
        "RuntimeError:",
        "OutOfMemoryError:",
        "Unable to allocate",
        "memory for KV cache",
        "block",
    ]
    assert " ".join(lines) == SIGNATURE


def test_chinese_breaks_between_characters_and_keeps_latin_words_whole() -> None:
    lines = wrap_label(ZH, cells=20, lines=8)
    assert "".join(lines).replace(" ", "") == ZH.replace(" ", "")
    words = set(re.findall(r"[A-Za-z_`]+", ZH))
    assert words <= {w for line in lines for w in re.findall(r"[A-Za-z_`]+", line)}
    assert all(cell_width(line) <= 20 for line in lines if "gpu_memory" not in line)
    assert not any(
        line[0] in "，。）：" for line in lines
    )  # closing punctuation never starts a line
    assert not any(line.endswith("（") for line in lines)  # opening punctuation never ends one


def test_an_identifier_wider_than_a_line_stays_whole_up_to_twice_the_width() -> None:
    assert wrap_label("raised torch._inductor.exc.TritonMissing: here", cells=20) == [
        "raised",
        "torch._inductor.exc.TritonMissing:",
        "here",
    ]
    path = (
        "/usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so"
    )
    lines = wrap_label(path, cells=20, lines=5)
    assert "".join(lines) == path
    assert all(cell_width(line) <= 40 for line in lines)
    assert all(line.endswith(("/", ".", "-", "_")) for line in lines[:-1])  # cut after a separator


def test_too_much_text_ends_in_an_ellipsis_after_a_whole_word() -> None:
    lines = wrap_label(SIGNATURE, cells=20, lines=2)
    assert lines == ["RuntimeError:", "OutOfMemoryError:…"]
    assert wrap_label("运行时错误：内存不足，无法分配KV缓存块", cells=12, lines=2) == [
        "运行时错误：",
        "内存不足，…",
    ]


def test_shorten_cuts_between_words_within_the_width() -> None:
    assert shorten(SIGNATURE, 40) == "RuntimeError: OutOfMemoryError: Unable…"
    assert shorten("short text", 40) == "short text"
    assert shorten("运行时错误：内存不足，无法分配KV缓存块", 21) == "运行时错误：内存不…"


words = st.text(alphabet=st.sampled_from("abcdefgXYZ._-"), min_size=1, max_size=12)
han = st.text(alphabet=st.sampled_from("内存不足错误缓存块分配"), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(pieces=st.lists(st.one_of(words, han), min_size=1, max_size=12), cells=st.integers(12, 30))
def test_wrapping_loses_nothing_and_never_splits_a_short_word(
    pieces: list[str], cells: int
) -> None:
    text = " ".join(pieces)
    lines = wrap_label(text, cells=cells, lines=100)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for word in (p for p in pieces if p.isascii()):
        assert any(word in line for line in lines), (word, lines)
    assert all(cell_width(line) <= max(cells, 2 * cells) for line in lines)


@pytest.fixture
def zh_linked() -> KnowledgeGraph:
    translated = rec(
        "d/a",
        "ValueError: model too large",
        leads_to=[to("d/b", 0.5, "when offloading")],
        frequently_confused_with=[{"error_id": "d/c", "distinction": "host RAM, not GPU"}],
    )
    translated = Record.model_validate(
        {
            **translated.to_native(),
            "transition_graph_zh": {
                "leads_to": [{"condition": "开启卸载时"}],
                "frequently_confused_with": [{"distinction": "主机内存，而不是显存"}],
            },
        }
    )
    return build_graph(
        [
            translated,
            rec(
                "d/b",
                "TimeoutError: generation too slow",
                preceded_by=[to("d/a", 0.5, "when offloaded")],
            ),
            rec("d/c", "MemoryError"),
        ]
    )


def test_conditions_and_distinctions_follow_the_locale(zh_linked: KnowledgeGraph) -> None:
    tree = render_tree(zh_linked, "d/a", locale="zh")
    assert "[条件：开启卸载时; when offloaded]" in tree  # d/b's own words have no translation
    assert "≈ d/c  主机内存，而不是显存" in tree
    assert "[if: when offloading; when offloaded]" in render_tree(zh_linked, "d/a")
    nb = neighbourhood(zh_linked, "d/a", locale="zh")
    told = {e.kind: e.conditions for e in nb.edges}
    assert told == {
        "leads_to": ("开启卸载时", "when offloaded"),
        "frequently_confused_with": ("主机内存，而不是显存",),
    }


def test_triage_sections_give_conditions_and_distinctions_in_the_locale(
    zh_linked: KnowledgeGraph,
) -> None:
    zh = triage_sections(zh_linked, ["d/a"], locale="zh")
    assert zh["next"][0]["items"][0]["conditions"] == ("开启卸载时", "when offloaded")
    assert zh["confused_with"][0]["items"][0]["distinctions"] == ("主机内存，而不是显存",)
    en = triage_sections(zh_linked, ["d/a"])
    assert en["next"][0]["items"][0]["conditions"] == ("when offloading", "when offloaded")


def test_the_starter_graph_says_the_same_in_english_and_everything_in_chinese() -> None:
    records = [
        Record.model_validate(r)
        for path in sorted(DATA.glob("*.json"))
        for r in json.loads(path.read_text("utf-8"))
    ]
    kg = build_graph(records)
    for t in kg.transitions():
        assert said.conditions(kg, t.source, t.target, "en") == t.conditions
        assert all(HAN.search(text) for text in said.conditions(kg, t.source, t.target, "zh"))
    for record in records:
        for alike in look_alikes(kg, record.id):
            assert said.distinctions(kg, record.id, alike.id, "en") == alike.distinctions
            assert all(HAN.search(x) for x in said.distinctions(kg, record.id, alike.id, "zh"))
