"""``/errkb`` subcommands: parse the text (pure), then one function per subcommand."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.digest.jobs import collect, local_today
from bot.errors import RecordNotFound
from bot.i18n import AUTO, available_locales, t
from bot.render import blocks, panels
from bot.render.digest import render_digest
from bot.render.kit import Message
from bot.slack.answer import Paste, answer_paste, render_stored
from bot.slack.feedback import show
from bot.slack.locale import user_locale
from bot.slack.world import World
from bot.store import slack_repo

SUBCOMMANDS = ("search", "show", "graph", "stale", "unknown", "lang", "help")


@dataclass(frozen=True)
class Command:
    name: str  # a subcommand, or "paste"
    arg: str
    user: str
    channel: str
    response_url: str | None


def parse_command(text: str) -> tuple[str, str]:
    """``"search cuda oom"`` → ``("search", "cuda oom")``; anything else is a paste."""
    stripped = text.strip()
    if not stripped:
        return "help", ""
    head, _, rest = stripped.partition(" ")
    if head.lower() in SUBCOMMANDS and "\n" not in head:
        return head.lower(), rest.strip()
    return "paste", text


def _respond(world: World, cmd: Command, payload: Message) -> None:
    if cmd.response_url:
        world.gateway.respond(cmd.response_url, blocks.ephemeral(payload))
    else:
        world.gateway.post_ephemeral(
            channel=cmd.channel, user=cmd.user, text=payload["text"], blocks=payload["blocks"]
        )


def _locale(world: World, cmd: Command) -> str:
    return user_locale(world, user=cmd.user, channel=cmd.channel, text=cmd.arg)


def run_paste(world: World, cmd: Command) -> None:
    answer_paste(world, Paste(text=cmd.arg, user=cmd.user, channel=cmd.channel, thread_ts=None, asked=True,
                              response_url=cmd.response_url))  # fmt: skip


def run_search(world: World, cmd: Command) -> None:
    locale = _locale(world, cmd)
    if not cmd.arg:
        _respond(world, cmd, panels.render_text(locale, "search.usage"))
        return
    with world.store.transaction() as session:
        reply_id = slack_repo.add_reply(session, kind="search", locale=locale, user_id=cmd.user, channel=cmd.channel,
                                        thread_ts=None, args={"words": cmd.arg[:500]}, at=world.clock.now())  # fmt: skip
        reply = slack_repo.get_reply(session, reply_id=reply_id)
    assert reply is not None
    _respond(world, cmd, render_stored(world, reply, ephemeral=True))


def run_show(world: World, cmd: Command) -> None:
    if not cmd.arg:
        _respond(world, cmd, panels.render_text(_locale(world, cmd), "show.usage"))
        return
    show(world, record_id=cmd.arg.split()[0].strip("`"), user=cmd.user, channel=cmd.channel,
         response_url=cmd.response_url)  # fmt: skip


def run_graph(world: World, cmd: Command) -> None:
    locale = _locale(world, cmd)
    record_id = cmd.arg.split()[0].strip("`") if cmd.arg else ""
    if not record_id:
        _respond(world, cmd, panels.render_text(locale, "graph.usage"))
        return
    kg = world.graph.current()
    if kg is None or record_id not in kg:
        raise RecordNotFound(record_id)
    from graph.draw import neighbourhood
    from graph.picture import render_png

    png = render_png(neighbourhood(kg, record_id, locale=locale))
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", record_id)[:80]
    sent = world.gateway.upload_png(channel=cmd.channel, content=png, filename=f"errkb-{name}.png",
                                    title=t(locale, "graph.title", id=record_id),
                                    comment=t(locale, "graph.comment", id=record_id))  # fmt: skip
    if not sent.ok:
        _respond(world, cmd, panels.render_text(locale, "share.not_in_channel"))
    world.metrics.answer("graph")


def run_stale(world: World, cmd: Command) -> None:
    """The digest's list on demand, for everyone or one domain, with its buttons."""
    locale = _locale(world, cmd)
    domain = cmd.arg.split()[0] if cmd.arg else None
    now = world.clock.now()
    with world.store.read() as session:
        items = collect(session, settings=world.settings, graph=world.graph.current(), now=now,
                        domains=[domain] if domain else None)  # fmt: skip
    _respond(world, cmd, render_digest(locale, items, shown=world.settings.digest_size, unknown=[],
                                       today=local_today(world.settings, now)))  # fmt: skip


def run_unknown(world: World, cmd: Command) -> None:
    locale = _locale(world, cmd)
    with world.store.read() as session:
        unknown = slack_repo.unknown_errors(session, limit=panels.SHOWN_UNKNOWN)
    _respond(world, cmd, panels.render_unknown(locale, unknown, world.clock.now()))


def run_lang(world: World, cmd: Command) -> None:
    choice = cmd.arg.strip().lower()
    if choice not in (*available_locales(), AUTO):
        _respond(world, cmd, panels.render_text(_locale(world, cmd), "lang.usage"))
        return
    with world.store.transaction() as session:
        slack_repo.choose_locale(session, user_id=cmd.user, locale=None if choice == AUTO else choice,
                                 at=world.clock.now())  # fmt: skip
    locale = _locale(world, cmd)
    if choice == AUTO:
        _respond(world, cmd, panels.render_text(locale, "lang.auto"))
    else:
        _respond(
            world,
            cmd,
            panels.render_text(locale, "lang.set", language=t(locale, f"lang.name.{choice}")),
        )


def run_help(world: World, cmd: Command) -> None:
    _respond(world, cmd, panels.render_help(_locale(world, cmd)))


RUNNERS: dict[str, Callable[[World, Command], None]] = {
    "paste": run_paste, "search": run_search, "show": run_show, "graph": run_graph, "stale": run_stale,
    "unknown": run_unknown, "lang": run_lang, "help": run_help,
}  # fmt: skip


def run_command(world: World, cmd: Command) -> None:
    RUNNERS[cmd.name](world, cmd)
