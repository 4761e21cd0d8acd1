"""Answering a paste in Slack: the edge around :mod:`bot.answer` and :mod:`bot.render`.

:func:`answer_paste` is one job of the runner. It reads the snippets (and,
for a mention holding no error, the thread), reads in one unit what the
database knows before triage (:func:`read_context`: errkb's answers in the
thread, what people taught errkb about these errors, the channel's settings,
the languages people chose), triages, asks Slack for the user's locale and a
permalink (either may fail: the answer goes out anyway), writes what it
learned in one transaction, then sends. An answer in a thread is sent at
most once however often the job is tried (:func:`deliver`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from bot.answer import Outcome, decide, read_paste, reply_args
from bot.channels import ChannelSettings
from bot.clock import Clock
from bot.conversation import Turn
from bot.errors import NotReady
from bot.fit.duplicates import prefer_general
from bot.knowledge import GraphSource, IndexSource
from bot.match.excerpt import Excerpt
from bot.match.extract import Extraction, extract
from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.match.reader import prefer_reader
from bot.records.clean import clean_text
from bot.render import blocks, panels
from bot.render.kit import Message
from bot.render.state import AddState
from bot.render.stored import StoredReply, stored_view
from bot.settings import Settings
from bot.slack.adapter.gateway import Sent, SlackGateway
from bot.slack.adapter.locale import reader_locale
from bot.slack.queue.jobs import JobKind, PasteJob, task
from bot.slack.usecases import assistant
from bot.slack.usecases.thread import answer_turn
from bot.slack.web.metrics import Metrics
from bot.store import channel_repo, corrections_repo, digest_repo, jobs_repo, slack_repo
from bot.store.db import Store
from bot.store.jobs_repo import Job
from bot.store.observed import observe_error
from bot.store.slack_repo import Reply

if TYPE_CHECKING:
    from bot.store.loading import Rows

log = logging.getLogger(__name__)

NOTED_ERRORS = 3
#: A snippet is downloaded up to this many characters, then read where its errors are
#: (``ERRKB_PASTE_LIMIT``): a log's error is often on its last lines.
SNIPPET_CHARS = 8_000_000
THREAD_MESSAGES = 30
POSTING = "posting"


# -- the edge --------------------------------------------------------------------


def loaded(index: IndexSource) -> MatchIndex:
    """The knowledge base, or :class:`NotReady` (the job is tried again once it is loaded)."""
    kb = index.current()
    if kb is None:
        raise NotReady("the knowledge base is still loading")
    return kb


def render_reply(
    session: Rows,
    reply: StoredReply,
    *,
    index: IndexSource,
    graph: GraphSource,
    today: date,
    ephemeral: bool,
    note: str | None = None,
) -> Message:
    """:func:`~bot.render.stored.stored_view` with the evidence and vote counts read in
    ``session`` (evidence changes no index: it is read fresh each time)."""
    kb = loaded(index)
    ids = reply.args.get("records") or ([reply.args["record"]] if reply.args.get("record") else [])
    shown = [r for r in map(kb.record, ids) if r is not None]
    fresh = {r.id: r for r in slack_repo.with_evidence(session, records=shown)}
    counts = slack_repo.workaround_counts(session, record_ids=ids)
    return stored_view(
        reply,
        kb=kb,
        kg=graph.current(),
        counts=counts,
        today=today,
        ephemeral=ephemeral,
        note=note,
        fresh=fresh,
    )


def paste_text(
    paste: PasteJob, slack: SlackGateway, limit: int = SNIPPET_CHARS
) -> tuple[str, list[str]]:
    """The message text plus the text of its attached snippets / .log / .txt files, at
    most ``limit`` characters in all, and the names of the files that could not be read."""
    parts = [paste.text]
    unread = []
    budget = limit
    for file in paste.files[:3]:
        if file.is_text and file.url and budget > 0:
            body = slack.download_text(file.url, limit=budget)
            if body is None:
                unread.append(file.name or file.id)
            elif body := clean_text(body):
                parts.append(body)
                budget -= len(body)
    return "\n".join(p for p in parts if p), unread


def thread_error(
    paste: PasteJob, slack: SlackGateway, limit: int
) -> tuple[Excerpt, Extraction] | None:
    """For a mention that holds no error itself: the most recent message of its thread
    that does (the root included), as read and its errors, or None."""
    if not paste.thread_ts:
        return None
    messages = slack.thread_messages(
        channel=paste.channel, thread_ts=paste.thread_ts, limit=THREAD_MESSAGES
    )
    for message in reversed(messages):
        if message.get("bot_id") or message.get("ts") == paste.message_ts:
            continue
        read = read_paste(str(message.get("text") or ""), limit)
        if not read.text.strip():
            continue
        extraction = extract(read)
        if extraction.errors:
            return read, extraction
    return None


def triage_timed(
    kb: MatchIndex,
    text: str | Excerpt | Extraction,
    metrics: Metrics,
    learned: dict[str, str | None] | None = None,
) -> Triage:
    started = time.perf_counter()
    found = kb.triage(text, learned=learned) if learned else kb.triage(text)
    metrics.match_latency(time.perf_counter() - started)
    return found


@dataclass(frozen=True)
class PasteContext:
    """What the database says about a paste before it is triaged, from one snapshot."""

    #: errkb's posted replies in the paste's thread, newest first (none outside a thread).
    answers: list[Reply]
    #: The paste's errors, read once for what was learnt about them and for its triage.
    extraction: Extraction
    #: What people taught errkb about the paste's errors: template → record, or None.
    learned: dict[str, str | None]
    #: The channel's settings.
    channel: ChannelSettings
    #: The language the asker (and the pasted message's author) chose, for those who did.
    chosen: dict[str, str | None]


def read_context(store: Store, text: str | Excerpt, paste: PasteJob) -> PasteContext:
    """Everything a paste reads before it is triaged, in one read unit of plain Core
    selects: each unit of work and each ORM round costs more than the indexed query in it,
    and every paste asks all of these."""
    extraction = extract(text)  # before the read unit: it needs no database
    with store.read_rows() as rows:
        answers = (
            slack_repo.thread_answers(rows, channel=paste.channel, thread_ts=paste.thread_ts)
            if paste.thread_ts
            else []
        )
        people = {paste.user, *([paste.author] if paste.author else [])}
        return PasteContext(
            answers=answers,
            extraction=extraction,
            learned=_learned(rows, extraction),
            channel=channel_repo.channel_settings(rows, channel=paste.channel),
            chosen=slack_repo.chosen_locales(rows, user_ids=people),
        )


def read_learned(store: Store, extraction: Extraction) -> dict[str, str | None]:
    """What people taught errkb about the errors of a paste alone (the channel is known)."""
    with store.read_rows() as rows:
        return _learned(rows, extraction)


def _learned(session: Rows, extraction: Extraction) -> dict[str, str | None]:
    templates = [e.template for e in extraction.errors]
    return corrections_repo.learned(session, templates=templates) if templates else {}


@task(JobKind.PASTE, PasteJob)
def answer_paste(
    paste: PasteJob,
    *,
    job: Job,
    settings: Settings,
    store: Store,
    index: IndexSource,
    graph: GraphSource,
    slack: SlackGateway,
    clock: Clock,
    metrics: Metrics,
) -> Outcome | Turn:
    """Triage ``paste`` and answer it (in its thread, or privately); in a thread errkb
    answered already, a mention without a new error is a turn of conversation instead
    (:mod:`bot.slack.usecases.thread`)."""
    kb = loaded(index)
    pasted, unread = paste_text(paste, slack)
    read = read_paste(pasted, settings.paste_limit)
    context = read_context(store, read, paste)
    turn = answer_turn(
        paste,
        read.text,
        context.answers,
        job=job.key,
        settings=settings,
        store=store,
        slack=slack,
        metrics=metrics,
    )
    if turn is not None:
        return turn
    here = context.channel
    if paste.source is not None and not here.alerts:
        metrics.decline("alerts_off")  # another app's alert, in a channel that did not ask for them
        return "silent"
    if paste.assistant and paste.thread_ts:
        assistant.working(slack, paste, assistant.status_locale(store, settings, slack, paste))
    triage = triage_timed(kb, context.extraction, metrics, context.learned)
    if paste.mention and not triage.errors:
        found = thread_error(paste, slack, settings.paste_limit)
        if found is not None:
            read, extraction = found
            triage = triage_timed(kb, extraction, metrics, read_learned(store, extraction))
    text = read.text
    outcome = decide(triage, asked=paste.asked, channel=here)
    if outcome == "silent" and not triage.errors:
        metrics.decline("no_error")
        return outcome
    public = (
        paste.thread_ts is not None
        and outcome not in ("no_error", "silent")
        and here.may_post(asked=paste.asked)
    )
    reader = (
        paste.author or paste.user if public else paste.user
    )  # a public answer is for the thread
    slack_locale = slack.user_locale(reader) if reader else None  # an alert has no person to ask
    # an error errkb cannot answer is queued for maintainers, whatever the channel lets it
    # post, with a link to where it was pasted (asked of Slack only for such an error)
    known = here.answered(triage, asked=paste.asked)
    permalink = None
    if outcome != "answer" and not known and triage.errors and paste.message_ts and paste.thread_ts:
        permalink = slack.permalink(channel=paste.channel, ts=paste.message_ts)
    now = clock.now()
    with store.write_rows() as session:  # plain statements: no ORM session
        unknown = None if known else _note_unknown(session, triage, permalink, now, paste)
        if outcome == "silent":
            metrics.decline("not_confident" if not known else "channel_quiet")
            return outcome
        locale = reader_locale(
            settings,
            chosen=context.chosen.get(reader),
            slack_locale=slack_locale,
            channel=here,
            text=text,
        )
        triage = prefer_reader(prefer_general(triage, read.text, kb.record), locale, kb.record)
        add = (
            AddState(unknown=unknown, channel=paste.channel, thread=paste.thread_ts)
            if unknown
            else None
        )
        args = reply_args(
            outcome,
            triage,
            read,
            add.model_dump(exclude_none=True) if add else None,
            asked=paste.asked,
            channel=here,
        )
        args["job"] = job.key  # a retry of this job is not a later turn in its thread
        reply = _remember(
            session,
            paste,
            outcome,
            args,
            locale,
            now,
            window=timedelta(hours=settings.observe_window_hours),
        )
        if public:  # from here on, an attempt may have posted: see deliver()
            jobs_repo.mark_stage(session, job_id=job.id, owner=job.owner, stage=POSTING)
        note = panels.unread_files_note(locale, unread) if unread else None
        if outcome == "no_error":
            key = "mention.no_error" if paste.mention else "nothing.no_error"
            payload = panels.render_text(locale, key)
            payload = panels.with_note(payload, note) if note else payload
        else:
            payload = render_reply(
                session,
                reply,
                index=index,
                graph=graph,
                today=now.date(),
                ephemeral=not public,
                note=note,
            )
    sent = deliver(paste, payload, job=job, slack=slack, public=public)
    if sent.ok and public and sent.ts:
        # the thread is answered (later mentions are conversation), and a pointer links here
        with store.write_rows() as session:
            slack_repo.set_reply_args(
                session, reply_id=reply.id, args={**reply.args, "ts": sent.ts}
            )
    if paste.assistant and paste.thread_ts:
        assistant.titled(slack, paste, triage, sent=sent.ok)
    if sent.ok:
        metrics.answer(outcome)
    elif sent.error == "not_in_channel" and paste.response_url:
        slack.respond(
            paste.response_url, blocks.ephemeral(panels.render_text(locale, "share.not_in_channel"))
        )
    else:
        log.info("could not answer in %s: %s", paste.channel, sent.error)
    return outcome


def _note_unknown(
    session: Rows, triage: Triage, permalink: str | None, now: Any, paste: PasteJob
) -> int | None:
    first = None
    for error in triage.errors[:NOTED_ERRORS]:
        found = slack_repo.note_unknown(
            session,
            template=error.template,
            sample=error.text,
            permalink=permalink,
            at=now,
            channel=paste.channel,
            thread_ts=paste.thread_ts,
            user_id=paste.user,
            source=paste.source,
        )
        first = first or found
    return first


def _remember(
    session: Rows,
    paste: PasteJob,
    outcome: Outcome,
    args: dict[str, Any],
    locale: str,
    now: Any,
    *,
    window: timedelta,
) -> Reply:
    """Store the reply and what answering taught: matches (for the digest), sightings."""
    kind = "nothing" if outcome == "no_error" else outcome
    reply_id = slack_repo.add_reply(
        session,
        kind=kind,
        locale=locale,
        user_id=paste.user,
        channel=paste.channel,
        thread_ts=paste.thread_ts,
        args=args,
        at=now,
    )
    records = args.get("records", [])
    digest_repo.note_matches(session, record_ids=records, at=now)
    if paste.thread_ts:
        for record_id in records:
            observe_error(
                session,
                scope=f"slack:{paste.channel}:{paste.thread_ts}",
                record_id=record_id,
                seen_at=now,
                window=window,
            )
    # the reply as just stored (reading it back gives the same values)
    return Reply(
        reply_id,
        kind,
        locale,
        paste.user,
        paste.channel,
        paste.thread_ts,
        dict(args),
    )


def deliver(
    paste: PasteJob, payload: Message, *, job: Job, slack: SlackGateway, public: bool
) -> Sent:
    """Send a reply: privately, or in the paste's thread exactly once.

    Before a thread post the job notes :data:`POSTING` (in the caller's
    transaction); a later attempt of a job that got that far first looks for
    its own message (by the job's key in the message metadata) and does not
    post again if Slack has it.
    """
    if not public:
        if paste.response_url:
            return slack.respond(paste.response_url, blocks.ephemeral(payload))
        return slack.post_ephemeral(
            channel=paste.channel,
            user=paste.user,
            text=payload["text"],
            blocks=payload["blocks"],
            thread_ts=paste.thread_ts,
        )
    assert paste.thread_ts is not None
    if job.stage == POSTING:
        ts = slack.find_marked(
            channel=paste.channel, thread_ts=paste.thread_ts, marker=job.key, after=paste.message_ts
        )
        if ts is not None:
            return Sent(ok=True, ts=ts)
    return slack.post_message(
        channel=paste.channel,
        text=payload["text"],
        blocks=payload["blocks"],
        thread_ts=paste.thread_ts,
        marker=job.key,
    )


__all__ = [
    "PasteContext",
    "answer_paste",
    "deliver",
    "loaded",
    "read_context",
    "render_reply",
]
