"""Answering a paste: triage it, decide, remember, render, send.

The deciding is pure (:func:`decide`); this module is the edge around it:
the live index and graph, the database (de-duplication, replies, unknown
errors, sightings), the gateway. :func:`render_stored` re-renders any stored
reply, so votes update it in place and "Share in channel" posts it.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.records import Record
from bot.render import blocks, panels
from bot.render.kit import Message
from bot.render.state import AddState
from bot.slack.clock import today
from bot.slack.locale import user_locale
from bot.slack.world import World
from bot.store import digest_repo, slack_repo
from bot.store.observed import observe_error
from bot.store.slack_repo import Reply

log = logging.getLogger(__name__)

Outcome = Literal["answer", "candidates", "nothing", "no_error", "silent"]
CANDIDATES = 3
NOTED_ERRORS = 3
_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


@dataclass(frozen=True)
class Paste:
    """A paste to answer and where the answer goes."""

    text: str
    user: str
    channel: str
    thread_ts: str | None  # the thread to answer in; None: answer privately
    message_ts: str | None = None  # the pasted message (for permalinks)
    asked: bool = False  # mentioned, a shortcut or a command: answer even when unsure
    response_url: str | None = None


# -- pure ------------------------------------------------------------------------


def clean_paste(text: str, limit: int) -> tuple[str, int | None]:
    """Mentions removed, cut to ``limit`` characters; returns the cut size when cut."""
    text = _MENTION.sub(" ", text)
    return (text, None) if len(text) <= limit else (text[:limit], limit)


def decide(triage: Triage, *, asked: bool) -> Outcome:
    """Answer when confident; when asked anyway, show candidates or say nothing is known."""
    if triage.answered:
        return "answer"
    if not asked:
        return "silent"
    if not triage.errors and not triage.matches:
        return "no_error"
    return "candidates" if triage.matches else "nothing"


# -- the edge --------------------------------------------------------------------


def triage_timed(world: World, index: MatchIndex, text: str) -> Triage:
    started = time.perf_counter()
    found = index.triage(text)
    world.metrics.match_latency(time.perf_counter() - started)
    return found


def _records(index: MatchIndex, ids: Sequence[str]) -> list[Record]:
    return [r for r in (index.record(i) for i in ids) if r is not None]


def _graph(world: World, ids: Sequence[str], locale: str) -> blocks.Graph:
    kg = world.graph.current()
    if kg is None or not ids:
        return blocks.Graph()
    from graph.triage import triage_sections

    return blocks.Graph(triage_sections(kg, list(ids), locale=locale))


def render_stored(
    world: World,
    reply: Reply,
    *,
    ephemeral: bool,
    note: str | None = None,
    counts: blocks.Counts | None = None,
) -> Message:
    """Render a stored reply again from the live knowledge base (``counts``: votes, when already read)."""
    index = world.index.current()
    if index is None:
        return panels.render_text(reply.locale, "kb.loading")
    args = reply.args
    add = AddState(**args["add"]) if args.get("add") else None
    view = blocks.Reply(locale=reply.locale, today=today(world.clock), reply_id=reply.id, ephemeral=ephemeral,
                        note=note, cut_at=args.get("cut_at"), add=add)  # fmt: skip
    if reply.kind == "answer":
        records = _records(index, args["records"])
        if records:
            with world.store.read() as session:  # evidence is read fresh, never indexed
                records = slack_repo.with_evidence(session, records=records)
                if counts is None:
                    counts = slack_repo.workaround_counts(
                        session, record_ids=[r.id for r in records]
                    )
            return blocks.render_answer(
                records, view, _graph(world, [r.id for r in records], reply.locale), counts
            )
    if reply.kind == "candidates":
        found = [(index.record(rid), score) for rid, score in args["candidates"]]
        candidates = [(r, s) for r, s in found if r is not None]
        if candidates:
            return blocks.render_candidates(candidates, view)
    if reply.kind == "record":
        record = index.record(args["record"])
        if record is not None:
            with world.store.read() as session:
                [record] = slack_repo.with_evidence(session, records=[record])
            return panels.render_record(record, view, _graph(world, [record.id], reply.locale))
    if reply.kind == "search":
        hits = [(index.record(rid), score) for rid, score in index.search(args["words"], limit=10)]
        return panels.render_search(args["words"], [(r, s) for r, s in hits if r is not None], view)
    return blocks.render_nothing(view, args.get("errors", []))


def _note_unknown(world: World, paste: Paste, triage: Triage) -> int | None:
    if not triage.errors:
        return None
    permalink = None
    if paste.message_ts and paste.thread_ts:
        permalink = world.gateway.permalink(channel=paste.channel, ts=paste.message_ts)
    first = None
    with world.store.transaction() as session:
        for error in triage.errors[:NOTED_ERRORS]:
            found = slack_repo.note_unknown(session, template=error.template, sample=error.text,
                                            permalink=permalink, at=world.clock.now())  # fmt: skip
            first = first or found
    return first


def _args(
    outcome: Outcome, triage: Triage, cut_at: int | None, add: AddState | None
) -> dict[str, Any]:
    args: dict[str, Any] = {"cut_at": cut_at, "errors": [e.text[:300] for e in triage.errors[:5]]}
    if outcome == "answer":
        args["records"] = triage.answer_ids()
    elif outcome == "candidates":
        args["candidates"] = [[m.record_id, m.score] for m in triage.matches[:CANDIDATES]]
    if add is not None:
        args["add"] = add.model_dump(exclude_none=True)
    return args


def _claim(world: World, claim: tuple[str, str | None]) -> bool:
    with world.store.transaction() as session:
        return slack_repo.claim_event(session, event_id=claim[0], client_msg_id=claim[1], kind="paste",
                                      at=world.clock.now())  # fmt: skip


def _remember(world: World, paste: Paste, outcome: Outcome, args: dict[str, Any], locale: str,
              claim: tuple[str, str | None] | None) -> tuple[Reply, blocks.Counts] | None:  # fmt: skip
    """One transaction: claim the delivery (None when already claimed), store the reply,
    note the sightings, read the vote counts."""
    now = world.clock.now()
    with world.store.transaction() as session:
        if claim is not None and not slack_repo.claim_event(
            session, event_id=claim[0], client_msg_id=claim[1], kind="paste", at=now
        ):
            return None
        reply_id = slack_repo.add_reply(
            session, kind="nothing" if outcome == "no_error" else outcome, locale=locale, user_id=paste.user,
            channel=paste.channel, thread_ts=paste.thread_ts, args=args, at=now,
        )  # fmt: skip
        records = args.get("records", [])
        digest_repo.note_matches(session, record_ids=records, at=now)
        if paste.thread_ts:
            for record_id in records:
                observe_error(session, scope=f"slack:{paste.channel}:{paste.thread_ts}", record_id=record_id,
                              seen_at=now, window=timedelta(hours=world.settings.observe_window_hours))  # fmt: skip
        reply = slack_repo.get_reply(session, reply_id=reply_id)
        counts = slack_repo.workaround_counts(session, record_ids=records)
    assert reply is not None
    return reply, counts


def answer_paste(
    world: World, paste: Paste, *, claim: tuple[str, str | None] | None = None
) -> Outcome:
    """Triage ``paste`` and answer it (in its thread, or privately); ``claim`` is the
    (event id, client message id) that must be new for anything to be said."""
    text, cut_at = clean_paste(paste.text, world.settings.paste_limit)
    index = world.index.current()
    if index is None:
        world.metrics.decline("loading")
        if paste.asked:
            locale = user_locale(world, user=paste.user, channel=paste.channel, text=text)
            _send(world, paste, panels.render_text(locale, "kb.loading"), locale)
        return "silent"
    triage = triage_timed(world, index, text)
    outcome = decide(triage, asked=paste.asked)
    if outcome == "silent" and not triage.errors:
        world.metrics.decline("no_error")
        return outcome
    add = None
    if outcome != "answer":  # claim first: an unknown error is counted once per delivery
        if claim is not None and not _claim(world, claim):
            world.metrics.decline("duplicate")
            return "silent"
        claim = None
        unknown = _note_unknown(world, paste, triage)
        if outcome == "silent":
            world.metrics.decline("not_confident")
            return outcome
        add = (
            AddState(unknown=unknown, channel=paste.channel, thread=paste.thread_ts)
            if unknown
            else None
        )
    locale = user_locale(world, user=paste.user, channel=paste.channel, text=text)
    remembered = _remember(
        world, paste, outcome, _args(outcome, triage, cut_at, add), locale, claim
    )
    if remembered is None:
        world.metrics.decline("duplicate")
        return "silent"
    reply, counts = remembered
    if outcome == "no_error":
        payload = blocks.render_nothing(blocks.Reply(locale=locale, today=today(world.clock)))
    else:
        payload = render_stored(world, reply, ephemeral=paste.thread_ts is None, counts=counts)
    _send(world, paste, payload, locale)
    world.metrics.answer(outcome)
    return outcome


def _send(world: World, paste: Paste, payload: Message, locale: str) -> None:
    if paste.thread_ts is None and paste.response_url:
        world.gateway.respond(paste.response_url, blocks.ephemeral(payload))
        return
    if paste.thread_ts is None:
        world.gateway.post_ephemeral(channel=paste.channel, user=paste.user, text=payload["text"],
                                     blocks=payload["blocks"])  # fmt: skip
        return
    sent = world.gateway.post_message(channel=paste.channel, text=payload["text"], blocks=payload["blocks"],
                                      thread_ts=paste.thread_ts)  # fmt: skip
    if not sent.ok and paste.response_url:
        world.gateway.respond(
            paste.response_url, blocks.ephemeral(panels.render_text(locale, "share.not_in_channel"))
        )
    elif not sent.ok:
        log.info("could not answer in %s: %s", paste.channel, sent.error)


__all__ = ["Paste", "answer_paste", "clean_paste", "decide", "render_stored"]
