"""The kinds of Slack work errkb does after acknowledging, what each job carries, and the
use case that does it.

A job's payload is the part of Slack's request its work needs, as a
pydantic model: written as JSON when the request is acknowledged
(:mod:`bot.slack.queue.intake`), validated again when a worker takes the job
(:mod:`bot.slack.queue.runner`). :meth:`Payload.where` says where to tell the
user when the work fails.

A use case declares the job kind it does with :func:`task`, on the function
itself::

    @task(ActionId.SHARE, ActionJob, state=ReplyState)
    def share(click: ActionJob, state: ReplyState, *, store: Store, ...) -> None: ...

A button's job kind is its action id, a modal's follow-up its callback id:
Bolt routes the click to its listener, the listener writes a job of that
kind, and the runner calls the one use case :data:`TASKS` names for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from bot.render.state import State
from bot.slack.adapter.payloads import SlackFile

#: The payload key holding the ids of the request a job came from (never a token).
TRACE = "_trace"


class JobKind(StrEnum):
    """The job kinds that are not a button's action id or a modal's callback id."""

    PASTE = "paste"  # a message, a mention, the lookup shortcut, /errkb <paste>
    COMMAND = "command"  # /errkb <subcommand>
    HOME = "home"  # publish someone's App Home tab
    WELCOME = "welcome"  # errkb was invited to a channel
    FOLLOW_UP = "follow_up"  # a record now answers an unknown error: tell where it was pasted
    ASSISTANT = "assistant"  # an assistant thread was opened: offer the suggested prompts
    FIX = "fix"  # a reply in an unknown error's thread was marked as its fix


class Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        """(response_url, channel, user, passive): passive work fails silently."""
        data = self.__dict__
        return data.get("response_url"), data.get("channel"), data.get("user"), False

    def state_value(self) -> str | None:
        """The state errkb gave the element this job came from (a button's value, a modal's
        metadata), for the use case's :attr:`Task.state`."""
        return None


class PasteJob(Payload):
    """A paste to answer, and where the answer goes."""

    text: str = ""
    files: list[SlackFile] = Field(default_factory=list)
    user: str  # who asked (the person pasting, mentioning or using the shortcut)
    author: str | None = None  # who wrote the pasted message, when someone else asks about it
    channel: str
    thread_ts: str | None = None  # the thread to answer in; None: answer privately
    message_ts: str | None = None  # the pasted message (permalinks, corrections)
    asked: bool = False  # mentioned, a shortcut or a command: answer even when unsure
    mention: bool = False  # an @-mention: read the thread when it holds no error itself
    lookup: bool = False  # the "Look up in errkb" shortcut on a message
    response_url: str | None = None
    source: str | None = None  # the app whose monitoring alert this is; None for a person's paste
    assistant: bool = (
        False  # in Slack's assistant view: show a status while working, title the thread
    )

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return self.response_url, self.channel, self.user, not self.asked


class CommandJob(Payload):
    name: str  # a subcommand, or "paste"
    arg: str = ""
    user: str
    channel: str
    response_url: str | None = None
    trigger_id: str | None = None
    thread_ts: str | None = None  # asked in a thread (an assistant thread): answer there


class ActionJob(Payload):
    action_id: str
    value: str | None = None
    user: str
    channel: str | None = None
    message: tuple[str, str] | None = None  # (channel, ts) of the public message clicked
    blocks: list[dict[str, Any]] | None = None  # what that message showed
    response_url: str | None = None
    trigger_id: str | None = None
    home: bool = False  # clicked in the App Home tab (which is published again after)

    def state_value(self) -> str | None:
        return self.value


class ViewDoneJob(Payload):
    callback_id: str
    user: str
    metadata: str = ""
    result: str = ""  # what the submission did (a record id, a reason)

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return None, None, self.user, False

    def state_value(self) -> str | None:
        return self.metadata


class HomeJob(Payload):
    """Publish ``user``'s Home tab, with the results of ``search`` when they searched."""

    user: str
    search: str | None = None

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return None, None, self.user, True


class WelcomeJob(Payload):
    channel: str
    inviter: str | None = None

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return None, self.channel, None, True


class FollowUpJob(Payload):
    """Record ``record`` was added for unknown error ``unknown``: tell the threads it was
    pasted in."""

    unknown: int
    record: str
    by: str
    fix_by: str | None = None  # whose reply in the thread held the fix

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return None, None, self.by, True


class ShortcutJob(Payload):
    """A message shortcut on a message: who used it where, and the message."""

    callback_id: str
    user: str
    channel: str
    text: str = ""
    message_ts: str
    thread_ts: str | None = None
    trigger_id: str | None = None
    response_url: str | None = None


class AssistantJob(Payload):
    """``user`` opened assistant thread ``thread_ts`` in their direct channel with errkb."""

    user: str
    channel: str
    thread_ts: str

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return None, None, self.user, True


class FixJob(Payload):
    """Someone marked message ``ts`` (in ``thread_ts``) as what fixed the thread's error:
    ``by`` reacted with a check mark, or the asker said it worked (``said``)."""

    channel: str
    thread_ts: str | None = None  # None: look it up (a reaction names only the message)
    ts: str
    by: str
    said: bool = False

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return None, None, self.by, True


@dataclass(frozen=True)
class Task:
    """The work of one job kind: the payload it carries, the use case that does it, the state
    model its payload's :meth:`~Payload.state_value` is loaded into (given to the use case
    after the payload) and fixed keyword arguments."""

    kind: str
    payload: type[Payload]
    run: Callable[..., object]
    state: type[State] | None = None
    args: Mapping[str, str] = field(default_factory=dict)


#: Every job kind's task, declared beside its use case with :func:`task` (``/errkb``'s
#: subcommands are the command table's: :mod:`bot.slack.queue.handlers`).
TASKS: dict[str, Task] = {}


def payload_model(kind: str) -> type[Payload] | None:
    """The payload model of jobs of ``kind``; None for a kind nothing declares."""
    if kind == JobKind.COMMAND:
        return CommandJob
    found = TASKS.get(kind)
    return found.payload if found is not None else None


Fn = TypeVar("Fn", bound=Callable[..., object])


def task(
    kind: str, payload: type[Payload], *, state: type[State] | None = None, **args: str
) -> Callable[[Fn], Fn]:
    """Declare the decorated use case the work of jobs of ``kind``."""

    def declare(run: Fn) -> Fn:
        if kind in TASKS:
            raise ValueError(f"job kind {kind!r} is declared twice")
        TASKS[str(kind)] = Task(str(kind), payload, run, state, args)
        return run

    return declare
