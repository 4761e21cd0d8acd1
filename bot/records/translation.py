"""Translations of a record's text: the ``<field>_<locale>`` keys, for any locale.

A record is written in its own ``locale``; every text a user reads may also
be given in other locales under ``<field>_<locale>``:

=====================  ===========================================================
key                    value
=====================  ===========================================================
``signature_zh``       a string
``root_cause_zh``      a string
``versions_zh``        a list; entry *i* is ``null`` or ``{"behavior_change"}``
``os_specific_zh``     an object: the same keys as ``os_specific``, translated text
``dead_ends_zh``       a list; entry *i* is ``null``, a string (the text shown for
                       the dead end: its ``action``, or ``why_fails`` when the
                       action is empty), or ``{"action", "why_fails", "condition"}``
``workarounds_zh``     a list; entry *i* is ``null``, a string (the ``action``) or
                       ``{"action", "how", "condition"}``
``transition_graph_zh``  ``{"leads_to", "preceded_by", "frequently_confused_with"}``,
                       each a list whose entry *i* is ``null`` or
                       ``{"condition", "distinction"}`` for link *i* of that kind
=====================  ===========================================================

Entry *i* of a list translates item *i* of the record's list. An object entry
may carry any subset of its keys; a key left out, ``null`` or ``""`` is not
translated, and readers fall back to the record's own text field by field
(:mod:`bot.records.localized`). In ``how``, prose and ``#`` comments are
translated; commands, flags, code and identifiers stay as they are. A
translation of a text the record leaves empty is an error, as is an entry past
the end of its list. Strings and objects are written back as they came, keys
in the order given.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import ConfigDict, Discriminator, Tag
from pydantic_core import PydanticCustomError

from bot.records.given import GivenKeys

if TYPE_CHECKING:
    from bot.records.model import Record

#: Every field a user reads, with the parts of each item a translation may carry
#: (empty for plain text). In the order a record's texts are read and listed.
TRANSLATED: dict[str, tuple[str, ...]] = {
    "signature": (),
    "root_cause": (),
    "versions": ("behavior_change",),
    "os_specific": (),
    "dead_ends": ("action", "why_fails", "condition"),
    "workarounds": ("action", "how", "condition"),
    "transition_graph": ("condition", "distinction"),
}
LINK_KINDS = ("leads_to", "preceded_by", "frequently_confused_with")
#: Union tags in validation error locations (not part of a field's path).
FORM_TAGS = ("text-form", "object-form")

_LOCALE = r"[a-z]{2,3}(?:_[a-z]{2,4})?"
LOCALE_PATTERN = re.compile(rf"^{_LOCALE}$")
TRANSLATION_KEY = re.compile(rf"^({'|'.join(TRANSLATED)})_({_LOCALE})$")


def normalise_locale(value: str) -> str:
    """``zh-CN`` → ``zh_cn``: the form used in ``*_<locale>`` keys."""
    return value.strip().replace("-", "_").lower()


def locale_chain(locale: str) -> tuple[str, ...]:
    """Where to look for ``locale``'s text, most specific first: ``zh-TW`` → zh_tw, zh."""
    wanted = normalise_locale(locale)
    return tuple(dict.fromkeys((wanted, wanted.split("_")[0])))


class _Entry(GivenKeys):
    model_config = ConfigDict(extra="forbid")


class VersionText(_Entry):
    behavior_change: str | None = None


class DeadEndText(_Entry):
    action: str | None = None
    why_fails: str | None = None
    condition: str | None = None


class WorkaroundText(_Entry):
    action: str | None = None
    how: str | None = None
    condition: str | None = None


class LinkText(_Entry):
    condition: str | None = None
    distinction: str | None = None


def _form(value: Any) -> str | None:
    if isinstance(value, str):
        return "text-form"
    if isinstance(value, dict | _Entry):
        return "object-form"
    return None


_ENTRY_ERROR = {
    "custom_error_type": "translation_entry",
    "custom_error_message": "expected a string, an object or null",
}
DeadEndEntry = (
    Annotated[
        Annotated[str, Tag("text-form")] | Annotated[DeadEndText, Tag("object-form")],
        Discriminator(_form, **_ENTRY_ERROR),
    ]
    | None
)
WorkaroundEntry = (
    Annotated[
        Annotated[str, Tag("text-form")] | Annotated[WorkaroundText, Tag("object-form")],
        Discriminator(_form, **_ENTRY_ERROR),
    ]
    | None
)


class GraphText(_Entry):
    leads_to: list[LinkText | None] | None = None
    preceded_by: list[LinkText | None] | None = None
    frequently_confused_with: list[LinkText | None] | None = None


class Translation(_Entry):
    """A record's text in one locale; ``None`` means not translated."""

    signature: str | None = None
    root_cause: str | None = None
    versions: list[VersionText | None] | None = None
    os_specific: dict[str, str] | None = None
    dead_ends: list[DeadEndEntry] | None = None
    workarounds: list[WorkaroundEntry] | None = None
    transition_graph: GraphText | None = None


