"""Block Kit building blocks as plain dicts, cut to Slack's limits. Pure.

Slack rejects a payload over any limit, so every builder truncates: text to
:data:`SECTION_TEXT` / :data:`CONTEXT_TEXT` / :data:`BUTTON_TEXT`, ids to
:data:`ID_CHARS`, a message to :data:`MESSAGE_BLOCKS` blocks (:func:`fit`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.render.escape import escape_mrkdwn

Block = dict[str, Any]
Message = dict[str, Any]  # {"text": fallback, "blocks": [...]} (+ response_type etc.)

MESSAGE_BLOCKS = 50
MODAL_BLOCKS = 100
SECTION_TEXT = 3_000
CONTEXT_TEXT = 2_000
CONTEXT_ELEMENTS = 10
HEADER_TEXT = 150
BUTTON_TEXT = 75
ID_CHARS = 255
VALUE_CHARS = 2_000
URL_CHARS = 3_000
ACTIONS_ELEMENTS = 25
FALLBACK_TEXT = 3_000
MODAL_TITLE = 24
MODAL_BUTTON = 24
INPUT_LABEL = 2_000
INITIAL_VALUE = 3_000
LABEL_CHARS = 75
CONFIRM_TEXT = 300
PREFORMATTED_TEXT = 3_000
ELLIPSIS = "…"
_CUT_ENTITY = re.compile(r"&[a-z]{0,3}$")

#: The renderers' short name for :func:`bot.render.escape.escape_mrkdwn`.
esc = escape_mrkdwn


def cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, with an ellipsis when shortened (never in the
    middle of an escaped ``&amp;``, ``&lt;`` or ``&gt;``)."""
    if len(text) <= limit:
        return text
    kept = text[: max(0, limit - 1)]
    return _CUT_ENTITY.sub("", kept) + ELLIPSIS


def code(text: str) -> str:
    """Inline code in mrkdwn, for errkb's own tokens (record ids, commands). mrkdwn has no way
    to hold a backtick inside code, so one in ``text`` is shown as ``ˋ``: text from a paste
    that must copy as written goes in :func:`rich_text` with the ``code`` style instead."""
    return "`" + esc(text).replace("`", "ˋ") + "`"


CODE = {"code": True}
BOLD = {"bold": True}


Part = tuple[str, dict[str, bool] | None]


def _rich_section(parts: Sequence[Part]) -> Block:
    elements = []
    for text, style in parts:
        if not text:
            continue
        element: dict[str, Any] = {"type": "text", "text": text}
        if style:
            element["style"] = dict(style)
        elements.append(element)
    return {"type": "rich_text_section", "elements": elements or [{"type": "text", "text": " "}]}


def rich_text(*parts: Part) -> Block:
    """One ``rich_text`` section of ``(text, style)`` parts. Rich text is never read as markup,
    so every character (a backtick, ``<``, ``*``) is shown, copied and found as written."""
    return {"type": "rich_text", "elements": [_rich_section(parts)]}


def code_lines(lines: Sequence[str]) -> Block:
    """Lines from a paste as code, one under another: every character (a backtick too) is
    shown, copied and found as the paste has it, which mrkdwn's inline code cannot do."""
    parts: list[Part] = []
    for line in lines:
        if parts:
            parts.append(("\n", None))
        parts.append((line, CODE))
    return rich_text(*parts)


def rich_list(items: Sequence[Sequence[Part]]) -> Block:
    """A bulleted ``rich_text`` list, each item of ``(text, style)`` parts (see
    :func:`rich_text`)."""
    return {
        "type": "rich_text",
        "elements": [
            {
                "type": "rich_text_list",
                "style": "bullet",
                "elements": [_rich_section(i) for i in items],
            }
        ],
    }


def link(url: str, label: str) -> str:
    safe = url.replace("&", "&amp;").replace("|", "%7C").replace("<", "%3C").replace(">", "%3E")
    return f"<{safe}|{esc(label)}>"


