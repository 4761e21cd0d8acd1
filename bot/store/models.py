"""The ORM's row classes, mapped imperatively onto the tables of :mod:`bot.store.tables`.

The schema is declared once, as Core tables; a column added there is an
attribute of its class here, with nothing else to write. The classes are plain
(``registry.map_imperatively``): code that works with row objects (the Slack
bot, the digest, imports) imports this module, while code that reads plain rows
uses the tables alone and never loads ``sqlalchemy.orm`` nor maps a class, which
is what keeps a one-shot command such as ``errkb triage`` quick to start.

A row's attributes are its table's columns, typed as SQLAlchemy types them on
the table (``table.c.name.type``); to a type checker they are ``Any``, since the
table, not the class, declares them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Table
from sqlalchemy.orm import registry

from bot.store import tables

if TYPE_CHECKING:

    class _Mapped(type):
        def __getattr__(cls, name: str) -> Any: ...

else:
    _Mapped = type


class Row(metaclass=_Mapped):
    """A row of the table its class is mapped onto; keyword arguments set its columns."""

    if TYPE_CHECKING:

        def __init__(self, **columns: Any) -> None: ...

        def __getattr__(self, name: str) -> Any: ...


class RecordRow(Row):
    """A record's scalar fields."""


class TranslationRow(Row):
    """A translatable field of a record in one locale."""


class WorkaroundRow(Row):
    """One workaround of a record, with its vote counters."""


class DeadEndRow(Row):
    """One dead end of a record."""


class LinkRow(Row):
    """A transition-graph link."""


class AuditRow(Row):
    """One change to one record."""


class StateRow(Row):
    """A small named counter."""


class KnowledgeChangeRow(Row):
    """The latest change to one record's knowledge."""


class ThreadErrorRow(Row):
    """An error seen in a conversation scope."""


class ObservedTransitionRow(Row):
    """A transition seen in use."""


class SlackUserRow(Row):
    """A Slack user's answer language."""


class SlackReplyRow(Row):
    """What errkb showed in Slack."""


class VoteRow(Row):
    """One user's verdict on one workaround in one thread."""


class UnknownErrorRow(Row):
    """An error that matched nothing."""


class UnknownSightingRow(Row):
    """Where an unknown error was pasted."""


class ChannelSettingsRow(Row):
    """A channel's own settings."""


class RecordStateRow(Row):
    """A record's life apart from its knowledge."""


class MatchEventRow(Row):
    """A record answered a paste."""


class JobRow(Row):
    """A unit of Slack work."""


class CorrectionRow(Row):
    """What people taught errkb about one error."""


#: Each row class and the table it is mapped onto (what the tables' comments describe).
MAPPED: dict[type[Row], Table] = {
    RecordRow: tables.records,
    TranslationRow: tables.record_translations,
    WorkaroundRow: tables.workarounds,
    DeadEndRow: tables.dead_ends,
    LinkRow: tables.links,
    AuditRow: tables.audit_log,
    StateRow: tables.kb_state,
    KnowledgeChangeRow: tables.knowledge_changes,
    ThreadErrorRow: tables.thread_errors,
    ObservedTransitionRow: tables.observed_transitions,
    SlackUserRow: tables.slack_users,
    SlackReplyRow: tables.slack_replies,
    VoteRow: tables.slack_votes,
    UnknownErrorRow: tables.unknown_errors,
    UnknownSightingRow: tables.unknown_sightings,
    ChannelSettingsRow: tables.channel_settings,
    RecordStateRow: tables.record_state,
    MatchEventRow: tables.match_events,
    JobRow: tables.slack_jobs,
    CorrectionRow: tables.corrections,
}

mapper_registry = registry(metadata=tables.metadata)
for _row, _table in MAPPED.items():
    mapper_registry.map_imperatively(_row, _table)


def table_of(model: type[Row]) -> Table:
    """A row class's Core table, for statements over plain rows."""
    return cast(Table, MAPPED[model])