# -- the texts, as paths -----------------------------------------------------------
# A path names one text of a record the way validation errors do:
# "signature", "workarounds[0].how", "os_specific.linux",
# "transition_graph.leads_to[2].condition".


def _link_texts(item: Any) -> dict[str, str]:
    if isinstance(item, str):
        return {"condition": "", "distinction": ""}
    extra = item.model_extra or {}
    return {
        "condition": item.condition if isinstance(item.condition, str) else "",
        "distinction": extra["distinction"] if isinstance(extra.get("distinction"), str) else "",
    }


def source_texts(record: Record) -> dict[str, str]:
    """Every user-read text of ``record`` by path, in reading order (empty texts included)."""
    out = {"signature": record.signature, "root_cause": record.root_cause}
    for i, version in enumerate(record.versions):
        out[f"versions[{i}].behavior_change"] = version.behavior_change or ""
    for key, value in record.os_specific.items():
        if isinstance(value, str):
            out[f"os_specific.{key}"] = value
    for field in ("dead_ends", "workarounds"):
        for i, item in enumerate(getattr(record, field)):
            for part in TRANSLATED[field]:
                out[f"{field}[{i}].{part}"] = getattr(item, part)
    for kind in LINK_KINDS:
        for i, link in enumerate(getattr(record.transition_graph, kind)):
            for part, text in _link_texts(link).items():
                out[f"transition_graph.{kind}[{i}].{part}"] = text
    return out


def _given(text: str | None) -> bool:
    return bool(text and text.strip())


def _item_texts(field: str, entries: list[Any] | None, record: Record) -> dict[str, str]:
    out = {}
    for i, entry in enumerate(entries or []):
        if isinstance(entry, str):
            part = "action"
            if field == "dead_ends" and i < len(record.dead_ends):
                part = "action" if record.dead_ends[i].action.strip() else "why_fails"
            if _given(entry):
                out[f"{field}[{i}].{part}"] = entry
        elif entry is not None:
            for part in TRANSLATED[field]:
                if _given(text := getattr(entry, part)):
                    out[f"{field}[{i}].{part}"] = text
    return out


def translated_texts(translation: Translation, record: Record) -> dict[str, str]:
    """The texts ``translation`` gives for ``record``, by path (untranslated ones left out)."""
    out = {f: v for f in ("signature", "root_cause") if _given(v := getattr(translation, f))}
    for field in ("versions", "dead_ends", "workarounds"):
        out.update(_item_texts(field, getattr(translation, field), record))
    for key, value in (translation.os_specific or {}).items():
        if _given(value):
            out[f"os_specific.{key}"] = value
    graph = translation.transition_graph
    for kind in LINK_KINDS:
        for i, entry in enumerate((getattr(graph, kind) if graph else None) or []):
            for part in TRANSLATED["transition_graph"]:
                if entry is not None and _given(text := getattr(entry, part)):
                    out[f"transition_graph.{kind}[{i}].{part}"] = text
    return out


def translation_key(path: str, locale: str) -> str:
    """Where a path's translation is written: ``workarounds[0].how`` → ``workarounds_zh[0].how``."""
    head = re.match(r"[a-z_]+", path)
    end = head.end() if head else len(path)
    return f"{path[:end]}_{locale}{path[end:]}"


def _list_lengths(translation: Translation, record: Record) -> list[tuple[str, int, int]]:
    """``(field, entries, items)`` for each list a translation gives."""
    out = [
        (field, len(entries), len(getattr(record, field)))
        for field in ("versions", "dead_ends", "workarounds")
        if (entries := getattr(translation, field)) is not None
    ]
    graph = translation.transition_graph
    for kind in LINK_KINDS:
        if graph is not None and (entries := getattr(graph, kind)) is not None:
            out.append(
                (
                    f"transition_graph.{kind}",
                    len(entries),
                    len(getattr(record.transition_graph, kind)),
                )
            )
    return out


def check_translations(record: Record) -> None:
    """Raise when a translation does not fit the record it belongs to."""
    sources: dict[str, str] | None = None
    for locale, translation in record.translations.items():
        if not LOCALE_PATTERN.match(locale):
            raise PydanticCustomError(
                "translation_locale",
                "translation locale {code!r} is not a locale code",
                {"code": locale},
            )
        for field, entries, items in _list_lengths(translation, record):
            if entries > items:
                raise PydanticCustomError(
                    "translation_too_long",
                    "{key} has {entries} entries but {field} has only {items}: "
                    "entry i translates {field}[i]",
                    {
                        "key": translation_key(field, locale),
                        "field": field,
                        "entries": entries,
                        "items": items,
                    },
                )
        sources = source_texts(record) if sources is None else sources
        for path in translated_texts(translation, record):
            if not sources.get(path, "").strip():
                raise PydanticCustomError(
                    "translation_without_source",
                    "{key} translates {source}, which has no text",
                    {"key": translation_key(path, locale), "source": path},
                )
