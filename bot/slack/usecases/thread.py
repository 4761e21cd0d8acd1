"""Once per thread: a mention or a look-up in a thread errkb already answered in public.

errkb answers a thread once. A later mention there is a turn of
conversation (:func:`bot.conversation.classify_turn`): thanks and bare
mentions get a reaction on the mention (``reactions.add``); a question, or
the answered error again, gets a short pointer only the asker sees, in the
asker's own language, naming the record and linking the answer
(``chat.getPermalink``); only a mention with a new error is answered as a
paste. The look-up shortcut on an answered message points the same way,
privately; the answered error pasted again without a mention is left alone.
Which errors a thread's answers covered is kept in each reply's ``seen``
templates (:func:`bot.answer.reply_args`); a reply counts once Slack took its
post (it then keeps the post's ``ts``, which the pointer links).
"""

from __future__ import annotations

import logging

from bot.conversation import REACTIONS, Turn, classify_turn
from bot.match.extract import extract
from bot.render import blocks
from bot.render.pointer import render_pointer
from bot.settings import Settings
from bot.slack.adapter.gateway import Sent, SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.queue.jobs import PasteJob
from bot.slack.web.metrics import Metrics
from bot.store.db import Store
from bot.store.slack_repo import Reply

log = logging.getLogger(__name__)


def covered(reply: Reply) -> set[str]:
    """The error templates a public reply answered (replies stored before ``seen`` was kept:
    the templates of the error lines it quoted)."""
    seen = reply.args.get("seen")
    if isinstance(seen, list):
        return {str(s) for s in seen}
    return {
        e.template for text in reply.args.get("errors") or [] for e in extract(str(text)).errors
    }


def answer_turn(
    paste: PasteJob,
    text: str,
    answers: list[Reply],
    *,
    job: str,
    settings: Settings,
    store: Store,
    slack: SlackGateway,
    metrics: Metrics,
) -> Turn | None:
    """Handle ``paste`` (the job keyed ``job``) as a turn in a thread errkb answered
    (``answers``: :func:`~bot.store.slack_repo.thread_answers` of its thread, read by the
    caller with the rest of the paste's context); None when it is a paste to answer (no
    such thread, only this job's own answer, or the text holds a new error). A paste
    nobody asked errkb about, holding only errors the thread's answers covered, is left
    alone."""
    spoken_to = paste.mention or paste.lookup
    if not paste.thread_ts or (paste.asked and not spoken_to):
        return None  # a direct message or /errkb: asked privately, answered privately
    answers = [a for a in answers if a.args.get("job") != job]  # a retry finds its own post
    if not answers:
        return None
    turn = classify_turn(text, answered=set().union(*map(covered, answers)))
    if turn == "error":
        return None
    if not spoken_to:
        metrics.decline("answered_in_thread")  # the same error again: the answer is above
        return turn
    if paste.lookup:
        turn = "question"  # the shortcut asks for the answer: show where it is
    reaction = REACTIONS.get(turn)
    if reaction is not None and paste.message_ts:
        sent = slack.add_reaction(channel=paste.channel, ts=paste.message_ts, name=reaction)
        if not sent.ok and sent.error != "already_reacted":
            log.info("no reaction in %s: %s", paste.channel, sent.error)
        metrics.answer(f"reaction_{turn}")
        return turn
    sent = point(paste, answers[0], text, settings=settings, store=store, slack=slack)
    if sent.ok:
        metrics.answer("pointer")
    else:
        log.info("no pointer in %s: %s", paste.channel, sent.error)
    return turn


def point(
    paste: PasteJob,
    answer: Reply,
    text: str,
    *,
    settings: Settings,
    store: Store,
    slack: SlackGateway,
) -> Sent:
    """The pointer to ``answer``, for the asker alone and in the asker's language."""
    assert paste.thread_ts is not None
    slack_locale = slack.user_locale(paste.user)
    permalink = slack.permalink(
        channel=paste.channel, ts=str(answer.args.get("ts") or paste.thread_ts)
    )
    with store.read() as session:
        locale = user_locale(
            session,
            settings,
            user=paste.user,
            slack_locale=slack_locale,
            channel=paste.channel,
            text=text,
        )
    sure = answer.kind == "answer"
    if sure:
        records = [str(r) for r in answer.args.get("records") or []]
    else:  # "not sure": the closest candidates, or none ("nothing known")
        records = [str(c[0]) for c in answer.args.get("candidates") or [] if c]
    lines = answer.args.get("lines") or {}
    errors = answer.args.get("errors") or []
    line = str(lines.get(records[0]) or "") if sure and records else ""
    payload = render_pointer(
        locale,
        records=records,
        line=line or (str(errors[0]) if errors else None),
        permalink=permalink,
        sure=sure,
    )
    if paste.response_url:
        return slack.respond(paste.response_url, blocks.ephemeral(payload))
    return slack.post_ephemeral(
        channel=paste.channel,
        user=paste.user,
        text=payload["text"],
        blocks=payload["blocks"],
        thread_ts=paste.thread_ts,
    )


__all__ = ["answer_turn", "covered", "point"]
