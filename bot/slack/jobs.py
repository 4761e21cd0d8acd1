"""The kinds of Slack work errkb does after acknowledging, and what each job carries.

A job's payload is the part of Slack's request its work needs, as a
pydantic model: written as JSON when the request is acknowledged
(:mod:`bot.slack.intake`), validated again when a worker takes the job
(:mod:`bot.slack.runner`). :meth:`Payload.where` says where to tell the
user when the work fails.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bot.slack.payloads import SlackFile

#: The payload key holding the ids of the request a job came from (never a token).
TRACE = "_trace"


class JobKind(StrEnum):
    PASTE = "paste"  # a message, a mention, the lookup shortcut, /errkb <paste>
    COMMAND = "command"  # /errkb <subcommand>
    ACTION = "action"  # a button
    VIEW_DONE = "view_done"  # what follows a modal's submission
    HOME = "home"  # publish someone's App Home tab
    WELCOME = "welcome"  # errkb was invited to a channel
    FOLLOW_UP = "follow_up"  # a record now answers an unknown error: tell where it was pasted
    SHORTCUT = "shortcut"  # a message shortcut other than "Look up in errkb"
    ASSISTANT = "assistant"  # an assistant thread was opened: offer the suggested prompts
    FIX = "fix"  # a reply in an unknown error's thread was marked as its fix


class Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        """(response_url, channel, user, passive): passive work fails silently."""
        data = self.__dict__
        return data.get("response_url"), data.get("channel"), data.get("user"), False


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


class ViewDoneJob(Payload):
    callback_id: str
    user: str
    metadata: str = ""
    result: str = ""  # what the submission did (a record id, a reason)

    def where(self) -> tuple[str | None, str | None, str | None, bool]:
        return None, None, self.user, False


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
    """Record ``record`` was added for unknown error ``unknown``: tell the threads it was pasted in."""

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


PAYLOADS: dict[JobKind, type[Payload]] = {
    JobKind.PASTE: PasteJob,
    JobKind.COMMAND: CommandJob,
    JobKind.ACTION: ActionJob,
    JobKind.VIEW_DONE: ViewDoneJob,
    JobKind.HOME: HomeJob,
    JobKind.WELCOME: WelcomeJob,
    JobKind.FOLLOW_UP: FollowUpJob,
    JobKind.SHORTCUT: ShortcutJob,
    JobKind.ASSISTANT: AssistantJob,
    JobKind.FIX: FixJob,
}
