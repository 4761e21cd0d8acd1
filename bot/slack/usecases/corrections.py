"""The answer's own controls: "More"/"Less", "Next error", "Not this error", "Remove", "Undo".

- paging and expanding change the stored reply's view and update the message in place;
- "Not this error" (anyone) opens a modal with the other records that error could be,
  "none of these" and a search over the knowledge base (:func:`search_records`); the choice is
  stored by the error's template (:mod:`bot.store.corrections_repo`), so the next paste of the same
  error, in any channel, is answered with it, and the answer is corrected in place;
- "Remove" (the person who asked, or a maintainer) deletes a public answer;
- "Undo" (maintainers) forgets a learned choice.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from bot.clock import Clock
from bot.errors import RecordNotFound
from bot.i18n import t
from bot.knowledge import GraphSource, IndexSource
from bot.render import panels
from bot.render.correct import (
    NONE,
    SEARCH_OPTIONS,
    chosen,
    correction_note,
    render_correct_modal,
    render_search_options,
)
from bot.render.escape import mention
from bot.render.ids import ActionId, BlockId, CallbackId
from bot.render.state import (
    BadState,
    CorrectionModalState,
    CorrectionState,
    CorrectState,
    PageState,
    ReplyState,
)
from bot.report import graph_sections
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.adapter.roles import maintainers
from bot.slack.queue.jobs import ActionJob, ViewDoneJob, task
from bot.slack.usecases.answer_paste import loaded, render_reply
from bot.slack.usecases.feedback import private
from bot.slack.web.metrics import Metrics
from bot.store import corrections_repo, slack_repo
from bot.store.db import Store
from bot.store.slack_repo import Reply

log = logging.getLogger(__name__)


def _reply(session: Any, reply_id: int) -> Reply:
    reply = slack_repo.get_reply(session, reply_id=reply_id)
    if reply is None:
        raise BadState(f"reply {reply_id} is gone")
    return reply


def _show(slack: SlackGateway, click: ActionJob, payload: dict[str, Any]) -> None:
    """The clicked message, changed in place (public by chat.update, private by its
    response_url)."""
    if click.message is not None:
        slack.update_message(
            channel=click.message[0],
            ts=click.message[1],
            text=payload["text"],
            blocks=payload["blocks"],
        )
    elif click.response_url:
        slack.respond(click.response_url, {**payload, "replace_original": True})


@task(ActionId.MORE, ActionJob, state=PageState)
@task(ActionId.PAGE, ActionJob, state=PageState)
def page(
    click: ActionJob,
    state: PageState,
    *,
    store: Store,
    slack: SlackGateway,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    """ "More"/"Less" and "Next error": the same answer, another view of it."""
    with store.transaction() as session:
        reply = _reply(session, state.reply)
        args = {**reply.args, "view": {"page": state.page, "expanded": state.expanded}}
        slack_repo.set_reply_args(session, reply_id=reply.id, args=args)
        payload = render_reply(
            session,
            replace(reply, args=args),
            index=index,
            graph=graph,
            today=clock.now().date(),
            ephemeral=click.message is None,
        )
    _show(slack, click, payload)


def _answered(reply: Reply, graph: GraphSource, page: int) -> str:
    """The record shown on ``page`` of an answer (the errors come likely cause first)."""
    ids = list(reply.args.get("records") or [])
    if not ids:
        raise BadState(f"reply {reply.id} answers nothing")
    ordered = graph_sections(graph.current(), ids, locale=reply.locale).cause_first(ids)
    return ordered[min(page, len(ordered) - 1)]


@task(ActionId.NOT_THIS, ActionJob, state=CorrectState)
def not_this(
    click: ActionJob,
    state: CorrectState,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
) -> None:
    """Open the "Not this error" modal: the other records the error could be, or none."""
    kb = loaded(index)
    slack_locale = slack.user_locale(click.user)
    with store.read() as session:
        reply = _reply(session, state.reply)
        locale = user_locale(
            session, settings, user=click.user, slack_locale=slack_locale, channel=click.channel
        )
    wrong_id = _answered(reply, graph, state.page)
    wrong = kb.record(wrong_id)
    if wrong is None:
        raise RecordNotFound(wrong_id)
    others = [
        r
        for r in map(kb.record, reply.args.get("alternatives", {}).get(wrong_id, []))
        if r is not None
    ]
    modal = CorrectionModalState(
        reply=reply.id,
        wrong=wrong_id,
        locale=locale,
        channel=click.message[0] if click.message else None,
        ts=click.message[1] if click.message else None,
    )
    sample = str(
        reply.args.get("samples", {}).get(wrong_id) or reply.args.get("lines", {}).get(wrong_id, "")
    )
    if click.trigger_id:
        slack.open_view(
            trigger_id=click.trigger_id,
            view=render_correct_modal(locale, modal, wrong, sample, others),
        )


def correct(
    state: CorrectionModalState, user: str, values: dict[str, Any], *, store: Store, clock: Clock
) -> dict[str, str] | str:
    """Store the choice while Slack waits for the modal: problems for the modal, or the choice."""
    picked = chosen(values)
    if picked is None:
        return {BlockId.CORRECT_CHOICE: t(state.locale, "correct.required")}
    record_id = None if picked == NONE else picked
    with store.transaction() as session:
        if record_id and not slack_repo.record_exists(session, record_id=record_id):
            problem = t(state.locale, "correct.unknown_record", id=record_id[:100])
            return {BlockId.CORRECT_SEARCH: problem}
        reply = _reply(session, state.reply)
        args = dict(reply.args)
        template = args.get("templates", {}).get(state.wrong)
        if (
            template
        ):  # the error is remembered by its template: the next paste of it is answered right
            corrections_repo.teach(
                session,
                template=template,
                sample=args.get("samples", {}).get(state.wrong, ""),
                record_id=record_id,
                wrong_id=state.wrong,
                user_id=user,
                channel=state.channel or reply.channel,
                at=clock.now(),
            )
        records = [record_id if r == state.wrong else r for r in args.get("records", [])]
        records = [r for r in dict.fromkeys(records) if r]
        for key in ("lines", "templates", "samples"):
            found = dict(args.get(key) or {})
            if record_id and state.wrong in found:
                found[record_id] = found[state.wrong]
            found.pop(state.wrong, None)
            args[key] = found
        args.update(
            records=records,
            corrected={"by": user, "record": record_id},
            view={"page": 0, "expanded": False},
        )
        slack_repo.set_reply_args(session, reply_id=reply.id, args=args)
    log.info(
        "answer corrected", extra={"reply": reply.id, "record_id": record_id, "wrong": state.wrong}
    )
    return record_id or NONE


def search_records(
    state: CorrectionModalState, words: str, *, index: IndexSource
) -> list[dict[str, Any]]:
    """The modal's search, answered while Slack waits: the records that best match ``words``
    (a record id typed whole comes first), not the one answered wrongly, labelled in the
    modal's language."""
    kb = loaded(index)
    found = kb.search(words[:500], limit=SEARCH_OPTIONS + 1)
    ids = [words.strip()] if kb.record(words.strip()) else []
    ids += [rid for rid, _ in found if rid not in ids]
    records = [r for r in map(kb.record, ids) if r is not None and r.id != state.wrong]
    return render_search_options(records, state.locale)


