"""The follow-up in a thread whose error errkb did not know, once a record answers it. Pure."""

from __future__ import annotations

from bot.i18n import t
from bot.records import Record, localize, ranked_workarounds
from bot.render.escape import mention
from bot.render.ids import ActionId
from bot.render.kit import Message, actions, button, code, context, cut, esc, message, section
from bot.render.state import RecordState

SIGNATURE_CHARS = 300
TEXT_CHARS = 700


def render_known_now(
    locale: str, record: Record, *, asker: str, added_by: str, fixed_by: str | None = None
) -> Message:
    """ "errkb now knows this error": the record's error, cause and first thing to try, for
    the person who pasted it (mentioned), with "Show" for the whole record; ``fixed_by``
    is credited when their reply in the thread held the fix."""
    view = localize(record, locale)
    signature = str(view.signature).strip()
    first = signature.splitlines()[0] if signature else record.id
    head = t(
        locale,
        "followup.text",
        user=mention(asker),
        signature=esc(cut(first, SIGNATURE_CHARS)),
        id=code(record.id),
    )
    lines = [head]
    cause = str(view.root_cause).strip()
    if cause:
        lines.append(t(locale, "followup.cause", cause=esc(cut(cause, TEXT_CHARS))))
    order = ranked_workarounds(record)
    if order:
        lines.append(
            t(
                locale,
                "followup.fix",
                fix=esc(cut(str(view.workarounds[order[0]].action), TEXT_CHARS)),
            )
        )
    show = button(
        t(locale, "button.show"), ActionId.SHOW_RECORD, value=RecordState(record=record.id).dump()
    )
    credit = t(locale, "followup.by", user=mention(added_by))
    if fixed_by:
        credit += " " + t(locale, "fix.credit", person=mention(fixed_by))
    blocks = [section("\n".join(lines)), actions([show]), context(credit)]
    fallback = t(locale, "followup.fallback", signature=esc(cut(first, SIGNATURE_CHARS)))
    return message(fallback, blocks)


__all__ = ["render_known_now"]
