"""Every catalog file has every locale; every key has the same placeholders everywhere;
Chinese messages are Chinese; every record field and problem has words in every locale."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from pydantic import BaseModel

from bot.i18n import available_locales, catalog, placeholders, plural_categories, plural_forms, t
from bot.match import regexcheck
from bot.records import DeadEnd, Link, Record, VersionInfo, Workaround
from tests.i18n.prose import english_words

FOLDER = resources.files("bot.i18n") / "catalogs"
TOPICS = sorted(p.name for p in FOLDER.iterdir() if p.is_dir())
HAN = re.compile(r"[\u4e00-\u9fff]")
#: Record vocabulary that is layout only: nothing in it to translate.
NOT_PROSE = {"field.key", "field.list.separator", "field.translation"}


def _raw(topic: str | None, locale: str) -> dict[str, str | dict[str, str]]:
    folder = FOLDER / topic if topic else FOLDER
    return dict(json.loads((folder / f"{locale}.json").read_text(encoding="utf-8")))


def _file(topic: str | None, locale: str) -> dict[str, str]:
    """Every text of one catalog file; a plural message's forms joined (for word checks)."""
    return {
        k: v if isinstance(v, str) else "\n".join(v.values())
        for k, v in _raw(topic, locale).items()
    }


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


@pytest.mark.parametrize("locale", available_locales())
def test_plural_messages_give_exactly_the_categories_of_their_language(locale: str) -> None:
    english = plural_forms("en")
    assert {"digest.reason.overdue", "digest.title"} <= set(english)
    forms = plural_forms(locale)
    assert set(forms) == set(english), locale
    for key, by_category in forms.items():
        assert set(by_category) == plural_categories(locale), (locale, key)
        assert len({placeholders(text) for text in by_category.values()}) == 1, (locale, key)
        assert placeholders(by_category["other"]) == placeholders(english[key]["other"])
        assert "count" in placeholders(by_category["other"]), (locale, key)


def test_a_plural_message_takes_the_form_of_its_count() -> None:
    assert t("en", "digest.reason.overdue", count=1) == "1 day overdue"
    assert t("en", "digest.reason.overdue", count=2) == "2 days overdue"
    assert t("en", "digest.reason.overdue", count=0) == "0 days overdue"
    assert t("zh", "digest.reason.overdue", count=1) == "已超期 1 天"
    assert all(
        "(s)" not in text for locale in available_locales() for text in catalog(locale).values()
    )


def test_a_key_lives_in_one_file_only() -> None:
    seen: dict[str, str] = {}
    for topic in [None, *TOPICS]:
        for key in _file(topic, "en"):
            assert key not in seen, f"{key} in {seen.get(key)} and {topic}"
            seen[key] = str(topic)
    assert set(seen) == set(catalog("en"))


def test_chinese_messages_have_no_english_prose() -> None:
    for key, text in catalog("zh").items():
        assert english_words(text) == [], f"zh {key}: {text!r}"


@pytest.mark.parametrize("topic", TOPICS)
def test_chinese_record_vocabulary_is_written_in_chinese(topic: str) -> None:
    for key, text in _file(topic, "zh").items():
        if key not in NOT_PROSE:
            assert HAN.search(text), f"zh {key}: {text!r}"


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
    raised |= set(regexcheck.KINDS)  # a regex errkb cannot run, said by kind
    assert {"record_id_shape", "regex_invalid", "translation_without_source"} <= raised
    assert (
        sorted(c for c in regexcheck.CONSTRUCTS if f"problem.regex.{c}" not in catalog("en")) == []
    )
    assert sorted(k for k in raised if f"problem.{k}" not in catalog("en")) == []
