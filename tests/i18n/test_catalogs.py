"""Every catalog file has every locale; every key has the same placeholders everywhere;
Chinese messages are Chinese; every record field and problem has words in every locale."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from pydantic import BaseModel

from bot.i18n import available_locales, catalog, placeholders
from bot.records import DeadEnd, Link, Record, VersionInfo, Workaround
from tests.i18n.prose import english_words

FOLDER = resources.files("bot.i18n") / "catalogs"
TOPICS = sorted(p.name for p in FOLDER.iterdir() if p.is_dir())
HAN = re.compile(r"[\u4e00-\u9fff]")
#: Messages that are commands or layout only: nothing in them to translate.
NOT_PROSE = {"answer.fallback", "uncertain.item", "help.cmd.show", "help.cmd.graph",
             "help.cmd.unknown", "help.cmd.lang", "help.cmd.help", "digest.reason.join",
             "digest.item", "field.key", "field.list.separator", "field.translation"}  # fmt: skip


def _file(topic: str | None, locale: str) -> dict[str, str]:
    folder = FOLDER / topic if topic else FOLDER
    return dict(json.loads((folder / f"{locale}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("topic", [None, *TOPICS])
def test_each_catalog_file_has_every_key_in_every_locale_with_the_same_placeholders(
    topic: str | None,
) -> None:
    english = _file(topic, "en")
    assert english
    for locale in available_locales():
        other = _file(topic, locale)
        assert set(other) == set(english), (topic, locale, set(other) ^ set(english))
        for key, text in english.items():
            assert placeholders(other[key]) == placeholders(text), f"{topic}/{locale}: {key}"


def test_a_key_lives_in_one_file_only() -> None:
    seen: dict[str, str] = {}
    for topic in [None, *TOPICS]:
        for key in _file(topic, "en"):
            assert key not in seen, f"{key} in {seen.get(key)} and {topic}"
            seen[key] = str(topic)
    assert set(seen) == set(catalog("en"))


def test_chinese_messages_are_written_in_chinese() -> None:
    for key, text in catalog("zh").items():
        if key in NOT_PROSE:
            continue
        assert HAN.search(text), f"zh {key}: {text!r}"
        assert english_words(text) == [], f"zh {key}: {text!r}"


def _fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields)


@pytest.mark.parametrize("locale", available_locales())
def test_every_record_field_has_a_name_in_every_locale(locale: str) -> None:
    names = set().union(*(_fields(m) for m in (Record, DeadEnd, Workaround, VersionInfo, Link)))
    names -= {"translations"}
    names |= {"leads_to", "preceded_by", "frequently_confused_with", "distinction"}
    missing = sorted(n for n in names if f"field.{n}" not in catalog(locale))
    assert missing == []


def test_every_problem_errkb_raises_has_a_message() -> None:
    raised: set[str] = set()
    for path in (resources.files("bot") / "records").iterdir():
        if path.name.endswith(".py"):
            raised |= set(re.findall(r'PydanticCustomError\(\s*"(\w+)"', path.read_text("utf-8")))
    raised.add("translation_entry")  # the Discriminator's custom error type
    assert {"record_id_shape", "regex_invalid", "translation_without_source"} <= raised
    assert sorted(k for k in raised if f"problem.{k}" not in catalog("en")) == []
