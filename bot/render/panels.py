"""Block Kit renderers for ``/errkb`` views: search, record, help, stale, unknown, notes. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from bot.i18n import t
from bot.records import Record
from bot.render.blocks import Reply, _share_tail, record_blocks
from bot.render.escape import escape_mrkdwn, escape_params, mention
from bot.render.ids import COMMAND, ActionId
from bot.render.kit import Block, Message, button, code, context, cut, esc, link, message, section
from bot.render.notes import ago
from bot.render.state import AddState, RecordState
from bot.report import GraphSections

SHOWN_RESULTS = 10
SHOWN_UNKNOWN = 15


class UnknownItem(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def example(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def last_seen(self) -> datetime: ...
    @property
    def permalinks(self) -> tuple[str, ...]: ...
    @property
    def source(self) -> str | None: ...  # the app whose alert carried it
    @property
    def fixed_in_thread(self) -> bool: ...  # a reply in one of its threads was marked as the fix


def render_text(locale: str, key: str, **params: object) -> Message:
    """A one-section message from a catalog key; text parameters are escaped."""
    text = t(locale, key, **escape_params(params))
    return message(text, [section(text)])


def unread_files_note(locale: str, names: Sequence[str]) -> str:
    """The line saying which attached files could not be read (their names escaped)."""
    shown = (escape_mrkdwn(name.replace("`", "'")) for name in names)
    return t(locale, "paste.file_unread", names=", ".join(f"`{name}`" for name in shown))


def with_note(payload: Message, note: str) -> Message:
    """``payload`` with ``note`` (mrkdwn made by errkb) as a line above it."""
    return message(payload["text"], [context(note), *payload["blocks"]])


def render_note(locale: str, key: str, *, user: str, **params: object) -> Message:
    """A one-line note naming a person (a Slack mention) who did something."""
    text = t(locale, key, user=mention(user), **escape_params(params))
    return message(text, [context(text)])


def render_record(record: Record, reply: Reply, graph: GraphSections) -> Message:
    """``/errkb show ID``: the record as an answer shows it, without vote buttons."""
    blocks = record_blocks(record, Reply(**{**reply.__dict__, "votes": False}), graph, {})
    first = str(record.localized(reply.locale).signature).strip().splitlines()[0]
    fallback = t(
        reply.locale, "answer.fallback", signature=f"“{esc(cut(first, 150))}”", id=esc(record.id)
    )
    return message(
        fallback, blocks, tail=_share_tail(reply), overflow=t(reply.locale, "answer.overflow")
    )


def render_search(words: str, results: Sequence[tuple[Record, float]], reply: Reply) -> Message:
    loc = reply.locale
    if not results:
        return render_text(loc, "search.none", words=cut(words, 200))
    blocks = [section(t(loc, "search.title", words=esc(cut(words, 200))))]
    for record, _score in results[:SHOWN_RESULTS]:
        signature, _ = record.text("signature", loc)
        show = button(
            t(loc, "button.show"), ActionId.SHOW_RECORD, value=RecordState(record=record.id).dump()
        )
        blocks.append(
            section(f"{code(record.id)}\n{esc(cut(str(signature), 600))}", accessory=show)
        )
    title = t(loc, "search.title", words=esc(cut(words, 200)))
    return message(title, blocks, tail=_share_tail(reply))


def render_help(locale: str, commands: Sequence[str], *, status: str | None = None) -> Message:
    """``/errkb help``: a line per subcommand (the names come from the command table), and
    ``status``, how errkb answers in the channel asked from (mrkdwn made by errkb)."""
    lines = [
        f"{code(t(locale, f'help.cmd.{name}', command=COMMAND))} — {t(locale, f'help.{name}')}"
        for name in commands
    ]
    blocks = [
        section(t(locale, "help.title")),
        section("\n".join(lines)),
        *([section(status)] if status else []),
        context(t(locale, "help.footer")),
    ]
    return message(t(locale, "help.title"), blocks)


def unknown_block(locale: str, item: UnknownItem, now: datetime) -> Block:
    """One unknown error with its "Add to knowledge base" button (``/errkb unknown``, the Home
    tab)."""
    examples = " ".join(link(url, str(n)) for n, url in enumerate(item.permalinks, start=1))
    text = t(
        locale,
        "unknown.item",
        count=item.count,
        example=code(cut(item.example, 900)),
        when=ago(locale, item.last_seen.date(), now.date()),
    )
    if examples:
        text += "\n" + t(locale, "unknown.examples", links=examples)
    notes = [t(locale, "unknown.source", app=esc(item.source))] if item.source else []
    if item.fixed_in_thread:
        notes.append(":white_check_mark: " + t(locale, "unknown.fix_found"))
    if notes:
        text += "\n" + " · ".join(notes)
    add = AddState(unknown=item.id, locale=locale).dump()
    return section(text, accessory=button(t(locale, "button.add"), ActionId.ADD_RECORD, value=add))


def render_unknown(locale: str, unknown: Sequence[UnknownItem], now: datetime) -> Message:
    """The most common unknown errors, each with an "Add to knowledge base" button."""
    if not unknown:
        return render_text(locale, "unknown.none")
    blocks = [section(t(locale, "unknown.title"))]
    blocks += [unknown_block(locale, item, now) for item in unknown[:SHOWN_UNKNOWN]]
    return message(t(locale, "unknown.title"), blocks)


def render_refusal(locale: str) -> Message:
    return render_text(locale, "refuse.not_maintainer")


def render_error(locale: str, key: str, **params: object) -> Message:
    """A warning from a catalog key; text parameters (a record id someone typed) are escaped."""
    text = t(locale, key, **escape_params(params))
    return message(text, [section(f":warning: {text}")])


__all__ = [
    "render_error",
    "render_help",
    "render_record",
    "render_refusal",
    "render_search",
    "render_text",
    "render_unknown",
]
