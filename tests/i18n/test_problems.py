"""A bad record's problems, said in the reader's language with the field named in it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from bot.i18n import catalog
from bot.i18n.problems import field_label, localized_problems, problem_text
from bot.records import Problem, Record, record_problems, validation_problems
from tests.conftest import FIXTURES
from tests.i18n.prose import english_words

HAN = re.compile(r"[\u4e00-\u9fff]")


def seed() -> dict[str, Any]:
    return json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))


def problems_of(change: dict[str, Any], drop: tuple[str, ...] = ()) -> list[Problem]:
    data = {**seed(), **change}
    for key in drop:
        data.pop(key)
    with pytest.raises(ValidationError) as caught:
        Record.model_validate(data)
    return record_problems(caught.value)


#: Bad input → (path, English sentence, Chinese sentence), one per kind of problem.
CASES = [
    ({}, ("domain",), "domain", "Domain is required.", "请填写领域。"),
    (
        {"signature": ""},
        (),
        "signature",
        "Error message (signature) must not be empty.",
        "错误信息（签名）不能为空。",
    ),
    (
        {"id": "x" * 301},
        (),
        "id",
        "Record id can be at most 300 characters long.",
        "记录 ID最多只能有 300 个字符。",
    ),
    ({"root_cause": 5}, (), "root_cause", "Root cause must be text.", "根本原因必须是文字。"),
    (
        {"confidence": "high"},
        (),
        "confidence",
        "Confidence must be a number.",
        "置信度必须是数字。",
    ),
    ({"confidence": 1.5}, (), "confidence", "Confidence must be at most 1.", "置信度不能大于 1。"),
    (
        {"workarounds": [{"action": "x", "success_rate": -1}]},
        (),
        "workarounds[0].success_rate",
        "Success rate of workaround 1 must be at least 0.",
        "第 1 个解决办法的成功率不能小于 0。",
    ),
    (
        {"evidence_count": "many"},
        (),
        "evidence_count",
        "Evidence count must be a whole number.",
        "证据数量必须是整数。",
    ),
    (
        {"resolvable": "maybe"},
        (),
        "resolvable",
        "Resolvable must be one of: true / partial / false.",
        "能否解决只能是以下之一：true / partial / false。",
    ),
    (
        {"last_confirmed": "last week"},
        (),
        "last_confirmed",
        "Last confirmed must be a date such as 2024-06-01.",
        "最近确认日期必须是日期，例如 2024-06-01。",
    ),
    ({"tags": "x"}, (), "tags", "Tags must be a list.", "标签必须是列表。"),
    (
        {"os_specific": []},
        (),
        "os_specific",
        "Operating-system notes must be an object.",
        "操作系统相关说明必须是对象（JSON object）。",
    ),
    (
        {"dead_ends": [{"action": "", "why_fails": ""}]},
        (),
        "dead_ends[0]",
        "Dead end 1 needs an action or a reason why it fails.",
        "第 1 个死胡同至少要写明做法或失败原因。",
    ),
    ({"id": "has spaces"}, (), "id", None, None),
    ({"regex": "(unclosed"}, (), "regex", None, None),
    (
        {"locale": "english please"},
        (),
        "locale",
        "Language of the record must be a locale code such as en, zh or pt_br.",
        "记录的语言必须是语言代码，例如 en、zh 或 pt_br。",
    ),
    (
        {"workarounds_zh": [5]},
        (),
        "workarounds_zh[0]",
        "Workaround 1 (Chinese) must be a string, an object or null.",
        "第 1 个解决办法（中文）必须是字符串、对象或 null。",
    ),
    (
        {"workarounds_zh": [{"acton": "x"}]},
        (),
        "workarounds_zh[0].acton",
        "“acton” of workaround 1 (Chinese) is not a key errkb knows here.",
        "第 1 个解决办法（中文）的“acton”不是这里可以使用的键。",
    ),
    (
        {"workarounds_zh": ["a", "b"]},
        (),
        "workarounds_zh",
        "Workarounds (Chinese) has 2 entries but there are only 1: entry i translates item i.",
        "解决办法（中文）有 2 项，但原文只有 1 项：译文第 i 项对应原文第 i 项。",
    ),
    (
        {"dead_ends_zh": [{"action": "x"}]},
        (),
        "dead_ends_zh[0].action",
        "Action of dead end 1 (Chinese) translates action of dead end 1, which has no text.",
        "第 1 个死胡同（中文）的操作翻译的是第 1 个死胡同的操作，但那里没有原文。",
    ),
    (
        {"transition_graph": {"leads_to": [{"probability": 0.2}]}},
        (),
        "transition_graph.leads_to[0].error_id",
        "Linked record id of link 1 of what it leads to is required.",
        "请填写“之后会出现的错误”中的第 1 个链接的关联记录 ID。",
    ),
]


@pytest.mark.parametrize(("change", "drop", "path", "en", "zh"), CASES)
def test_each_problem_reads_in_english_and_chinese(
    change: dict[str, Any], drop: tuple[str, ...], path: str, en: str | None, zh: str | None
) -> None:
    found = [p for p in problems_of(change, drop) if p.path == path]
    assert len(found) == 1, problems_of(change, drop)
    problem = found[0]
    english = problem_text(problem, "en")
    chinese = problem_text(problem, "zh-CN")
    if en is not None:
        assert (english, chinese) == (en, zh)
    assert not english.startswith(problem.message)  # not pydantic's own words
    assert HAN.search(chinese) and english_words(chinese) == []


def test_no_problem_falls_back_to_the_generic_message() -> None:
    generic = catalog("en")["problem.invalid"].replace("{field}", "")
    for change, drop, *_ in CASES:
        for problem in problems_of(change, drop):
            assert generic not in problem_text(problem, "en"), problem


def test_an_unknown_kind_still_names_the_field_in_the_locale() -> None:
    problem = Problem("workarounds[1].how", "some_new_pydantic_type", "Something English")
    assert problem_text(problem, "zh") == "第 2 个解决办法的做法无效。"
    assert problem_text(problem, "en") == "How to apply it of workaround 2 is not valid."


def test_localized_problems_have_the_shape_the_modal_maps() -> None:
    with pytest.raises(ValidationError) as caught:
        Record.model_validate({**seed(), "signature": "", "confidence": 2})
    paths = [p for p, _ in validation_problems(caught.value)]
    localized = localized_problems(record_problems(caught.value), "zh")
    assert [p for p, _ in localized] == paths == ["signature", "confidence"]
    assert all(HAN.search(text) for _, text in localized)


@pytest.mark.parametrize(
    ("path", "en", "zh"),
    [
        ("(record)", "the record", "记录"),
        (
            "transition_graph.frequently_confused_with[0].distinction",
            "what tells them apart of look-alike 1",
            "第 1 个容易混淆的错误的区分方法",
        ),
        (
            "dead_ends_zh[1].why_fails",
            "why it fails of dead end 2 (Chinese)",
            "第 2 个死胡同（中文）的失败原因",
        ),
        ("signature_ja", "error message (signature) (ja)", "错误信息（签名）（ja）"),
        ("workarounds[0].sources[1]", "source 2 of workaround 1", "第 1 个解决办法的第 2 个来源"),
    ],
)
def test_field_labels(path: str, en: str, zh: str) -> None:
    assert (field_label(path, "en"), field_label(path, "zh")) == (en, zh)
