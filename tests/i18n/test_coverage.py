"""What is untranslated: per rendered record (for the "not yet translated" note) and per
locale for the whole knowledge base (``errkb i18n check``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.i18n.coverage import coverage, fallback_note, fallen_back, locale_coverage
from bot.records import Record
from tests.test_records import fully_translated, linked_seed


def record(change: dict[str, Any] | None = None) -> Record:
    return Record.model_validate({**linked_seed(), **(change or {})})


def test_fallen_back_covers_every_kind_of_text_and_only_what_is_shown() -> None:
    partly = record(
        {"dead_ends_zh": [None, {"action": "重启服务", "why_fails": "重启后预算不变。"}]}
    )
    everything = fallen_back(partly, "zh")
    assert "dead_ends[0].why_fails" in everything  # the seed's dead end, untranslated
    assert "dead_ends[1].condition" in everything and "dead_ends[1].action" not in everything
    assert "transition_graph.frequently_confused_with[0].distinction" in everything
    assert fallen_back(partly, "zh", ["signature", "root_cause", "dead_ends[1].action"]) == ()
    assert fallen_back(partly, "zh", ["dead_ends[1]"]) == ("dead_ends[1].condition",)
    assert fallen_back(partly.localized("zh"), "zh", ["workarounds"]) == (
        "workarounds[0].how",
        "workarounds[0].condition",
    )
    assert fallen_back(partly, "en") == ()


def test_the_note_names_each_kind_of_untranslated_text_once_in_the_readers_language() -> None:
    partly = record({"dead_ends_zh": ["更大的批处理 token 会占用更多 KV 缓存。", "重启服务"]})
    note = fallback_note(partly.localized("zh"), ["dead_ends", "workarounds"])
    assert (
        note == "以下内容尚未翻译，以英文显示："
        "死胡同的失败原因、死胡同的适用条件、解决办法的做法、解决办法的适用条件。"
    )
    english = fallback_note(partly.localized("zh"), ["dead_ends[1].why_fails"])
    assert english is not None and "英文" in english
    assert fallback_note(partly.localized("zh"), ["signature"]) is None
    assert fallback_note(Record.model_validate(fully_translated()).localized("zh")) is None


def test_coverage_counts_texts_and_lists_the_gaps_per_locale() -> None:
    full = Record.model_validate(fully_translated())
    half = record({"id": "llm/half"})
    chinese = Record.model_validate(
        {**linked_seed(), "id": "llm/zh", "locale": "zh", "signature_zh": None}
    )
    zh, ja = coverage([full, half, chinese], ["zh", "ja"])
    assert (zh.records, zh.complete) == (2, 1)  # the record written in Chinese is not counted
    assert zh.texts == 2 * 13 and zh.translated == 13 + 3  # half has signature, root cause, action
    assert [g.record_id for g in zh.gaps] == ["llm/half"]
    assert zh.gaps[0].paths == half.localized("zh").fallbacks
    assert round(zh.percent, 1) == round(100 * 16 / 26, 1)
    assert (ja.records, ja.translated, len(ja.gaps)) == (3, 0, 3)
    assert locale_coverage([], "zh").percent == 100.0


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().out


def test_the_check_command_lists_gaps_and_fails_when_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "records.json"
    half = {**linked_seed(), "id": "llm/half"}
    path.write_text(json.dumps([fully_translated(), half], ensure_ascii=False), encoding="utf-8")
    code, out = _run(capsys, "i18n", "check", "--records", str(path), "--locale", "zh")
    assert code == 0
    assert "zh: 16 of 26 texts translated (61.5%); 1 of 2 records complete" in out
    assert (
        "llm/half: versions[0].behavior_change, os_specific.linux, dead_ends[0].why_fails"
        in " ".join(out.split())
    )
    code, out = _run(capsys, "i18n", "check", "--records", str(path), "--json", "--strict")
    assert code == 1
    data = json.loads(out)
    assert [c["locale"] for c in data["locales"]] == ["en", "zh"]
    zh = data["locales"][1]
    assert (zh["texts"], zh["translated_texts"], zh["percent"]) == (26, 16, 61.5)
    assert list(zh["untranslated"]) == ["llm/half"]
    path.write_text(json.dumps([fully_translated()], ensure_ascii=False), encoding="utf-8")
    assert _run(capsys, "i18n", "check", "--records", str(path), "--strict")[0] == 0


def test_the_home_tab_share_counts_only_changed_records_again_and_equals_a_full_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import bot.slack.usecases.app_home
    from bot.i18n import available_locales
    from bot.match.index import MatchIndex
    from bot.slack.usecases.app_home import _Translated

    def full_count(records: list[Record]) -> dict[str, float]:
        return {found.locale: found.percent for found in coverage(records, available_locales())}

    half = record({"id": "llm/half"})
    chinese = Record.model_validate(
        {**linked_seed(), "id": "llm/zh", "locale": "zh", "signature_zh": None}
    )
    records = [Record.model_validate(fully_translated()), half, chinese]
    share = _Translated()
    index = MatchIndex.build(sorted(records, key=lambda r: r.id), warm=False)
    assert share(index) == full_count(records) and 0 < share(index)["zh"] < 100
    # the half-translated record gets its Chinese dead end: only it is counted again
    done = record(
        {
            "id": "llm/half",
            "dead_ends_zh": [None, {"action": "重启服务", "why_fails": "重启后预算不变。"}],
        }
    )
    updated = index.update([done])
    counted: list[str] = []
    real = bot.slack.usecases.app_home.record_coverage
    monkeypatch.setattr(
        bot.slack.usecases.app_home,
        "record_coverage",
        lambda r, locale: counted.append(r.id) or real(r, locale),
    )
    now = share(updated)
    assert set(counted) == {"llm/half"} and len(counted) == len(available_locales())
    assert now == full_count([records[0], done, chinese]) and now["zh"] > full_count(records)["zh"]
    removed = updated.update([], ["llm/half"])
    assert share(removed) == full_count([records[0], chinese])
