"""What errkb reads from Slack's request bodies, as pydantic models (extra keys ignored).

Every text is cleaned as it is read (:func:`bot.records.clean.clean_value`): a NUL or a lone
surrogate in a paste would otherwise reach the database, which refuses it (PostgreSQL) or
cannot encode it (both), and the paste would never be answered.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bot.records.clean import clean_value

TEXT_FILETYPES = frozenset(
    {
        "text",
        "log",
        "txt",
        "python",
        "javascript",
        "java",
        "go",
        "rust",
        "shell",
        "json",
        "yaml",
        "markdown",
        "post",
        "csv",
        "xml",
        "sql",
        "diff",
        "c",
        "cpp",
        "typescript",
    }
)


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _clean_texts(cls, data: Any) -> Any:
        return clean_value(data)


class SlackFile(_In):
    id: str
    name: str = ""
    mimetype: str = ""
    filetype: str = ""
    size: int = 0
    url_private_download: str | None = None
    url_private: str | None = None

    @property
    def is_text(self) -> bool:
        name = self.name.lower()
        return (
            self.mimetype.startswith("text/")
            or self.filetype in TEXT_FILETYPES
            or name.endswith((".log", ".txt"))
        )

    @property
    def url(self) -> str | None:
        return self.url_private_download or self.url_private


class Message(_In):
    text: str = ""
    user: str | None = None
    ts: str
    thread_ts: str | None = None
    client_msg_id: str | None = None
    files: list[SlackFile] = Field(default_factory=list)


class MessageEvent(Message):
    type: str
    channel: str
    channel_type: str | None = None
    subtype: str | None = None
    bot_id: str | None = None


class EventEnvelope(_In):
    event_id: str
    team_id: str | None = None
    event: MessageEvent


class AssistantThread(_In):
    user_id: str
    channel_id: str
    thread_ts: str


class AssistantThreadEvent(_In):
    type: str
    assistant_thread: AssistantThread


class AssistantThreadEnvelope(_In):
    event_id: str
    team_id: str | None = None
    event: AssistantThreadEvent


class ReactionItem(_In):
    type: str
    channel: str = ""
    ts: str = ""


class ReactionEvent(_In):
    type: str
    user: str
    reaction: str
    item: ReactionItem


class ReactionEnvelope(_In):
    event_id: str
    team_id: str | None = None
    event: ReactionEvent


class SlashCommand(_In):
    command: str
    team_id: str | None = None
    text: str = ""
    user_id: str
    channel_id: str
    response_url: str | None = None
    trigger_id: str | None = None


class _Ref(_In):
    id: str


class _Team(_In):
    team: _Ref | None = None

    @property
    def team_id(self) -> str | None:
        return self.team.id if self.team else None


class Action(_In):
    action_id: str
    value: str | None = None  # a button's, or what was typed into an input
    selected_option: dict[str, Any] | None = None  # a select's choice
    action_ts: str | None = None

    @property
    def chosen(self) -> str | None:
        """The button's value, the text typed or the option chosen."""
        if self.value is not None:
            return self.value
        found = (self.selected_option or {}).get("value")
        return str(found) if found is not None else None


class BlockActions(_Team):
    user: _Ref
    channel: _Ref | None = None
    response_url: str | None = None
    trigger_id: str
    actions: list[Action] = Field(min_length=1)
    container: dict[str, Any] = Field(default_factory=dict)
    view: dict[str, Any] | None = None  # the view clicked in (a modal, the Home tab)

    @property
    def value(self) -> str | None:
        return self.actions[0].chosen

    @property
    def home(self) -> bool:
        """Clicked in the App Home tab."""
        return (self.view or {}).get("type") == "home"

    @property
    def message(self) -> tuple[str, str] | None:
        """(channel, ts) of the public message holding the button; None for an ephemeral one."""
        c = self.container
        if c.get("type") != "message" or c.get("is_ephemeral") or not c.get("message_ts"):
            return None
        channel = c.get("channel_id") or (self.channel.id if self.channel else None)
        return (str(channel), str(c["message_ts"])) if channel else None


class MemberJoined(_In):
    type: str
    user: str
    channel: str
    channel_type: str | None = None
    inviter: str | None = None


class MemberJoinedEnvelope(_In):
    event_id: str
    team_id: str | None = None
    event: MemberJoined


class HomeOpened(_In):
    type: str
    user: str
    tab: str = "home"


class HomeOpenedEnvelope(_In):
    event_id: str
    team_id: str | None = None
    event: HomeOpened


class MessageShortcut(_Team):
    callback_id: str
    trigger_id: str
    response_url: str | None = None
    user: _Ref
    channel: _Ref
    message: Message


class View(_In):
    id: str = ""
    private_metadata: str = ""
    state: dict[str, Any] = Field(default_factory=dict)


class BlockSuggestion(_Team):
    """Someone typed into an ``external_select``: Slack asks for its options."""

    user: _Ref
    action_id: str
    block_id: str = ""
    value: str = ""
    view: View | None = None


class ViewSubmission(_Team):
    user: _Ref
    view: View

    @property
    def values(self) -> dict[str, Any]:
        return dict(self.view.state.get("values", {}))


class _Tokens(_In):
    oauth: list[str] = Field(default_factory=list)  # people whose tokens went
    bot: list[str] = Field(default_factory=list)  # bot users whose tokens went


class _RevokingEvent(_In):
    type: str
    tokens: _Tokens = Field(default_factory=_Tokens)  # tokens_revoked only


class RevokingEnvelope(_In):
    """``app_uninstalled`` or ``tokens_revoked``."""

    event_id: str
    team_id: str | None = None
    enterprise_id: str | None = None
    event: _RevokingEvent