def mrkdwn(text: str, limit: int = SECTION_TEXT) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": cut(text, limit) or " "}


def plain(text: str, limit: int) -> dict[str, Any]:
    return {"type": "plain_text", "text": cut(text, limit) or " ", "emoji": True}


def section(text: str, *, accessory: Block | None = None, block_id: str | None = None) -> Block:
    block: Block = {"type": "section", "text": mrkdwn(text)}
    if accessory is not None:
        block["accessory"] = accessory
    if block_id is not None:
        block["block_id"] = cut(block_id, ID_CHARS)
    return block


def context(*texts: str) -> Block:
    elements = [mrkdwn(t, CONTEXT_TEXT) for t in texts if t][:CONTEXT_ELEMENTS]
    return {"type": "context", "elements": elements or [mrkdwn(" ", CONTEXT_TEXT)]}


def header(text: str) -> Block:
    return {"type": "header", "text": plain(text, HEADER_TEXT)}


def divider() -> Block:
    return {"type": "divider"}


def button(
    text: str,
    action_id: str,
    *,
    value: str | None = None,
    style: str | None = None,
    label: str | None = None,
    confirm: Block | None = None,
) -> Block:
    """A button; ``label`` is what a screen reader says (Slack's ``accessibility_label``)."""
    element: Block = {
        "type": "button",
        "text": plain(text, BUTTON_TEXT),
        "action_id": cut(action_id, ID_CHARS),
    }
    if label:
        element["accessibility_label"] = cut(label, LABEL_CHARS)
    if confirm is not None:
        element["confirm"] = confirm
    if value is not None:
        if len(value) > VALUE_CHARS:
            raise ValueError(
                f"button value of {len(value)} characters is over Slack's {VALUE_CHARS}"
            )
        element["value"] = value
    if style in ("primary", "danger"):
        element["style"] = style
    return element


def confirmation(title: str, text: str, yes: str, no: str) -> Block:
    """The "are you sure?" dialog of a button (plain text throughout)."""
    return {
        "title": plain(title, MODAL_TITLE),
        "text": plain(text, CONFIRM_TEXT),
        "confirm": plain(yes, MODAL_BUTTON),
        "deny": plain(no, MODAL_BUTTON),
        "style": "danger",
    }


def preformatted(text: str, limit: int = PREFORMATTED_TEXT) -> Block:
    """A copyable code block (``rich_text_preformatted``): commands and config, as written.
    Rich text is never read as markup, so nothing in it needs escaping."""
    body = cut(text.strip("\n"), limit) or " "
    return {
        "type": "rich_text",
        "elements": [
            {"type": "rich_text_preformatted", "elements": [{"type": "text", "text": body}]}
        ],
    }


def actions(elements: Sequence[Block], *, block_id: str | None = None) -> Block:
    block: Block = {"type": "actions", "elements": list(elements)[:ACTIONS_ELEMENTS]}
    if block_id is not None:
        block["block_id"] = cut(block_id, ID_CHARS)
    return block


def fit(blocks: list[Block], overflow: str, limit: int = MESSAGE_BLOCKS) -> list[Block]:
    """At most ``limit`` blocks; when cut, the last says ``overflow``. Trailing blocks
    that must stay (the reply's own buttons) should be appended after fitting."""
    if len(blocks) <= limit:
        return blocks
    return [*blocks[: limit - 1], context(overflow)]


def message(
    fallback: str, blocks: list[Block], *, tail: Sequence[Block] = (), overflow: str = ELLIPSIS
) -> Message:
    """A message payload: ``blocks`` fitted so that ``tail`` (buttons) always fits after them."""
    body = fit(blocks, overflow, MESSAGE_BLOCKS - len(tail))
    return {"text": cut(fallback, FALLBACK_TEXT) or " ", "blocks": [*body, *tail]}
