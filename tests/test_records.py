"""The native record model: round trips, translations, precise validation errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.records import Record, record_problems, validation_problems
from bot.records.clean import clean_text, clean_value
from tests.conftest import FIXTURES


def seed() -> dict[str, Any]:
    return json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as caught:
        Record.model_validate(data)
    return validation_problems(caught.value)


def test_seed_round_trips_field_for_field() -> None:
    assert Record.model_validate(seed()).to_native() == seed()


def test_seed_export_keeps_the_brief_key_order() -> None:
    keys = list(Record.model_validate(seed()).to_native())
    assert keys == list(seed())


def test_a_dump_that_leaves_fields_out_keeps_the_rest_in_order() -> None:
    data = {**seed(), "subcategory": None}
    dumped = Record.model_validate(data).model_dump(mode="json", exclude_none=True)
    assert "subcategory" not in dumped
    assert [k for k in seed() if k in dumped] == list(dumped)[
        : len([k for k in seed() if k in dumped])
    ]


def test_translations_are_generic_over_locale() -> None:
    data = {
        **seed(),
        "signature_ja": "ランタイムエラー",
        "root_cause_pt_br": "causa",
        "workarounds_ko": ["해결"],
    }
    record = Record.model_validate(data)
    assert set(record.translations) == {"zh", "ja", "pt_br", "ko"}
    assert record.text("signature", "ja") == ("ランタイムエラー", "ja")
    assert record.text("root_cause", "pt-BR") == ("causa", "pt_br")
    assert record.to_native()["workarounds_ko"] == ["해결"]
    assert record.to_native() == data


def test_missing_translation_falls_back_to_the_records_own_text() -> None:
    record = Record.model_validate(seed())
    assert record.text("root_cause", "zh-TW") == (seed()["root_cause_zh"], "zh")
    text, used = record.text("root_cause", "ja")
    assert (text, used) == (seed()["root_cause"], "en")


def test_empty_dead_end_action_shows_why_fails() -> None:
    record = Record.model_validate(seed())
    assert record.dead_ends[0].text.startswith("Larger batch tokens")
    assert record.text("dead_ends", "en")[0] == [record.dead_ends[0].why_fails]


def test_links_may_be_ids_or_objects_and_keep_their_shape() -> None:
    graph = {
        "leads_to": ["llm/a", {"error_id": "llm/b", "probability": 0.4, "condition": "under load"}],
        "preceded_by": [],
        "frequently_confused_with": [
            {"error_id": "llm/c", "distinction": "mentions the tokenizer"}
        ],
    }
    record = Record.model_validate({**seed(), "transition_graph": graph})
    assert record.to_native()["transition_graph"] == graph
    assert [(kind, getattr(item, "error_id", item)) for kind, item in record.links()] == [
        ("leads_to", "llm/a"),
        ("leads_to", "llm/b"),
        ("frequently_confused_with", "llm/c"),
    ]


def test_unknown_keys_survive() -> None:
    data = {**seed(), "environment": {"os": "linux"}}
    data["workarounds"] = [{**data["workarounds"][0], "tradeoff": "slower"}]
    assert Record.model_validate(data).to_native() == data


@pytest.mark.parametrize(
    ("change", "path", "says"),
    [
        ({"confidence": 1.5}, "confidence", "less than or equal to 1"),
        ({"resolvable": "maybe"}, "resolvable", "'true', 'partial' or 'false'"),
        ({"last_confirmed": "last week"}, "last_confirmed", "date"),
        ({"regex": "(unclosed"}, "regex", "valid regular expression"),
        ({"id": "has spaces in it"}, "id", "slash-separated"),
        (
            {"workarounds": [{"action": "x", "success_rate": -1}]},
            "workarounds[0].success_rate",
            "greater than or equal to 0",
        ),
        ({"dead_ends": [{"action": "", "why_fails": ""}]}, "dead_ends[0]", "action or a why_fails"),
        (
            {"transition_graph": {"leads_to": [{"probability": 0.2}]}},
            "transition_graph.leads_to[0]",
            "",
        ),
        ({"workarounds_zh": ["a", "b"]}, "workarounds_zh", "entry i translates workarounds[i]"),
    ],
)
def test_validation_errors_name_the_field_and_what_was_expected(
    change: dict[str, Any], path: str, says: str
) -> None:
    found = problems({**seed(), **change})
    assert any(p.startswith(path) and says in m for p, m in found), found


def test_missing_required_fields_are_all_reported() -> None:
    found = dict(problems({"id": "x/y"}))
    assert set(found) >= {"signature", "regex", "domain"}


def test_resolvable_accepts_booleans_as_strings() -> None:
    assert Record.model_validate({**seed(), "resolvable": False}).resolvable == "false"


text_st = st.text(min_size=1, max_size=40).filter(lambda s: clean_text(s).strip())


@settings(max_examples=60, deadline=None)
@given(
    signature=text_st,
    zh=st.one_of(st.none(), text_st),
    actions=st.lists(text_st, min_size=0, max_size=4),
    rate=st.one_of(st.none(), st.floats(0, 1)),
    tags=st.lists(st.text(max_size=10), max_size=3),
)
def test_any_valid_record_round_trips(
    signature: str, zh: str | None, actions: list[str], rate: float | None, tags: list[str]
) -> None:
    data = {**seed(), "signature": signature, "tags": tags, "confidence": rate}
    data["workarounds"] = [{"action": a, "success_rate": rate} for a in actions]
    data["workarounds_zh"] = [a[::-1] for a in actions]
    data.pop("signature_zh")
    if zh is not None:
        data["signature_zh"] = zh
    record = Record.model_validate(data)
    again = Record.model_validate(json.loads(json.dumps(record.to_native())))
    # what is kept is the text as given, cleaned of NUL and lone surrogates
    given = clean_value({k: data[k] for k in record.to_native()})
    assert again.to_native() == record.to_native() == given


# -- translations of every user-read text ---------------------------------------------


def linked_seed() -> dict[str, Any]:
    """The seed with a condition, a version note, an OS note and links to translate."""
    data = seed()
    data["versions"] = [{**data["versions"][0], "behavior_change": "V1 engine reports it at start"}]
    data["os_specific"] = {"linux": "Check dmesg", "counts": {"a": 1}}
    data["workarounds"] = [
        {
            **data["workarounds"][0],
            "how": "vllm serve <model> --gpu-memory-utilization 0.85   # leave headroom",
            "condition": "Only on a dedicated GPU",
        }
    ]
    data["dead_ends"].append(
        {
            "action": "Restart the server",
            "why_fails": "The budget is the same after a restart.",
            "fail_rate": 0.9,
            "condition": "On vLLM 0.4",
            "sources": [],
        }
    )
    data["transition_graph"] = {
        "leads_to": ["llm/a", {"error_id": "llm/b", "probability": 0.4, "condition": "under load"}],
        "preceded_by": [],
        "frequently_confused_with": [{"error_id": "llm/c", "distinction": "host RAM, not GPU"}],
    }
    return data


def fully_translated() -> dict[str, Any]:
    """Every text translated; each translation right after the field it translates."""
    added = {
        "versions": {"behavior_change": "V1 引擎在启动时报告"},
        "os_specific": {"linux": "查看 dmesg"},
        "dead_ends": [
            "更大的批处理 token 会占用更多 KV 缓存。",
            {"why_fails": "重启后预算不变。", "action": "重启服务", "condition": "vLLM 0.4 上"},
        ],
        "transition_graph": {
            "leads_to": [None, {"condition": "高负载时"}],
            "frequently_confused_with": [{"distinction": "主机内存，而不是显存"}],
        },
    }
    added["versions"] = [added["versions"]]
    data: dict[str, Any] = {}
    for key, value in linked_seed().items():
        data[key] = value
        if key in added:
            data[f"{key}_zh"] = added[key]
    data["workarounds_zh"] = [
        {
            "action": "降低 gpu_memory_utilization",
            "how": "vllm serve <model> --gpu-memory-utilization 0.85   # 留出余量",
            "condition": "仅当 GPU 专用时",
        }
    ]
    return data


def test_every_user_read_text_takes_a_translation_and_round_trips_in_order() -> None:
    data = fully_translated()
    native = Record.model_validate(data).to_native()
    assert native == data
    assert list(native) == list(data)
    assert list(native["dead_ends_zh"][1]) == ["why_fails", "action", "condition"]
    assert native["dead_ends_zh"][0] == data["dead_ends_zh"][0]  # a string stays a string
    assert list(Record.model_validate(json.loads(json.dumps(native))).to_native()) == list(data)


def test_a_fully_translated_record_reads_wholly_in_chinese() -> None:
    view = Record.model_validate(fully_translated()).localized("zh-CN")
    assert view.locale == "zh_cn"
    assert view.fallbacks == ()
    assert view.dead_ends[0].text.value.startswith("更大的批处理")
    assert view.dead_ends[0].why is None  # the seed's dead end is its why_fails
    second = view.dead_ends[1]
    assert (second.text.value, second.why and second.why.value) == ("重启服务", "重启后预算不变。")
    assert view.workarounds[0].condition == view.get("workarounds[0].condition")
    assert view.workarounds[0].condition.value == "仅当 GPU 专用时"
    assert view.versions[0].behavior_change.value == "V1 引擎在启动时报告"
    assert view.os_specific == {"linux": view.get("os_specific.linux")}  # "counts" is not text
    links = {(link.kind, link.target): link for link in view.links()}
    assert links["leads_to", "llm/b"].condition.value == "高负载时"
    assert links["frequently_confused_with", "llm/c"].distinction.value == "主机内存，而不是显存"
    assert links["leads_to", "llm/a"].condition.value == ""  # a plain id has nothing to read


def test_fallback_is_per_text_and_names_exactly_what_fell_back() -> None:
    data = linked_seed()
    data["dead_ends_zh"] = [None, "重启服务"]  # the second dead end's why_fails stays English
    data["workarounds_zh"] = ["降低 gpu_memory_utilization"]  # how and condition stay English
    view = Record.model_validate(data).localized("zh")
    assert view.fallbacks == (
        "versions[0].behavior_change",
        "os_specific.linux",
        "dead_ends[0].why_fails",
        "dead_ends[1].why_fails",
        "dead_ends[1].condition",
        "workarounds[0].how",
        "workarounds[0].condition",
        "transition_graph.leads_to[1].condition",
        "transition_graph.frequently_confused_with[0].distinction",
    )
    how = view.workarounds[0].how
    assert (how.value, how.locale, how.fallback) == (
        linked_seed()["workarounds"][0]["how"],
        "en",
        True,
    )
    assert view.workarounds[0].action.locale == "zh"
    assert view.fell_back(["signature", "root_cause", "workarounds[0].action"]) == ()
    assert view.fell_back(["workarounds"]) == ("workarounds[0].how", "workarounds[0].condition")
    assert view.fell_back(["dead_ends[1]"]) == ("dead_ends[1].why_fails", "dead_ends[1].condition")
    assert Record.model_validate(data).localized("en").fallbacks == ()


def test_a_regional_locale_reads_its_own_translation_then_the_base_language() -> None:
    data = {**seed(), "signature_zh_tw": "執行階段錯誤"}
    view = Record.model_validate(data).localized("zh-TW")
    assert (view.signature.value, view.signature.locale) == ("執行階段錯誤", "zh_tw")
    assert (view.root_cause.value, view.root_cause.locale) == (seed()["root_cause_zh"], "zh")
    assert view.get("dead_ends[0].why_fails").fallback


@pytest.mark.parametrize(
    ("change", "path", "says"),
    [
        ({"workarounds_zh": [5]}, "workarounds_zh[0]", "a string, an object or null"),
        ({"workarounds_zh": [{"acton": "x"}]}, "workarounds_zh[0].acton", "Extra inputs"),
        (
            {"dead_ends_zh": [{"action": "x"}]},
            "dead_ends_zh[0].action",
            "dead_ends[0].action, which has no text",
        ),
        ({"workarounds_zh": [{"condition": "x"}]}, "workarounds_zh[0].condition", "has no text"),
        ({"versions_zh": [None, None]}, "versions_zh", "entry i translates versions[i]"),
        (
            {"transition_graph_zh": {"leads_to": [{"condition": "x"}]}},
            "transition_graph_zh.leads_to",
            "has only 0",
        ),
        ({"transition_graph_zh": {"next": []}}, "transition_graph_zh.next", "Extra inputs"),
        ({"os_specific_zh": {"linux": "x"}}, "os_specific_zh.linux", "has no text"),
    ],
)
def test_a_translation_that_does_not_fit_names_its_key(
    change: dict[str, Any], path: str, says: str
) -> None:
    found = problems({**seed(), **change})
    assert any(p == path and says in m for p, m in found), found


def test_problems_carry_their_kind_and_values() -> None:
    with pytest.raises(ValidationError) as caught:
        Record.model_validate({**seed(), "confidence": 1.5, "regex": "(", "signature": ""})
    found = {p.path: p for p in record_problems(caught.value)}
    assert (found["confidence"].kind, dict(found["confidence"].params)) == (
        "less_than_equal",
        {"le": 1.0},
    )
    assert found["regex"].kind == "regex_invalid" and "error" in found["regex"].params
    assert found["signature"].kind == "string_too_short"


entry_st = st.one_of(
    st.none(),
    text_st,
    st.fixed_dictionaries({}, optional={"how": text_st, "action": text_st}),
)


@settings(max_examples=60, deadline=None)
@given(entries=st.lists(entry_st, max_size=3), dead=st.one_of(st.none(), text_st))
def test_any_translation_form_round_trips(entries: list[Any], dead: str | None) -> None:
    data: dict[str, Any] = {}
    for key, value in seed().items():
        data[key] = value
        if key == "dead_ends":
            data["dead_ends_zh"] = [dead]
    data["workarounds"] = [{"action": f"do {i}", "how": "run it"} for i in range(3)]
    data["workarounds_zh"] = entries
    record = Record.model_validate(data)
    native = record.to_native()
    data = clean_value(data)  # texts are kept cleaned of NUL and lone surrogates
    assert native == data and list(native) == list(data)
    assert [list(e) for e in native["workarounds_zh"] if isinstance(e, dict)] == [
        list(e) for e in data["workarounds_zh"] if isinstance(e, dict)
    ]


def test_a_text_without_letters_has_nothing_to_translate() -> None:
    record = Record.model_validate(seed())  # its how is "..."
    assert record.localized("zh").fallbacks == ("dead_ends[0].why_fails",)
    assert record.localized("zh").workarounds[0].how.value == "..."
