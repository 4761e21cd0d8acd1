"""errkb's App Home tab. Pure: a :class:`HomeView` in, a ``views.publish`` view out.

Everyone sees a search box (results shown in the tab), their language, their
recent answers and a line of knowledge-base figures. Maintainers also see the
unknown-error queue with "Add to knowledge base", the stale records with the
digest's own buttons (domain owners see their domains' stale records), recent
corrections, and how many records are stale and unknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from bot.digest.select import StaleItem
from bot.i18n import AUTO, available_locales, t
from bot.records import Record
from bot.render.digest import item_blocks
from bot.render.escape import channel_link
from bot.render.ids import ActionId, BlockId
from bot.render.kit import (
    BUTTON_TEXT,
    ELLIPSIS,
    Block,
    button,
    code,
    context,
    cut,
    divider,
    esc,
    fit,
    header,
    plain,
    section,
)
from bot.render.panels import UnknownItem, unknown_block
from bot.render.state import RecordState

HOME_BLOCKS = 100
SHOWN_RESULTS = 5
SHOWN_RECENT = 5
SHOWN_UNKNOWN = 5
SHOWN_STALE = 5
SHOWN_CORRECTIONS = 5
SEARCH_CHARS = 200
SIGNATURE_CHARS = 200


#: A recent correction as the Home tab shows it: its line (mrkdwn made by errkb, any text
#: from people already escaped) and its button (undo), if it has one.
CorrectionItem = tuple[str, Block | None]


#: Channels named in the Home tab's line about monitoring alerts.
SHOWN_ALERT_CHANNELS = 10


@dataclass(frozen=True)
class RecentAnswer:
    """An answer errkb gave the user: where, when, and the record it led with."""

    reply_id: int
    channel: str
    at: datetime
    record: Record
    closest: bool = False  # a "closest candidates" reply, not a confident answer


@dataclass(frozen=True)
class KbStats:
    records: int
    coverage: Mapping[str, float]  # locale → percent of texts that read in it
    stale: int | None = None  # maintainers only
    unknown: int | None = None


@dataclass(frozen=True)
class HomeView:
    locale: str
    today: date
    chosen: str | None = None  # the user's own language choice; None: automatic
    search: str | None = None  # what they searched for, if they did
    results: Sequence[tuple[Record, float]] = ()
    recent: Sequence[RecentAnswer] = ()
    stats: KbStats | None = None
    maintainer: bool = False
    unknown: Sequence[UnknownItem] = ()
    stale: Sequence[StaleItem] = ()  # for a maintainer all, for a domain owner their domains'
    stale_total: int = 0
    corrections: Sequence[CorrectionItem] = field(default_factory=tuple)  # newest first
    alert_channels: Sequence[
        str
    ] = ()  # where errkb answers other apps' monitoring alerts (maintainers)


def _signature(record: Record, locale: str) -> str:
    text = str(record.text("signature", locale)[0]).strip()
    return esc(cut(text.splitlines()[0] if text else record.id, SIGNATURE_CHARS))


def _show(locale: str, record: Record) -> Block:
    return button(
        t(locale, "button.show"), ActionId.SHOW_RECORD, value=RecordState(record=record.id).dump()
    )


def search_blocks(view: HomeView) -> list[Block]:
    """The search box, and what the last search found."""
    loc = view.locale
    element: Block = {
        "type": "plain_text_input",
        "action_id": ActionId.HOME_SEARCH,
        "placeholder": plain(t(loc, "home.search.placeholder"), 150),
        "dispatch_action_config": {"trigger_actions_on": ["on_enter_pressed"]},
    }
    if view.search:
        element["initial_value"] = cut(view.search, SEARCH_CHARS)
    box = {
        "type": "input",
        "block_id": BlockId.HOME_SEARCH,
        "dispatch_action": True,
        "optional": True,
        "label": plain(t(loc, "home.search.label"), 2000),
        "element": element,
    }
    if not view.search:
        return [box]
    words = esc(cut(view.search, SEARCH_CHARS))
    if not view.results:
        return [box, section(t(loc, "search.none", words=words))]
    found = [section(t(loc, "search.title", words=words))]
    for record, _score in view.results[:SHOWN_RESULTS]:
        found.append(
            section(f"{_signature(record, loc)}\n{code(record.id)}", accessory=_show(loc, record))
        )
    return [box, *found]


def language_block(view: HomeView) -> Block:
    """The user's language, and a select to change it (stored like ``/errkb lang``)."""
    loc = view.locale
    options = [{"text": plain(t(loc, "home.lang.auto"), BUTTON_TEXT), "value": AUTO}] + [
        {"text": plain(t(loc, f"lang.name.{code_}"), BUTTON_TEXT), "value": code_}
        for code_ in available_locales()
    ]
    current = view.chosen if view.chosen in available_locales() else AUTO
    chosen = next(o for o in options if o["value"] == current)
    select = {
        "type": "static_select",
        "action_id": ActionId.HOME_LANG,
        "options": options,
        "initial_option": chosen,
    }
    block = section(
        t(loc, "home.lang", language=t(loc, f"lang.name.{view.locale}")), accessory=select
    )
    block["block_id"] = BlockId.HOME_LANG
    return block


