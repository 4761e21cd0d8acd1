"""The native record model: round trips, translations, precise validation errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.records import Record, validation_problems
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
    assert [k for k in seed() if k in dumped] == list(dumped)[: len([k for k in seed() if k in dumped])]


def test_translations_are_generic_over_locale() -> None:
    data = {**seed(), "signature_ja": "ランタイムエラー", "root_cause_pt_br": "causa", "workarounds_ko": ["해결"]}
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
        "frequently_confused_with": [{"error_id": "llm/c", "distinction": "mentions the tokenizer"}],
    }
    record = Record.model_validate({**seed(), "transition_graph": graph})
    assert record.to_native()["transition_graph"] == graph
    assert [(kind, getattr(item, "error_id", item)) for kind, item in record.links()] == [
        ("leads_to", "llm/a"), ("leads_to", "llm/b"), ("frequently_confused_with", "llm/c"),
    ]  # fmt: skip


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
        ({"workarounds": [{"action": "x", "success_rate": -1}]}, "workarounds[0].success_rate", "greater than or equal to 0"),
        ({"dead_ends": [{"action": "", "why_fails": ""}]}, "dead_ends[0]", "action or a why_fails"),
        ({"transition_graph": {"leads_to": [{"probability": 0.2}]}}, "transition_graph.leads_to[0]", ""),
        ({"workarounds_zh": ["a", "b"]}, "(record)", "entry i translates workarounds[i]"),
    ],
)  # fmt: skip
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


text_st = st.text(min_size=1, max_size=40).filter(lambda s: s.strip())


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
    assert again.to_native() == record.to_native() == {k: data[k] for k in record.to_native()}
