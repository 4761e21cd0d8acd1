"""The short pointer to an answer errkb already gave in a thread. Pure.

A follow-up in an answered thread (a question, the error pasted again, the
look-up shortcut on the answered message) gets this instead of the answer
again: the record it was answered with (its id and the person's error line),
the closest candidate when errkb was not sure, or the error errkb did not know;
a link to the answer, and a **Show** button that opens the record privately.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import t
from bot.render.ids import ActionId
from bot.render.kit import Message, button, code, context, cut, link, message, section
from bot.render.state import RecordState

LINE_CHARS = 200


def render_pointer(
    locale: str,
    *,
    records: Sequence[str],
    line: str | None,
    permalink: str | None,
    sure: bool = True,
) -> Message:
    """The pointer in ``locale``: ``records`` answered the thread (``sure``), or were the
    closest candidates to ``line`` (not ``sure``; none: errkb did not know it);
    ``permalink`` links the answer (None: "earlier in this thread")."""
    shown = code(cut(line, LINE_CHARS)) if line else ""
    if records:
        key = "thread.pointer" if sure else "thread.pointer.unsure"
        text = t(locale, key, id=code(records[0]), line=shown or code(records[0]))
        fallback = t(locale, "thread.pointer.fallback", id=records[0])
    else:
        text = t(locale, "thread.pointer.unknown", line=shown or "…")
        fallback = text
    where = (
        link(permalink, t(locale, "thread.pointer.link"))
        if permalink
        else t(locale, "thread.pointer.nolink")
    )
    show = None
    if records:
        show = button(
            t(locale, "button.show"),
            ActionId.SHOW_RECORD,
            value=RecordState(record=records[0]).dump(),
        )
    blocks = [section(f"{text} {where}", accessory=show)]
    if records:
        blocks.append(context(t(locale, "thread.pointer.more")))
    return message(fallback, blocks)


__all__ = ["render_pointer"]
