"""The "Not this error" modal, and reading its choice back. Pure.

It offers the other records the error could be (what the matcher ranked
next for that error) and "none of these"; the choice is stored by the
error's template, so the next paste of the same error, in any channel, is
answered with it (or declined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import t
from bot.records import Record
from bot.render.ids import BlockId, CallbackId, InputId
from bot.render.kit import Block, code, context, cut, plain, section
from bot.render.modal import modal_view
from bot.render.state import CorrectionModalState

NONE = "none"
OPTION_TEXT = 75  # Slack's limit for an option's text
OPTIONS = 10


def render_correct_modal(locale: str, state: CorrectionModalState, wrong: Record, sample: str,
                         alternatives: Sequence[Record]) -> dict[str, Any]:  # fmt: skip
    """The modal asking which known error it is (or none)."""
    options = [
        {"text": plain(f"{r.id} — {r.localized(locale).signature}", OPTION_TEXT), "value": r.id}
        for r in alternatives[: OPTIONS - 1]
    ]
    options.append({"text": plain(t(locale, "correct.none"), OPTION_TEXT), "value": NONE})
    blocks: list[Block] = [
        section(t(locale, "correct.intro", id=code(wrong.id))),
        context(code(cut(sample, 300))),
        {"type": "input", "block_id": BlockId.CORRECT_CHOICE, "label": plain(t(locale, "correct.choice"), 2_000),
         "element": {"type": "radio_buttons", "action_id": InputId.VALUE, "options": options}},
    ]  # fmt: skip
    return modal_view(locale, CallbackId.CORRECT_VIEW, "correct.title", "correct.submit", state.dump(), blocks)


def chosen(state_values: Mapping[str, Any]) -> str | None:
    """The option picked: a record id, :data:`NONE`, or None when nothing was picked."""
    block = state_values.get(BlockId.CORRECT_CHOICE) or {}
    picked = (block.get(InputId.VALUE) or {}).get("selected_option") or {}
    value = picked.get("value")
    return str(value) if value else None


def correction_note(locale: str, user: str, record_id: str | None) -> str:
    """What the corrected answer says about it (user: a Slack mention errkb made)."""
    if record_id is None:
        return t(locale, "correct.done.none", user=user)
    return t(locale, "correct.done", user=user, id=code(record_id))


__all__ = ["NONE", "chosen", "correction_note", "render_correct_modal"]
