"""``/errkb`` subcommands: parse the text (pure), then one use case per subcommand.

:data:`SUBCOMMANDS` is the one table of them: the parser, ``/errkb help``,
the job handler and a meta-test all read it. Every use case takes the
command and, by name, the few things it uses (wired in
:mod:`bot.bootstrap`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from bot.channels import Change, ChannelCommand, Mode, parse_channel_command
from bot.clock import Clock
from bot.digest.jobs import collect, local_today
from bot.errors import RecordNotFound
from bot.i18n import AUTO, available_locales, t
from bot.knowledge import GraphSource, IndexSource
from bot.render import blocks, panels
from bot.render.channel import channel_status, render_channel, render_channel_usage
from bot.render.digest import render_digest
from bot.render.ids import ActionId
from bot.render.kit import Message
from bot.render.state import DigestItemState, RecordState
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.adapter.roles import maintainers
from bot.slack.queue.jobs import ActionJob, CommandJob, task
from bot.slack.usecases.answer_paste import loaded, render_reply
from bot.slack.web.metrics import Metrics
from bot.store import channel_repo, digest_repo, slack_repo
from bot.store.db import Store


def parse_command(text: str) -> tuple[str, str]:
    """``"search cuda oom"`` → ``("search", "cuda oom")``; anything else is a paste."""
    stripped = text.strip()
    if not stripped:
        return "help", ""
    head, _, rest = stripped.partition(" ")
    found = SUBCOMMANDS.get(head.lower())
    if found is not None and found.run is not None and "\n" not in head:
        return head.lower(), rest.strip()
    return "paste", text


def respond(slack: SlackGateway, cmd: CommandJob, payload: Message) -> None:
    """Answer ``cmd`` privately."""
    if cmd.response_url:
        slack.respond(cmd.response_url, blocks.ephemeral(payload))
    else:
        slack.post_ephemeral(
            channel=cmd.channel,
            user=cmd.user,
            text=payload["text"],
            blocks=payload["blocks"],
            thread_ts=cmd.thread_ts,
        )


def locale_of(store: Store, slack: SlackGateway, settings: Settings, cmd: CommandJob) -> str:
    slack_locale = slack.user_locale(cmd.user)
    with store.transaction() as session:
        return user_locale(
            session,
            settings,
            user=cmd.user,
            slack_locale=slack_locale,
            channel=cmd.channel,
            text=cmd.arg,
        )


def _first_word(arg: str) -> str:
    return arg.split()[0].strip("`") if arg.strip() else ""


def run_search(
    cmd: CommandJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    slack_locale = slack.user_locale(cmd.user)
    with store.transaction() as session:
        locale = user_locale(
            session,
            settings,
            user=cmd.user,
            slack_locale=slack_locale,
            channel=cmd.channel,
            text=cmd.arg,
        )
        if not cmd.arg:
            payload = panels.render_text(locale, "search.usage")
        else:
            reply_id = slack_repo.add_reply(
                session,
                kind="search",
                locale=locale,
                user_id=cmd.user,
                channel=cmd.channel,
                thread_ts=None,
                args={"words": cmd.arg[:500]},
                at=clock.now(),
            )
            reply = slack_repo.get_reply(session, reply_id=reply_id)
            assert reply is not None
            payload = render_reply(
                session, reply, index=index, graph=graph, today=clock.now().date(), ephemeral=True
            )
    respond(slack, cmd, payload)


@task(ActionId.SHOW_RECORD, ActionJob, state=RecordState)
@task(ActionId.DIGEST_OPEN, ActionJob, state=DigestItemState)
def show_clicked(
    click: ActionJob,
    state: RecordState | DigestItemState,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    """ "Show" on a search result, "Open" in the digest: the record, privately (from the Home
    tab, in errkb's Messages tab)."""
    show_record(
        record_id=state.record,
        user=click.user,
        channel=click.channel,
        response_url=click.response_url,
        store=store,
        slack=slack,
        settings=settings,
        index=index,
        graph=graph,
        clock=clock,
    )


def show_record(
    *,
    record_id: str,
    user: str,
    channel: str | None,
    response_url: str | None,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    """A record, privately, with "Share in channel"; without a channel (the Home tab), in
    errkb's Messages tab."""
    if loaded(index).record(record_id) is None:
        raise RecordNotFound(record_id)
    slack_locale = slack.user_locale(user)
    with store.transaction() as session:
        locale = user_locale(
            session, settings, user=user, slack_locale=slack_locale, channel=channel
        )
        reply_id = slack_repo.add_reply(
            session,
            kind="record",
            locale=locale,
            user_id=user,
            channel=channel or user,
            thread_ts=None,
            args={"record": record_id},
            at=clock.now(),
        )
        reply = slack_repo.get_reply(session, reply_id=reply_id)
        assert reply is not None
        payload = blocks.ephemeral(
            render_reply(
                session,
                reply,
                index=index,
                graph=graph,
                today=clock.now().date(),
                ephemeral=channel is not None,
            )
        )
    if response_url:
        slack.respond(response_url, payload)
    elif channel:
        slack.post_ephemeral(
            channel=channel, user=user, text=payload["text"], blocks=payload["blocks"]
        )
    else:
        slack.post_message(channel=user, text=payload["text"], blocks=payload["blocks"])


def run_show(
    cmd: CommandJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    record_id = _first_word(cmd.arg)
    if not record_id:
        respond(
            slack, cmd, panels.render_text(locale_of(store, slack, settings, cmd), "show.usage")
        )
        return
    show_record(
        record_id=record_id,
        user=cmd.user,
        channel=cmd.channel,
        response_url=cmd.response_url,
        store=store,
        slack=slack,
        settings=settings,
        index=index,
        graph=graph,
        clock=clock,
    )


def run_graph(
    cmd: CommandJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    graph: GraphSource,
    metrics: Metrics,
) -> None:
    locale = locale_of(store, slack, settings, cmd)
    record_id = _first_word(cmd.arg)
    if not record_id:
        respond(slack, cmd, panels.render_text(locale, "graph.usage"))
        return
    kg = graph.current()
    if kg is None or record_id not in kg:
        raise RecordNotFound(record_id)
    from graph.draw import neighbourhood
    from graph.layout import PICTURE_NODES
    from graph.picture import render_png

    png = render_png(neighbourhood(kg, record_id, locale=locale, max_nodes=PICTURE_NODES))
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", record_id)[:80]
    # privately, like every /errkb reply: the picture goes to the person's direct messages
    opened = slack.call("conversations.open", users=cmd.user)
    direct = str(((opened.data or {}).get("channel") or {}).get("id") or "") if opened.ok else ""
    sent = (
        slack.upload_png(
            channel=direct,
            content=png,
            filename=f"errkb-{name}.png",
            title=t(locale, "graph.title", id=record_id),
            comment=t(locale, "graph.comment", id=record_id),
        )
        if direct
        else None
    )
    if sent is None or not sent.ok:
        respond(slack, cmd, panels.render_text(locale, "graph.no_dm"))
        return
    respond(slack, cmd, panels.render_text(locale, "graph.sent", id=record_id))
    metrics.answer("graph")


def run_stale(
    cmd: CommandJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    graph: GraphSource,
    clock: Clock,
) -> None:
    """The digest's list on demand, for everyone or one domain, with its buttons."""
    locale = locale_of(store, slack, settings, cmd)
    domain = _first_word(cmd.arg) or None
    now = clock.now()
    with store.read() as session:
        known = digest_repo.domains(session)
        items = (
            []
            if domain and domain not in known
            else collect(
                session,
                settings=settings,
                graph=graph.current(),
                now=now,
                domains=[domain] if domain else None,
            )
        )
    if domain and domain not in known:
        respond(
            slack,
            cmd,
            panels.render_text(
                locale, "stale.unknown_domain", domain=domain, domains=", ".join(sorted(known))
            ),
        )
        return
    respond(
        slack,
        cmd,
        render_digest(
            locale, items, shown=settings.digest_size, unknown=[], today=local_today(settings, now)
        ),
    )


def run_unknown(
    cmd: CommandJob, *, store: Store, slack: SlackGateway, settings: Settings, clock: Clock
) -> None:
    locale = locale_of(store, slack, settings, cmd)
    with store.transaction() as session:
        unknown = slack_repo.unknown_errors(session, limit=panels.SHOWN_UNKNOWN)
    respond(slack, cmd, panels.render_unknown(locale, unknown, clock.now()))


def run_lang(
    cmd: CommandJob, *, store: Store, slack: SlackGateway, settings: Settings, clock: Clock
) -> None:
    choice = cmd.arg.strip().lower()
    if choice not in (*available_locales(), AUTO):
        respond(
            slack, cmd, panels.render_text(locale_of(store, slack, settings, cmd), "lang.usage")
        )
        return
    with store.transaction() as session:
        slack_repo.choose_locale(
            session, user_id=cmd.user, locale=None if choice == AUTO else choice, at=clock.now()
        )
    locale = locale_of(store, slack, settings, cmd)
    if choice == AUTO:
        respond(slack, cmd, panels.render_text(locale, "lang.auto"))
    else:
        respond(
            slack,
            cmd,
            panels.render_text(locale, "lang.set", language=t(locale, f"lang.name.{choice}")),
        )


def run_help(cmd: CommandJob, *, store: Store, slack: SlackGateway, settings: Settings) -> None:
    """The subcommands, and how errkb answers in the channel asked from."""
    locale = locale_of(store, slack, settings, cmd)
    status = None
    if not _direct(cmd.channel):
        with store.read() as session:
            status = channel_status(
                locale, channel_repo.channel_settings(session, channel=cmd.channel)
            )
    respond(slack, cmd, panels.render_help(locale, list(SUBCOMMANDS), status=status))


def _direct(channel: str) -> bool:
    """A direct message with errkb (its Messages tab): no channel to configure."""
    return channel.startswith("D")


def may_configure(user: str, channel: str, *, settings: Settings, slack: SlackGateway) -> bool:
    """Maintainers, and the person who created the channel, may change its settings."""
    return user in maintainers(settings, slack) or slack.channel_creator(channel) == user


def _change_channel(
    session: Session, asked: ChannelCommand, *, channel: str, by: str, at: datetime
) -> None:
    value = asked.value
    if asked.change is Change.MODE and isinstance(value, Mode):
        channel_repo.set_channel_mode(session, channel=channel, mode=value, by=by, at=at)
    elif asked.change is Change.THRESHOLD and (value is None or isinstance(value, float)):
        channel_repo.set_channel_threshold(session, channel=channel, threshold=value, by=by, at=at)
    elif asked.change is Change.LANG and (value is None or isinstance(value, str)):
        channel_repo.set_channel_locale(session, channel=channel, locale=value, by=by, at=at)
    elif asked.change is Change.ALERTS and isinstance(value, bool):
        channel_repo.set_channel_alerts(session, channel=channel, alerts=value, by=by, at=at)


def run_channel(
    cmd: CommandJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    clock: Clock,
    metrics: Metrics,
) -> None:
    """``/errkb channel``: show the channel's settings, or change one (maintainers, the channel's
    creator)."""
    asked = parse_channel_command(cmd.arg)
    if _direct(cmd.channel):
        respond(
            slack,
            cmd,
            panels.render_text(locale_of(store, slack, settings, cmd), "channel.not_a_channel"),
        )
        return
    if asked.change is Change.USAGE:
        respond(
            slack, cmd, render_channel_usage(locale_of(store, slack, settings, cmd), asked.problem)
        )
        return
    if asked.change is not Change.SHOW:
        if not may_configure(cmd.user, cmd.channel, settings=settings, slack=slack):
            respond(
                slack,
                cmd,
                panels.render_text(locale_of(store, slack, settings, cmd), "channel.refuse"),
            )
            metrics.decline("not_allowed")
            return
        with store.transaction() as session:
            _change_channel(session, asked, channel=cmd.channel, by=cmd.user, at=clock.now())
    locale = locale_of(store, slack, settings, cmd)  # the channel's language may just have changed
    with store.read() as session:
        now = channel_repo.channel_settings(session, channel=cmd.channel)
    respond(
        slack,
        cmd,
        render_channel(
            locale, now, note_key=None if asked.change is Change.SHOW else "channel.saved"
        ),
    )


@dataclass(frozen=True)
class Subcommand:
    """One ``/errkb`` subcommand; its help lines are the catalog keys ``help.cmd.<name>``
    and ``help.<name>``. ``run`` is None for ``paste``, which is answered like a paste."""

    name: str
    run: Callable[..., None] | None


#: Every subcommand, in the order ``/errkb help`` lists them.
SUBCOMMANDS: dict[str, Subcommand] = {
    s.name: s
    for s in (
        Subcommand("paste", None),
        Subcommand("search", run_search),
        Subcommand("show", run_show),
        Subcommand("graph", run_graph),
        Subcommand("stale", run_stale),
        Subcommand("unknown", run_unknown),
        Subcommand("lang", run_lang),
        Subcommand("channel", run_channel),
        Subcommand("help", run_help),
    )
}
