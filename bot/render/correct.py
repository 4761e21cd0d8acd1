"""The "Not this error" modal, and reading its choice back. Pure.

It offers the other records the error could be (what the matcher ranked
next for that error) and "none of these", and a search over the whole
knowledge base (an ``external_select`` whose options errkb serves as the
person types: :func:`render_search_options`); the choice is stored by the
error's template, so the next paste of the same error, in any channel, is
answered with it (or declined).

Slack shows at most 75 characters of an option: a label is the record's id
and as much of its error line as fits, cut at a word boundary with an
ellipsis (:func:`option_label`), never mid-word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import t
from bot.records import Record
from bot.render.ids import BlockId, CallbackId, InputId
from bot.render.kit import (
    ELLIPSIS,
    INPUT_LABEL,
    Block,
    code,
    code_lines,
    cut,
    plain,
    section,
)
from bot.render.modal import modal_view
from bot.render.state import CorrectionModalState

NONE = "none"
OPTION_TEXT = 75  # Slack's limit for an option's text
OPTIONS = 10
SEARCH_OPTIONS = 20  # a screenful; Slack takes up to 100
PLACEHOLDER = 150  # Slack's limit for a placeholder
MIN_QUERY = 2  # characters typed before Slack asks errkb for options
MIN_LINE = 12  # characters of the error line worth showing beside the id
SEPARATOR = " — "
#: The module path of an exception type ("frobnicate.errors." of "frobnicate.errors.FooError:").
_QUALIFIER = re.compile(r"^(?:[a-z_][\w$]*\.)+(?=[A-Z]\w*:)")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_BREAKS = frozenset(" ,;:/)，。：；、）")


def option_label(record_id: str, line: str, limit: int = OPTION_TEXT) -> str:
    """``record_id — line`` in at most ``limit`` characters: the line (its exception type
    without the module path) shortened at a word boundary with an ellipsis; the id alone
    (itself shortened so) when nothing else fits."""
    if len(record_id) >= limit - len(SEPARATOR) - MIN_LINE:
        return shorten(record_id, limit)
    line = _QUALIFIER.sub("", " ".join(line.split()))
    return (
        record_id + SEPARATOR + shorten(line, limit - len(record_id) - len(SEPARATOR))
        if line
        else record_id
    )


def shorten(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut after a whole word with an ellipsis: at a
    space, after punctuation, or between Chinese characters (words without spaces); mid-word
    only for a single word longer than two thirds of ``limit``."""
    if len(text) <= limit:
        return text
    end = limit - len(ELLIPSIS)
    at = next((i for i in range(end, limit // 3, -1) if _boundary(text, i)), end)
    # trailing separators go, a closing quote stays (it ends the quoted word before it)
    return text[:at].rstrip(" ,;:.-—–(“，：；（") + ELLIPSIS


def _boundary(text: str, i: int) -> bool:
    before = text[i - 1]
    after = text[i]
    return (
        after == " "
        or before in _BREAKS
        or (_CJK.match(before) is not None and _CJK.match(after) is not None)
    )


def first_line(record: Record, locale: str) -> str:
    """The first line of the record's signature in ``locale`` (its own when untranslated)."""
    lines = str(record.localized(locale).signature).strip().splitlines()
    return lines[0] if lines else ""


def record_option(record: Record, locale: str) -> dict[str, Any]:
    return {
        "text": plain(option_label(record.id, first_line(record, locale)), OPTION_TEXT),
        "value": record.id,
    }


def render_search_options(records: Sequence[Record], locale: str) -> list[dict[str, Any]]:
    """The options a search in the modal offers (Slack takes at most 100)."""
    return [record_option(r, locale) for r in records[:SEARCH_OPTIONS]]


def render_correct_modal(
    locale: str,
    state: CorrectionModalState,
    wrong: Record,
    sample: str,
    alternatives: Sequence[Record],
) -> dict[str, Any]:
    """The modal asking which known error it is (or none): the candidates, and a search."""
    options = [record_option(r, locale) for r in alternatives[: OPTIONS - 1]]
    options.append({"text": plain(t(locale, "correct.none"), OPTION_TEXT), "value": NONE})
    search = {
        "type": "external_select",
        "action_id": InputId.SEARCH,
        "placeholder": plain(t(locale, "correct.search.placeholder"), PLACEHOLDER),
        "min_query_length": MIN_QUERY,
    }
    blocks: list[Block] = [
        section(t(locale, "correct.intro", id=code(wrong.id))),
        code_lines([cut(sample, 300)]),
        {
            "type": "input",
            "block_id": BlockId.CORRECT_CHOICE,
            "optional": True,
            "label": plain(t(locale, "correct.choice"), INPUT_LABEL),
            "element": {"type": "radio_buttons", "action_id": InputId.VALUE, "options": options},
        },
        {
            "type": "input",
            "block_id": BlockId.CORRECT_SEARCH,
            "optional": True,
            "label": plain(t(locale, "correct.search"), INPUT_LABEL),
            "element": search,
            "hint": plain(t(locale, "correct.search.hint"), INPUT_LABEL),
        },
    ]
    return modal_view(
        locale, CallbackId.CORRECT_VIEW, "correct.title", "correct.submit", state.dump(), blocks
    )


def chosen(state_values: Mapping[str, Any]) -> str | None:
    """The option picked: a record found by search, else a candidate or :data:`NONE`; None
    when nothing was picked."""
    for block_id, input_id in (
        (BlockId.CORRECT_SEARCH, InputId.SEARCH),
        (BlockId.CORRECT_CHOICE, InputId.VALUE),
    ):
        block = state_values.get(block_id) or {}
        picked = (block.get(input_id) or {}).get("selected_option") or {}
        value = picked.get("value")
        if value:
            return str(value)
    return None


def correction_note(locale: str, user: str, record_id: str | None) -> str:
    """What the corrected answer says about it (user: a Slack mention errkb made)."""
    if record_id is None:
        return t(locale, "correct.done.none", user=user)
    return t(locale, "correct.done", user=user, id=code(record_id))


__all__ = [
    "NONE",
    "chosen",
    "correction_note",
    "option_label",
    "render_correct_modal",
    "render_search_options",
    "shorten",
]
