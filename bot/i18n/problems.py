"""Validation problems of a record, said in a locale. Pure.

:func:`problem_text` turns a :class:`bot.records.Problem` (pydantic's error
type or errkb's own, with its values) into a catalog sentence that names the
field in that locale: ``workarounds[0].success_rate`` is "success rate of
workaround 1" in English and "第 1 个解决办法的成功率" in Chinese, and a
translation key such as ``dead_ends_zh[1]`` adds the language it is in. No
message of pydantic's own (English) reaches the reader; an error type the
catalog does not know says that the field is not valid.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from bot.i18n import catalog, supported, t
from bot.records import TRANSLATION_KEY, Problem

#: pydantic error types that say the same thing to a reader, by catalog key.
_SAME = {
    "number": (
        "float_type",
        "float_parsing",
        "float_finite_number",
        "decimal_type",
        "decimal_parsing",
    ),
    "whole_number": ("int_type", "int_parsing", "int_from_float", "int_parsing_size"),
    "date": (
        "date_type",
        "date_parsing",
        "date_from_datetime_parsing",
        "date_from_datetime_inexact",
    ),
    "object": ("dict_type", "model_type", "model_attributes_type"),
    "string_type": ("string_type", "string_sub_type", "string_unicode"),
}
_KEY = {kind: key for key, kinds in _SAME.items() for kind in kinds}
_TOKENS = re.compile(r"[^.\[\]]+|\[\d+\]")
#: Names whose items read well on their own ("look-alike 2", not "… of transition graph").
_SELF_EXPLAINING = ("transition_graph",)


def language_name(locale: str, code: str) -> str:
    """``zh`` in ``locale``'s words ("Chinese", "中文"), or the code when errkb has no name for
    it."""
    base = supported(code)
    key = f"lang.name.{base}"
    return t(locale, key) if base and key in catalog("en") else code


def _name(locale: str, name: str) -> str:
    key = f"field.{name}"
    return t(locale, key) if key in catalog("en") else t(locale, "field.key", name=name)


def _item(locale: str, name: str, n: int) -> str:
    key = f"field.item.{name}"
    if key in catalog("en"):
        return t(locale, key, n=n)
    return t(locale, "field.item", field=_name(locale, name), n=n)


def field_label(path: str, locale: str) -> str:
    """A record path (``workarounds_zh[0].how``, ``(record)``) as words in ``locale``."""
    if path == "(record)" or not path:
        return t(locale, "field.record")
    tokens = _TOKENS.findall(path)
    label: str | None = None
    parent = ""
    i = 0
    while i < len(tokens):
        name = tokens[i]
        language = None
        found = TRANSLATION_KEY.match(name)
        if found:
            name, language = found.groups()
        if i + 1 < len(tokens) and tokens[i + 1].startswith("["):
            phrase = _item(locale, name, int(tokens[i + 1][1:-1]) + 1)
            i += 2
        else:
            phrase = _name(locale, name)
            i += 1
        if language:
            phrase = t(
                locale, "field.translation", field=phrase, language=language_name(locale, language)
            )
        if label is None or parent in _SELF_EXPLAINING:
            label = phrase
        else:
            label = t(locale, "field.part", part=phrase, whole=label)
        parent = name
    return label or t(locale, "field.record")


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _choices(expected: Any) -> str:
    """pydantic's "'true', 'partial' or 'false'" as "true / partial / false" (no English "or")."""
    values = re.findall(r"'([^']*)'", str(expected))
    return " / ".join(values) if values else str(expected)


def problem_text(problem: Problem, locale: str) -> str:
    """One problem as a sentence in ``locale``, naming its field in that locale."""
    params: dict[str, Any] = {
        k: _number(v) for k, v in problem.params.items() if k not in ("key", "locale")
    }
    params["field"] = field_label(problem.path, locale)
    kind = problem.kind
    key = f"problem.{_KEY.get(kind, kind)}"
    if kind == "string_too_short" and problem.params.get("min_length") == 1:
        key = "problem.empty"
    if kind == "literal_error":
        params["expected"] = _choices(problem.params.get("expected", ""))
    if kind == "translation_without_source":
        params["source"] = field_label(str(problem.params.get("source", "")), locale)
    if kind == "regex_unsupported":
        params["construct"] = t(locale, f"problem.regex.{problem.params.get('construct', '')}")
    if "key" in problem.params:
        params["field"] = field_label(str(problem.params["key"]), locale)
    english = catalog("en")
    if key not in english:
        key = "problem.invalid"
    try:
        text = t(locale, key, **params)
    except (KeyError, IndexError):  # a value the message needs is missing from the error
        text = t(locale, "problem.invalid", field=params["field"])
    return text[:1].upper() + text[1:]


def localized_problems(problems: Iterable[Problem], locale: str) -> list[tuple[str, str]]:
    """``(path, sentence)`` pairs, the shape :func:`bot.records.validation_problems` gives,
    with each sentence in ``locale``."""
    return [(p.path, problem_text(p, locale)) for p in problems]


def fields_text(paths: Iterable[str], locale: str) -> str:
    """Several record paths as one list in ``locale`` ("root cause, how to apply it of …")."""
    labels = list(dict.fromkeys(field_label(p, locale) for p in paths))
    return t(locale, "field.list.separator").join(labels)


__all__ = ["field_label", "fields_text", "language_name", "localized_problems", "problem_text"]
