"""Answering a paste: triage it, decide, remember, render, send.

The deciding and rendering are pure (:func:`decide`, :func:`stored_view`);
:func:`answer_paste` is the edge around them, one job of the runner: it
reads the snippets (and, for a mention holding no error, the thread), asks
Slack for the user's locale and a permalink (either may fail: the answer
goes out anyway), writes everything it learned in one transaction, then
sends. An answer in a thread is sent at most once however often the job is
tried (:func:`deliver`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any, Literal

from sqlalchemy.orm import Session

from bot.errors import NotReady
from bot.knowledge import GraphSource, IndexSource
from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.records import Record
from bot.render import blocks, panels
from bot.render.kit import Message
from bot.render.state import AddState
from bot.settings import Settings
from bot.slack.clock import Clock
from bot.slack.gateway import Sent, SlackGateway
from bot.slack.jobs import PasteJob
from bot.slack.locale import user_locale
from bot.slack.metrics import Metrics
from bot.store import digest_repo, jobs_repo, slack_repo
from bot.store.db import Store
from bot.store.jobs_repo import Job
from bot.store.observed import observe_error
from bot.store.slack_repo import Reply
from graph.build import KnowledgeGraph

log = logging.getLogger(__name__)

Outcome = Literal["answer", "candidates", "nothing", "no_error", "silent"]
CANDIDATES = 3
#: A candidate below this score is no candidate: "closest" is shown only when one is plausible.
CANDIDATE_FLOOR = 0.005
NOTED_ERRORS = 3
THREAD_MESSAGES = 30
POSTING = "posting"
_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


# -- pure ------------------------------------------------------------------------


def clean_paste(text: str, limit: int) -> tuple[str, int | None]:
    """Mentions removed, cut to ``limit`` characters; returns the cut size when cut."""
    text = _MENTION.sub(" ", text)
    return (text, None) if len(text) <= limit else (text[:limit], limit)


def decide(triage: Triage, *, asked: bool) -> Outcome:
    """Answer when confident; when asked anyway, show plausible candidates or say nothing is known."""
    if triage.answered:
        return "answer"
    if not asked:
        return "silent"
    if not triage.errors and not triage.matches:
        return "no_error"
    plausible = [m for m in triage.matches if m.score >= CANDIDATE_FLOOR]
    return "candidates" if plausible else "nothing"


def reply_args(outcome: Outcome, triage: Triage, cut_at: int | None, add: AddState | None) -> dict[str, Any]:
    """What a reply needs to be rendered again later (votes, share, corrections)."""
    args: dict[str, Any] = {"cut_at": cut_at, "errors": [e.text[:300] for e in triage.errors[:5]]}
    if outcome == "answer":
        args["records"] = triage.answer_ids()
    elif outcome == "candidates":
        args["candidates"] = [[m.record_id, m.score] for m in triage.matches[:CANDIDATES]
                              if m.score >= CANDIDATE_FLOOR]  # fmt: skip
    if add is not None:
        args["add"] = add.model_dump(exclude_none=True)
    return args


def graph_view(kg: KnowledgeGraph | None, ids: Sequence[str], locale: str) -> blocks.Graph:
    if kg is None or not ids:
        return blocks.Graph()
    from graph.triage import triage_sections

    return blocks.Graph(triage_sections(kg, list(ids), locale=locale))


def stored_view(reply: Reply, *, kb: MatchIndex, kg: KnowledgeGraph | None, counts: blocks.Counts,
                today: date, ephemeral: bool, note: str | None = None,
                fresh: Mapping[str, Record] | None = None) -> Message:  # fmt: skip
    """A stored reply rendered from the knowledge base as it is now (``fresh``: records with
    their evidence read from the database, which the index may hold stale)."""

    def record(record_id: str) -> Record | None:
        return (fresh or {}).get(record_id) or kb.record(record_id)

    args = reply.args
    add = AddState(**args["add"]) if args.get("add") else None
    view = blocks.Reply(locale=reply.locale, today=today, reply_id=reply.id, ephemeral=ephemeral,
                        note=note, cut_at=args.get("cut_at"), add=add)  # fmt: skip
    if reply.kind == "answer":
        records = [r for r in map(record, args["records"]) if r is not None]
        if records:
            graph = graph_view(kg, [r.id for r in records], reply.locale)
            return blocks.render_answer(records, view, graph, counts)
    if reply.kind == "candidates":
        found = [(record(rid), score) for rid, score in args["candidates"]]
        candidates = [(r, s) for r, s in found if r is not None]
        if candidates:
            return blocks.render_candidates(candidates, view)
    if reply.kind == "record":
        shown = record(args["record"])
        if shown is not None:
            return panels.render_record(shown, view, graph_view(kg, [shown.id], reply.locale))
    if reply.kind == "search":
        hits = [(record(rid), score) for rid, score in kb.search(args["words"], limit=10)]
        return panels.render_search(args["words"], [(r, s) for r, s in hits if r is not None], view)
    if reply.kind == "nothing" and not args.get("errors"):
        return blocks.render_nothing(view)
    return blocks.render_nothing(view, args.get("errors", []))


# -- the edge --------------------------------------------------------------------


def loaded(index: IndexSource) -> MatchIndex:
    """The knowledge base, or :class:`NotReady` (the job is tried again once it is loaded)."""
    kb = index.current()
    if kb is None:
        raise NotReady("the knowledge base is still loading")
    return kb


def render_reply(session: Session, reply: Reply, *, index: IndexSource, graph: GraphSource,
                 today: date, ephemeral: bool, note: str | None = None) -> Message:  # fmt: skip
    """:func:`stored_view` with the evidence and vote counts read in ``session`` (evidence
    changes no index: it is read fresh each time)."""
    kb = loaded(index)
    ids = reply.args.get("records") or ([reply.args["record"]] if reply.args.get("record") else [])
    shown = [r for r in map(kb.record, ids) if r is not None]
    fresh = {r.id: r for r in slack_repo.with_evidence(session, records=shown)}
    counts = slack_repo.workaround_counts(session, record_ids=ids)
    return stored_view(reply, kb=kb, kg=graph.current(), counts=counts, today=today, ephemeral=ephemeral,
                       note=note, fresh=fresh)  # fmt: skip


def paste_text(paste: PasteJob, slack: SlackGateway, limit: int) -> str:
    """The message text plus the text of its attached snippets / .log / .txt files."""
    parts = [paste.text]
    budget = limit
    for file in paste.files[:3]:
        if file.is_text and file.url and budget > 0:
            body = slack.download_text(file.url, limit=budget)
            if body:
                parts.append(body)
                budget -= len(body)
    return "\n".join(p for p in parts if p)


def thread_error(paste: PasteJob, slack: SlackGateway, kb: MatchIndex, limit: int) -> str | None:
    """For a mention that holds no error itself: the most recent message of its thread
    that does (the root included), or None."""
    if not paste.thread_ts:
        return None
    messages = slack.thread_messages(channel=paste.channel, thread_ts=paste.thread_ts, limit=THREAD_MESSAGES)
    for message in reversed(messages):
        if message.get("bot_id") or message.get("ts") == paste.message_ts:
            continue
        text = clean_paste(str(message.get("text") or ""), limit)[0]
        if text.strip() and kb.triage(text).errors:
            return text
    return None


def triage_timed(kb: MatchIndex, text: str, metrics: Metrics) -> Triage:
    started = time.perf_counter()
    found = kb.triage(text)
    metrics.match_latency(time.perf_counter() - started)
    return found


def answer_paste(paste: PasteJob, *, job: Job, settings: Settings, store: Store, index: IndexSource,
                 graph: GraphSource, slack: SlackGateway, clock: Clock, metrics: Metrics) -> Outcome:  # fmt: skip
    """Triage ``paste`` and answer it (in its thread, or privately)."""
    kb = loaded(index)
    text, cut_at = clean_paste(paste_text(paste, slack, settings.paste_limit), settings.paste_limit)
    triage = triage_timed(kb, text, metrics)
    if paste.mention and not triage.errors:
        found = thread_error(paste, slack, kb, settings.paste_limit)
        if found is not None:
            text, triage = found, triage_timed(kb, found, metrics)
    outcome = decide(triage, asked=paste.asked)
    if outcome == "silent" and not triage.errors:
        metrics.decline("no_error")
        return outcome
    slack_locale = slack.user_locale(paste.user)
    permalink = None
    if outcome != "answer" and triage.errors and paste.message_ts and paste.thread_ts:
        permalink = slack.permalink(channel=paste.channel, ts=paste.message_ts)
    now = clock.now()
    with store.transaction() as session:
        unknown = _note_unknown(session, triage, permalink, now, paste) if outcome != "answer" else None
        if outcome == "silent":
            metrics.decline("not_confident")
            return outcome
        locale = user_locale(session, settings, user=paste.user, slack_locale=slack_locale,
                             channel=paste.channel, text=text)  # fmt: skip
        add = AddState(unknown=unknown, channel=paste.channel, thread=paste.thread_ts) if unknown else None
        reply = _remember(session, paste, outcome, reply_args(outcome, triage, cut_at, add), locale, now,
                          window=timedelta(hours=settings.observe_window_hours))  # fmt: skip
        public = paste.thread_ts is not None and outcome != "no_error"
        if public:  # from here on, an attempt may have posted: see deliver()
            jobs_repo.mark_stage(session, job_id=job.id, owner=job.owner, stage=POSTING)
        if outcome == "no_error":
            payload = blocks.render_nothing(blocks.Reply(locale=locale, today=now.date()))
        else:
            payload = render_reply(session, reply, index=index, graph=graph, today=now.date(),
                                   ephemeral=not public)  # fmt: skip
    sent = deliver(paste, payload, job=job, slack=slack, public=public)
    if sent.ok:
        metrics.answer(outcome)
    elif sent.error == "not_in_channel" and paste.response_url:
        slack.respond(paste.response_url, blocks.ephemeral(panels.render_text(locale, "share.not_in_channel")))
    else:
        log.info("could not answer in %s: %s", paste.channel, sent.error)
    return outcome


def _note_unknown(session: Session, triage: Triage, permalink: str | None, now: Any, paste: PasteJob) -> int | None:
    first = None
    for error in triage.errors[:NOTED_ERRORS]:
        found = slack_repo.note_unknown(session, template=error.template, sample=error.text, permalink=permalink,
                                        at=now, channel=paste.channel, thread_ts=paste.thread_ts, user_id=paste.user)  # fmt: skip
        first = first or found
    return first


def _remember(session: Session, paste: PasteJob, outcome: Outcome, args: dict[str, Any], locale: str,
              now: Any, *, window: timedelta) -> Reply:  # fmt: skip
    """Store the reply and what answering taught: matches (for the digest), sightings."""
    reply_id = slack_repo.add_reply(session, kind="nothing" if outcome == "no_error" else outcome,
                                    locale=locale, user_id=paste.user, channel=paste.channel,
                                    thread_ts=paste.thread_ts, args=args, at=now)  # fmt: skip
    records = args.get("records", [])
    digest_repo.note_matches(session, record_ids=records, at=now)
    if paste.thread_ts:
        for record_id in records:
            observe_error(session, scope=f"slack:{paste.channel}:{paste.thread_ts}", record_id=record_id,
                          seen_at=now, window=window)  # fmt: skip
    reply = slack_repo.get_reply(session, reply_id=reply_id)
    assert reply is not None
    return reply


def deliver(paste: PasteJob, payload: Message, *, job: Job, slack: SlackGateway, public: bool) -> Sent:
    """Send a reply: privately, or in the paste's thread exactly once.

    Before a thread post the job notes :data:`POSTING` (in the caller's
    transaction); a later attempt of a job that got that far first looks for
    its own message (by the job's key in the message metadata) and does not
    post again if Slack has it.
    """
    if not public:
        if paste.response_url:
            return slack.respond(paste.response_url, blocks.ephemeral(payload))
        return slack.post_ephemeral(channel=paste.channel, user=paste.user, text=payload["text"],
                                    blocks=payload["blocks"], thread_ts=paste.thread_ts)  # fmt: skip
    assert paste.thread_ts is not None
    if job.stage == POSTING:
        ts = slack.find_marked(channel=paste.channel, thread_ts=paste.thread_ts, marker=job.key)
        if ts is not None:
            return Sent(ok=True, ts=ts)
    return slack.post_message(channel=paste.channel, text=payload["text"], blocks=payload["blocks"],
                              thread_ts=paste.thread_ts, marker=job.key)  # fmt: skip


__all__ = ["Outcome", "answer_paste", "clean_paste", "decide", "deliver", "render_reply", "stored_view"]