def recent_blocks(view: HomeView) -> list[Block]:
    """The user's latest answers, newest first, each with "Show"."""
    loc = view.locale
    if not view.recent:
        return [section(t(loc, "home.recent.title")), context(t(loc, "home.recent.none"))]
    out = [section(t(loc, "home.recent.title"))]
    for answer in view.recent[:SHOWN_RECENT]:
        where = (
            t(loc, "home.recent.direct")
            if answer.channel.startswith("D")
            else channel_link(answer.channel)
        )
        key = "home.recent.closest" if answer.closest else "home.recent.item"
        text = t(
            loc,
            key,
            signature=_signature(answer.record, loc),
            id=code(answer.record.id),
            where=where,
            day=answer.at.date().isoformat(),
        )
        out.append(section(text, accessory=_show(loc, answer.record)))
    return out


def stats_block(view: HomeView) -> Block | None:
    """Records, how much of them reads in each language; stale and unknown counts for
    maintainers."""
    stats = view.stats
    if stats is None:
        return None
    loc = view.locale
    coverage = " · ".join(
        t(loc, "home.stats.locale", language=t(loc, f"lang.name.{lang}"), percent=int(percent))
        for lang, percent in stats.coverage.items()
    )
    lines = [t(loc, "home.stats", records=stats.records, coverage=coverage)]
    if stats.stale is not None and stats.unknown is not None:
        lines.append(t(loc, "home.stats.maintainer", stale=stats.stale, unknown=stats.unknown))
    return context(*lines)


def corrections_blocks(locale: str, items: Sequence[CorrectionItem]) -> list[Block]:
    """Recent corrections people made to answers, for maintainers, each with its button.
    Nothing when there are none."""
    if not items:
        return []
    shown = [section(line, accessory=undo) for line, undo in items[:SHOWN_CORRECTIONS]]
    return [section(t(locale, "home.corrections.title")), *shown]


def stale_blocks(view: HomeView) -> list[Block]:
    """Stale records with the digest's buttons (and rights: a click is checked as in the digest)."""
    loc = view.locale
    if not view.stale:
        return (
            [section(t(loc, "home.stale.title", count=0)), context(t(loc, "digest.none"))]
            if view.maintainer
            else []
        )
    out = [section(t(loc, "home.stale.title", count=view.stale_total))]
    for rank, item in enumerate(view.stale[:SHOWN_STALE], start=1):
        out += item_blocks(loc, rank, item, view.today)
    if view.stale_total > SHOWN_STALE:
        out.append(context(t(loc, "home.stale.more", more=view.stale_total - SHOWN_STALE)))
    return out


def maintainer_blocks(view: HomeView, now: datetime) -> list[Block]:
    loc = view.locale
    if not view.maintainer:
        stale = stale_blocks(view)
        return [divider(), *stale] if stale else []
    unknown = [unknown_block(loc, item, now) for item in view.unknown[:SHOWN_UNKNOWN]]
    return [
        divider(),
        header(t(loc, "home.maintainers.title")),
        section(t(loc, "unknown.title")),
        *(unknown or [context(t(loc, "unknown.none"))]),
        *stale_blocks(view),
        *corrections_blocks(loc, view.corrections),
        alerts_block(view),
    ]


def alerts_block(view: HomeView) -> Block:
    """The channels that answer monitoring alerts (``/errkb channel alerts on``), or how to turn
    them on."""
    loc = view.locale
    if not view.alert_channels:
        return context(t(loc, "home.alerts.none"))
    names = ", ".join(channel_link(c) for c in view.alert_channels[:SHOWN_ALERT_CHANNELS])
    more = len(view.alert_channels) - SHOWN_ALERT_CHANNELS
    return context(t(loc, "home.alerts", channels=names) + (f" (+{more})" if more > 0 else ""))


def render_home(view: HomeView, now: datetime) -> dict[str, Any]:
    """The Home tab; ``now`` dates the unknown errors (``today`` the stale records)."""
    loc = view.locale
    top = [header(t(loc, "home.title")), context(t(loc, "home.intro"))]
    stats = stats_block(view)
    blocks = [
        *top,
        *search_blocks(view),
        language_block(view),
        divider(),
        *recent_blocks(view),
        *([stats] if stats else []),
        *maintainer_blocks(view, now),
    ]
    return {"type": "home", "blocks": fit(blocks, ELLIPSIS, HOME_BLOCKS)}


__all__ = [
    "CorrectionItem",
    "HomeView",
    "KbStats",
    "RecentAnswer",
    "corrections_blocks",
    "render_home",
]