@task(CallbackId.CORRECT_VIEW, ViewDoneJob, state=CorrectionModalState)
def after_correct(
    done: ViewDoneJob,
    state: CorrectionModalState,
    *,
    store: Store,
    slack: SlackGateway,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
    metrics: Metrics,
) -> None:
    """The corrected answer, in place: the right record, or the answer withdrawn."""
    user = done.user
    result = done.result
    if not (state.channel and state.ts):
        return
    record_id = None if result == NONE else result
    with store.read() as session:
        reply = _reply(session, state.reply)
        note = correction_note(reply.locale, mention(user), record_id)
        if reply.args.get("records"):
            payload = render_reply(
                session,
                reply,
                index=index,
                graph=graph,
                today=clock.now().date(),
                ephemeral=False,
                note=note,
            )
        else:
            payload = panels.render_note(reply.locale, "correct.done.none", user=user)
    slack.update_message(
        channel=state.channel, ts=state.ts, text=payload["text"], blocks=payload["blocks"]
    )
    metrics.answer("correction")


@task(ActionId.REMOVE, ActionJob, state=ReplyState)
def remove(
    click: ActionJob,
    state: ReplyState,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    metrics: Metrics,
) -> None:
    """Delete a public answer: the person who asked, or a maintainer."""
    slack_locale = slack.user_locale(click.user)
    with store.read() as session:
        reply = _reply(session, state.reply)
        locale = user_locale(
            session, settings, user=click.user, slack_locale=slack_locale, channel=click.channel
        )
    allowed = click.user == reply.user_id or click.user in maintainers(settings, slack)
    if not allowed or click.message is None:
        private(slack, click, panels.render_text(locale, "remove.refused"))
        metrics.decline("not_allowed")
        return
    slack.delete_message(channel=click.message[0], ts=click.message[1])
    log.info("answer removed", extra={"reply": reply.id, "by": click.user})
    metrics.answer("removed")


@task(ActionId.UNDO_CORRECTION, ActionJob, state=CorrectionState)
def undo(
    click: ActionJob,
    state: CorrectionState,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    clock: Clock,
    metrics: Metrics,
) -> None:
    """A maintainer forgets a learned choice."""
    slack_locale = slack.user_locale(click.user)
    allowed = click.user in maintainers(settings, slack)
    with store.transaction() as session:
        locale = user_locale(
            session, settings, user=click.user, slack_locale=slack_locale, channel=click.channel
        )
        undone = (
            corrections_repo.undo(
                session, correction_id=state.correction, user_id=click.user, at=clock.now()
            )
            if allowed
            else None
        )
    if not allowed:
        private(slack, click, panels.render_text(locale, "correct.undo_refused"))
        metrics.decline("not_maintainer")
        return
    if undone is not None:
        private(
            slack,
            click,
            panels.render_note(
                locale,
                "correct.undone",
                user=click.user,
                id=undone.record_id or undone.wrong_id or "",
            ),
        )
