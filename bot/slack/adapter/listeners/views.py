"""Modal submissions, decided while Slack waits: problems go back into the modal, and
what follows a successful one (thanks, the digest updated, the people who pasted an
error that now has a record told) is a job."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt import Ack, App, BoltResponse

from bot.errors import StorageUnavailable
from bot.i18n import t
from bot.render.ids import BlockId, CallbackId
from bot.render.state import AddState, CorrectionModalState, DeprecateState, load_state
from bot.slack.adapter.payloads import ViewSubmission
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import FollowUpJob, JobKind, ViewDoneJob
from bot.slack.usecases.digest_actions import reason_of
from bot.slack.usecases.workflow import StepResult

#: The context key the middleware puts the :class:`Submissions` under: Bolt gives it to
#: every listener with a parameter of that name.
CONTEXT_KEY = "submissions"


@dataclass(frozen=True)
class Submissions:
    """The use cases decided while Slack waits (the modals, the workflow step), wired by the
    composition root."""

    add_record: Callable[[AddState, str, dict[str, Any]], dict[str, str] | str]
    deprecate: Callable[[DeprecateState, str, str], dict[str, str] | None]
    correct: Callable[[CorrectionModalState, str, dict[str, Any]], dict[str, str] | str]
    search: Callable[[CorrectionModalState, str], list[dict[str, Any]]]  # the modal's record search
    triage_step: Callable[[str, str | None], StepResult]


def _done(
    intake: Intake, submission: ViewSubmission, callback: str, result: str
) -> BoltResponse | None:
    job = ViewDoneJob(
        callback_id=callback,
        user=submission.user.id,
        metadata=submission.view.private_metadata,
        result=result,
    )
    return intake.submit(
        callback,
        job,
        key=f"view:{submission.view.id}:{callback}",
        team_id=submission.team_id,
        channel=None,
    )


def ack_view_add_record(
    ack: Ack, body: dict[str, Any], intake: Intake, submissions: Submissions
) -> None:
    submission = ViewSubmission.model_validate(body)
    state = load_state(AddState, submission.view.private_metadata)
    try:
        added = submissions.add_record(state, submission.user.id, submission.values)
    except StorageUnavailable:
        ack(response_action="errors", errors={BlockId.RECORD_ID: t(state.locale, "error.storage")})
        return
    if isinstance(added, dict):
        ack(response_action="errors", errors=added)
        return
    _done(
        intake, submission, CallbackId.ADD_RECORD_VIEW, added
    )  # the record is in; thanks may wait
    if state.unknown is not None:  # and the people who pasted that error are told
        follow_up = FollowUpJob(
            unknown=state.unknown, record=added, by=submission.user.id, fix_by=state.fix_by
        )
        intake.submit(
            JobKind.FOLLOW_UP,
            follow_up,
            key=f"follow_up:{state.unknown}:{added}",
            team_id=submission.team_id,
            channel=None,
        )
    ack()


def ack_view_deprecate(
    ack: Ack, body: dict[str, Any], intake: Intake, submissions: Submissions
) -> None:
    submission = ViewSubmission.model_validate(body)
    state = load_state(DeprecateState, submission.view.private_metadata)
    reason = reason_of(submission.values)
    try:
        errors = submissions.deprecate(state, submission.user.id, reason)
    except StorageUnavailable:
        errors = {BlockId.DEPRECATE_REASON: t(state.locale, "error.storage")}
    if errors:
        ack(response_action="errors", errors=errors)
        return
    _done(intake, submission, CallbackId.DEPRECATE_VIEW, reason)
    ack()


def ack_view_correct(
    ack: Ack, body: dict[str, Any], intake: Intake, submissions: Submissions
) -> None:
    submission = ViewSubmission.model_validate(body)
    state = load_state(CorrectionModalState, submission.view.private_metadata)
    try:
        done = submissions.correct(state, submission.user.id, submission.values)
    except StorageUnavailable:
        ack(
            response_action="errors",
            errors={BlockId.CORRECT_CHOICE: t(state.locale, "error.storage")},
        )
        return
    if isinstance(done, dict):
        ack(response_action="errors", errors=done)
        return
    _done(
        intake, submission, CallbackId.CORRECT_VIEW, done
    )  # the choice is stored; the answer follows
    ack()


def register(app: App) -> None:
    app.view(CallbackId.ADD_RECORD_VIEW)(ack_view_add_record)
    app.view(CallbackId.DEPRECATE_VIEW)(ack_view_deprecate)
    app.view(CallbackId.CORRECT_VIEW)(ack_view_correct)
