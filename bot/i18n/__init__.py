"""Message catalogs and locale choice: plain data and pure functions.

Every fixed string errkb says is a key in ``catalogs/<locale>.json`` or in a
topic's ``catalogs/<topic>/<locale>.json`` (``records/``: the names of record
fields, validation problems, what is untranslated); a locale's catalog is all
of these, and every locale has the same keys with the same ``{placeholders}``. :func:`t` looks a
key up (English when a locale lacks it); :func:`negotiate_locale` picks the
language of a reply from what is known about the user, the channel and the
paste, in that order.

A message that counts something is an object of CLDR plural categories
(``{"one": "{count} error leads to it", "other": "{count} errors lead to it"}``;
Chinese has only ``other``): each locale gives exactly the categories its
language has, and :func:`t` picks the form by the ``count`` parameter with
Babel's CLDR rules. :func:`catalog` shows such a message by its ``other`` form;
:func:`plural_forms` has them all. :func:`relative_days` says how long ago a
day was ("3 days ago", "2 个月前") by CLDR too.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

DEFAULT_LOCALE = "en"
AUTO = "auto"
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: CJK characters a paste needs before its own language counts as Chinese.
CJK_MIN = 4


@cache
def available_locales() -> tuple[str, ...]:
    folder = resources.files("bot.i18n") / "catalogs"
    return tuple(
        sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))
    )


def _catalog_files(locale: str) -> list[Traversable]:
    folder = resources.files("bot.i18n") / "catalogs"
    topics = sorted((p for p in folder.iterdir() if p.is_dir()), key=lambda p: p.name)
    return [folder / f"{locale}.json"] + [
        topic / f"{locale}.json" for topic in topics if (topic / f"{locale}.json").is_file()
    ]


@cache
def _messages(locale: str) -> dict[str, str | dict[str, str]]:
    """Every message of ``locale`` as written; a key in two of its files is a mistake and raises."""
    merged: dict[str, str | dict[str, str]] = {}
    for path in _catalog_files(locale):
        data = json.loads(path.read_text(encoding="utf-8"))
        twice = set(data) & set(merged)
        if twice:
            raise ValueError(f"catalog keys defined twice for {locale}: {sorted(twice)}")
        for key, value in data.items():
            forms = {str(c): str(v) for c, v in value.items()} if isinstance(value, dict) else None
            merged[str(key)] = forms if forms is not None else str(value)
    return merged


@cache
def catalog(locale: str) -> dict[str, str]:
    """Every message of ``locale``; a plural message by its ``other`` form."""
    return {
        key: value if isinstance(value, str) else value.get("other", "")
        for key, value in _messages(locale).items()
    }


@cache
def plural_forms(locale: str) -> dict[str, dict[str, str]]:
    """The plural messages of ``locale``: key → CLDR category → text."""
    return {k: v for k, v in _messages(locale).items() if isinstance(v, dict)}


@cache
def plural_categories(locale: str) -> frozenset[str]:
    """The CLDR plural categories ``locale`` has (always with ``other``)."""
    from babel import Locale

    return frozenset({*Locale.parse(locale).plural_form.tags, "other"})


def plural_category(locale: str, count: float) -> str:
    """The CLDR plural category of ``count`` in ``locale`` (``one``, ``few``, ``other`` ...)."""
    from babel import Locale

    return str(Locale.parse(locale).plural_form(count))


def relative_days(locale: str, days: int) -> str:
    """``days`` ago in ``locale`` by CLDR ("3 days ago", "1 month ago", "2年前"); 0 days is
    ``fresh.today``."""
    if days <= 0:
        return t(locale, "fresh.today")
    from datetime import timedelta

    from babel.dates import format_timedelta

    found = supported(locale) or DEFAULT_LOCALE
    return str(
        format_timedelta(timedelta(days=-days), granularity="day", add_direction=True, locale=found)
    )


def placeholders(text: str) -> frozenset[str]:
    """The ``{names}`` a catalog string expects."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


def supported(locale: str | None) -> str | None:
    """``zh-CN``/``zh_TW``/``zh`` → ``zh``; a locale errkb has no catalog for → None."""
    if not locale:
        return None
    base = locale.strip().replace("_", "-").split("-")[0].lower()
    return base if base in available_locales() else None


def t(locale: str, key: str, **params: object) -> str:
    """The catalog string ``key`` in ``locale`` (English when missing), formatted with ``params``;
    a plural message in the form its ``count`` takes in that language."""
    found = supported(locale) or DEFAULT_LOCALE
    if key not in _messages(found):
        found = DEFAULT_LOCALE
    value = _messages(found)[key]
    if isinstance(value, dict):
        count = params.get("count")
        form = plural_category(found, count) if isinstance(count, int | float) else "other"
        value = value.get(form, value["other"])
    return value.format(**params) if params else value


def paste_language(text: str) -> str | None:
    """``zh`` when the paste itself is written in Chinese (around the error), else None."""
    return "zh" if len(_CJK.findall(text[:20_000])) >= CJK_MIN else None


def negotiate_locale(
    user_choice: str | None,
    slack_locale: str | None,
    channel_default: str | None,
    paste_text: str,
) -> str:
    """The reply's language: the user's choice, their Slack locale, the channel's default,
    the paste's own language, English — the first of these errkb speaks."""
    for candidate in (
        None if user_choice == AUTO else user_choice,
        slack_locale,
        channel_default,
        paste_language(paste_text),
    ):
        found = supported(candidate)
        if found:
            return found
    return DEFAULT_LOCALE


__all__ = [
    "AUTO",
    "DEFAULT_LOCALE",
    "available_locales",
    "catalog",
    "negotiate_locale",
    "paste_language",
    "placeholders",
    "plural_categories",
    "plural_category",
    "plural_forms",
    "relative_days",
    "supported",
    "t",
]
