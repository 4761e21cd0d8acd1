"""What each job does: the one table from job kind (and button, subcommand, modal) to use case.

Use cases name what they use as keyword-only parameters; :func:`inject`
binds them from the composition root's dependencies by name
(:mod:`bot.slack.bootstrap`), so each takes exactly what it uses and a
missing one is an error at start, not at the first click.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.clock import Clock
from bot.knowledge import GraphSource, IndexSource
from bot.render.ids import ActionId, CallbackId
from bot.render.state import (
    AddState,
    CorrectionModalState,
    CorrectionState,
    CorrectState,
    DeprecateState,
    DigestItemState,
    PageState,
    RecordState,
    ReplyState,
    State,
    VoteState,
    load_state,
)
from bot.settings import Settings
from bot.slack import additions, assistant, commands, corrections, digest, feedback, fixes, home
from bot.slack.answer import answer_paste
from bot.slack.followup import tell_pasters
from bot.slack.gateway import SlackGateway
from bot.slack.jobs import (
    ActionJob,
    AssistantJob,
    CommandJob,
    FixJob,
    FollowUpJob,
    HomeJob,
    JobKind,
    PasteJob,
    ShortcutJob,
    ViewDoneJob,
    WelcomeJob,
)
from bot.slack.welcome import welcome
from bot.store.db import Store
from bot.store.jobs_repo import Job

Handler = Callable[[Job], None]
#: Given per call, not wired: the job being done.
PER_CALL = frozenset({"job"})


def inject(fn: Callable[..., Any], deps: Mapping[str, object]) -> Callable[..., Any]:
    """``fn`` with its keyword-only dependencies bound from ``deps`` by name."""
    wanted = [n for n, p in inspect.signature(fn).parameters.items() if p.kind is p.KEYWORD_ONLY]
    missing = [n for n in wanted if n not in deps and n not in PER_CALL]
    if missing:
        raise LookupError(f"{fn.__qualname__} needs {', '.join(missing)}, which nothing provides")
    return functools.partial(fn, **{n: deps[n] for n in wanted if n in deps})


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
    commands.show_record(
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


@dataclass(frozen=True)
class Button:
    """What a button does: the state its value carries, the use case, fixed arguments."""

    state: type[State]
    run: Callable[..., None]
    args: Mapping[str, str] = field(default_factory=dict)


BUTTONS: dict[ActionId, Button] = {
    ActionId.VOTE_FIXED: Button(VoteState, feedback.vote, {"verdict": "fixed"}),
    ActionId.VOTE_FAILED: Button(VoteState, feedback.vote, {"verdict": "failed"}),
    ActionId.SHARE: Button(ReplyState, feedback.share),
    ActionId.SHOW_RECORD: Button(RecordState, show_clicked),
    ActionId.ADD_RECORD: Button(AddState, feedback.open_add_modal),
    ActionId.DIGEST_CONFIRM: Button(DigestItemState, digest.act, {"action": "confirm"}),
    ActionId.DIGEST_SNOOZE: Button(DigestItemState, digest.act, {"action": "snooze"}),
    ActionId.DIGEST_DEPRECATE: Button(DigestItemState, digest.open_deprecate),
    ActionId.DIGEST_OPEN: Button(DigestItemState, show_clicked),
    ActionId.MORE: Button(PageState, corrections.page),
    ActionId.PAGE: Button(PageState, corrections.page),
    ActionId.NOT_THIS: Button(CorrectState, corrections.not_this),
    ActionId.REMOVE: Button(ReplyState, corrections.remove),
    ActionId.UNDO_CORRECTION: Button(CorrectionState, corrections.undo),
}

#: Elements whose value a person typed or chose, not state errkb gave: the Home tab's.
INPUTS: dict[ActionId, Callable[..., None]] = {
    ActionId.HOME_SEARCH: home.search_home,
    ActionId.HOME_LANG: home.choose_home_language,
}

#: Message shortcuts done as a job ("Look up in errkb" is a paste).
SHORTCUTS: dict[CallbackId, Callable[..., None]] = {
    CallbackId.ADD_SHORTCUT: additions.open_add_from_message,
}

#: What follows a modal's submission (the submission itself is decided while Slack waits).
AFTER_MODAL: dict[CallbackId, tuple[type[State], Callable[..., None]]] = {
    CallbackId.ADD_RECORD_VIEW: (AddState, feedback.thank_for_record),
    CallbackId.DEPRECATE_VIEW: (DeprecateState, digest.after_deprecate),
    CallbackId.CORRECT_VIEW: (CorrectionModalState, corrections.after_correct),
}


def job_handlers(deps: Mapping[str, object]) -> dict[str, Handler]:
    """Every job kind's handler, its use cases wired from ``deps``."""
    paste = inject(answer_paste, deps)
    subcommands = {s.name: inject(s.run, deps) for s in commands.SUBCOMMANDS.values() if s.run}
    buttons = {action: (b.state, inject(b.run, deps), b.args) for action, b in BUTTONS.items()}
    inputs = {action: inject(run, deps) for action, run in INPUTS.items()}
    after = {callback: (model, inject(run, deps)) for callback, (model, run) in AFTER_MODAL.items()}
    publish_home = inject(home.publish_home, deps)
    welcome_channel = inject(welcome, deps)
    follow_up = inject(tell_pasters, deps)
    shortcuts = {callback: inject(run, deps) for callback, run in SHORTCUTS.items()}
    start_assistant = inject(assistant.start_thread, deps)
    capture_fix = inject(fixes.capture_fix, deps)

    def handle_paste(job: Job) -> None:
        paste(PasteJob.model_validate(job.payload), job=job)

    def handle_command(job: Job) -> None:
        command = CommandJob.model_validate(job.payload)
        subcommands[command.name](command)

    def handle_action(job: Job) -> None:
        click = ActionJob.model_validate(job.payload)
        action = ActionId(click.action_id)
        if action in inputs:
            inputs[action](click)
            return
        model, run, args = buttons[action]
        run(click, load_state(model, click.value), **args)
        if click.home:  # the tab shows what the click changed
            publish_home(HomeJob(user=click.user))

    def handle_shortcut(job: Job) -> None:
        shortcut = ShortcutJob.model_validate(job.payload)
        shortcuts[CallbackId(shortcut.callback_id)](shortcut)

    def handle_view_done(job: Job) -> None:
        done = ViewDoneJob.model_validate(job.payload)
        model, run = after[CallbackId(done.callback_id)]
        run(load_state(model, done.metadata), done.user, done.result)

    handlers: dict[JobKind, Handler] = {
        JobKind.PASTE: handle_paste,
        JobKind.COMMAND: handle_command,
        JobKind.ACTION: handle_action,
        JobKind.VIEW_DONE: handle_view_done,
        JobKind.HOME: lambda job: publish_home(HomeJob.model_validate(job.payload)),
        JobKind.WELCOME: lambda job: welcome_channel(WelcomeJob.model_validate(job.payload)),
        JobKind.FOLLOW_UP: lambda job: follow_up(FollowUpJob.model_validate(job.payload)),
        JobKind.SHORTCUT: handle_shortcut,
        JobKind.ASSISTANT: lambda job: start_assistant(AssistantJob.model_validate(job.payload)),
        JobKind.FIX: lambda job: capture_fix(FixJob.model_validate(job.payload)),
    }
    return {str(kind): handler for kind, handler in handlers.items()}
