"""Texts with a NUL or a lone surrogate: cleaned the same way wherever they come in, so a
record holding them imports, exports and imports again on SQLite and PostgreSQL alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.records import Record
from bot.records.clean import REPLACEMENT, clean_text, clean_value
from bot.store.db import Store
from tests.test_cli import run

RECORD = {
    "id": "unfit/nul-and-surrogate",
    "signature": "ValueError: bad\x00 byte \ud800 in input",
    "regex": "ValueError: bad\x00? byte",
    "domain": "unfit",
    "root_cause": "A writer padded its log with NUL\x00\x00 bytes and cut a pair: \udc80.",
    "workarounds": [{"action": "Strip NULs\x00", "how": "tr -d '\\000' < in > out \ud83d"}],
    "tags": ["nul\x00", "\udfff"],
    "os_specific": {"linux\x00": "x\x00"},
    "root_cause_zh": "写入者用 NUL\x00 填充了日志\ud800。",
}


def test_a_nul_is_dropped_and_a_lone_surrogate_replaced() -> None:
    assert clean_text("a\x00b\ud800c\udfff") == f"ab{REPLACEMENT}c{REPLACEMENT}"
    assert clean_text("😀 fine, 中文 too") == "😀 fine, 中文 too"
    data = {"k\x00": ["x\x00", {"y": "\ud800"}], "n": 1}
    assert clean_value(data) == {"k": ["x", {"y": REPLACEMENT}], "n": 1}
    assert data == {"k\x00": ["x\x00", {"y": "\ud800"}], "n": 1}, "the input is left as it was"
    fit = {"a": ["b", {"c": 1}]}
    assert clean_value(fit) is fit


@given(
    st.recursive(
        st.text() | st.integers() | st.none(),
        lambda kids: st.lists(kids) | st.dictionaries(st.text(), kids),
        max_leaves=30,
    )
)
def test_cleaned_values_encode_as_utf8_json_and_clean_again_to_themselves(value: object) -> None:
    cleaned = clean_value(value)
    text = json.dumps(cleaned, ensure_ascii=False)
    assert "\x00" not in text and "\\u0000" not in text
    text.encode("utf-8")  # no lone surrogate left
    assert clean_value(cleaned) == cleaned


def test_a_record_is_cleaned_as_it_is_validated() -> None:
    record = Record.model_validate(RECORD)
    native = json.dumps(record.to_native(), ensure_ascii=False)
    native.encode("utf-8")
    assert "\x00" not in native and "\\u0000" not in native
    assert record.signature == f"ValueError: bad byte {REPLACEMENT} in input"
    assert record.tags == ["nul", REPLACEMENT] and record.os_specific == {"linux": "x"}


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_a_record_with_nul_and_lone_surrogates_imports_exports_and_imports_again(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    source = tmp_path / "unfit.json"
    source.write_text(json.dumps([RECORD]))  # \u0000 and \ud800 escapes, as JSON carries them
    code, out, err = run(capsys, "import", str(source), "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == 1
    exported = tmp_path / f"out.{fmt}"
    code, _, err = run(capsys, "export", "--format", fmt, "--output", str(exported))
    assert code == 0, err
    first = exported.read_text(encoding="utf-8")
    assert "\\u0000" not in first and "\\ud800" not in first
    code, out, err = run(capsys, "import", str(exported), "--json")
    assert code == 0, err
    assert {
        k: v
        for k, v in json.loads(out).items()
        if k in ("added", "updated", "unchanged", "skipped", "warnings")
    } == {
        "added": 0,
        "updated": 0,
        "unchanged": 1,
        "skipped": 0,
        "warnings": [],
    }
    code, shown, err = run(capsys, "show", RECORD["id"], "--json")
    assert code == 0, err
    assert json.loads(shown)["signature"] == f"ValueError: bad byte {REPLACEMENT} in input"


def test_search_words_with_a_nul_or_undecodable_bytes_find_records(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "unfit.json"
    source.write_text(json.dumps([RECORD]))
    assert run(capsys, "import", str(source))[0] == 0
    for words in (["byte\x00", "input"], ["byte", "\udcff", "input"]):
        code, out, err = run(capsys, "search", *words, "--json")
        assert code == 0, err
        assert [hit["id"] for hit in json.loads(out)][:1] == [RECORD["id"]]
