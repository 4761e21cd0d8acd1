"""The ORM classes, each mapped onto its table of :mod:`bot.store.tables`.

The schema is declared once, in Core (:mod:`bot.store.tables`); these classes
only map it, for the code that works with objects and relationships (the Slack
bot, the digest, imports). Code that reads plain rows uses the tables and
never imports this module, so it never loads ``sqlalchemy.orm`` nor maps ~20
classes. The annotations give the attributes their types; the columns, their
types and constraints come from the tables.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.orm import DeclarativeBase, Mapped, relationship

from bot.store import tables


class Base(DeclarativeBase):
    metadata = tables.metadata


def table_of(model: type[Base]) -> Table:
    """A model's Core table (typed as one), for statements over plain rows."""
    return cast(Table, model.__table__)


class RecordRow(Base):
    __table__ = tables.records

    id: Mapped[str]
    domain: Mapped[str]
    category: Mapped[str]
    subcategory: Mapped[str | None]
    signature: Mapped[str]
    regex: Mapped[str]
    root_cause: Mapped[str]
    root_cause_type: Mapped[str | None]
    versions: Mapped[list[Any]]
    os_specific: Mapped[dict[str, Any]]
    official_doc_url: Mapped[str | None]
    official_doc_section: Mapped[str | None]
    error_code: Mapped[str | None]
    verification_tier: Mapped[str]
    confidence: Mapped[float | None]
    fix_success_rate: Mapped[float | None]
    resolvable: Mapped[str]
    first_seen: Mapped[date | None]
    last_confirmed: Mapped[date | None]
    last_updated: Mapped[date | None]
    evidence_count: Mapped[int]
    tags: Mapped[list[Any]]
    locale: Mapped[str]
    aliases: Mapped[list[Any]]
    extra: Mapped[dict[str, Any]]
    graph_extra: Mapped[dict[str, Any]]
    content_hash: Mapped[str]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    translations: Mapped[list[TranslationRow]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, lazy="raise"
    )
    workarounds: Mapped[list[WorkaroundRow]] = relationship(
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="raise",
        order_by="WorkaroundRow.position",
    )
    dead_ends: Mapped[list[DeadEndRow]] = relationship(
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="raise",
        order_by="DeadEndRow.position",
    )
    links: Mapped[list[LinkRow]] = relationship(
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="raise",
        order_by="LinkRow.position",
    )


class TranslationRow(Base):
    """A translatable field of a record in one locale (a string or a list)."""

    __table__ = tables.record_translations

    record_id: Mapped[str]
    locale: Mapped[str]
    field: Mapped[str]
    value: Mapped[Any]


class WorkaroundRow(Base):
    __table__ = tables.workarounds

    id: Mapped[int]
    record_id: Mapped[str]
    position: Mapped[int]
    action: Mapped[str]
    success_rate: Mapped[float | None]
    how: Mapped[str]
    condition: Mapped[str]
    sources: Mapped[list[Any]]
    extra: Mapped[dict[str, Any]]
    fixed_count: Mapped[int]
    failed_count: Mapped[int]


class DeadEndRow(Base):
    __table__ = tables.dead_ends

    id: Mapped[int]
    record_id: Mapped[str]
    position: Mapped[int]
    action: Mapped[str]
    why_fails: Mapped[str]
    fail_rate: Mapped[float | None]
    condition: Mapped[str]
    sources: Mapped[list[Any]]
    extra: Mapped[dict[str, Any]]


class LinkRow(Base):
    """A transition-graph link; ``target_id`` may name a record not in the store."""

    __table__ = tables.links

    id: Mapped[int]
    source_id: Mapped[str]
    kind: Mapped[str]
    position: Mapped[int]
    target_id: Mapped[str]
    probability: Mapped[float | None]
    condition: Mapped[str | None]
    is_object: Mapped[bool]
    extra: Mapped[dict[str, Any]]


class AuditRow(Base):
    """Who changed which record, when, and what it was before and after."""

    __table__ = tables.audit_log

    id: Mapped[int]
    at: Mapped[datetime]
    actor: Mapped[str]
    record_id: Mapped[str]
    action: Mapped[str]
    before: Mapped[dict[str, Any] | None]
    after: Mapped[dict[str, Any] | None]


class StateRow(Base):
    """Small named counters: the knowledge version (``kb_version``), the oldest
    version the change feed can still answer from (``knowledge_floor``) and the
    database's knowledge epoch (``knowledge_epoch``)."""

    __table__ = tables.kb_state

    key: Mapped[str]
    value: Mapped[int]


class KnowledgeChangeRow(Base):
    """The latest change to one record's knowledge: the version that made it and how.

    ``kind`` is ``upserted`` or ``removed`` (deleted or deprecated). One row per
    record, so the feed never holds more rows than records ever known; rows of
    records long gone are pruned and ``knowledge_floor`` says from where.
    """

    __table__ = tables.knowledge_changes

    record_id: Mapped[str]
    seq: Mapped[int]
    kind: Mapped[str]
    at: Mapped[datetime]


class ThreadErrorRow(Base):
    """An error seen in a conversation scope (a Slack thread, a CLI ``--session``)."""

    __table__ = tables.thread_errors

    id: Mapped[int]
    scope: Mapped[str]
    record_id: Mapped[str]
    seen_at: Mapped[datetime]


class ObservedTransitionRow(Base):
    """A transition A→B seen in use; kept apart from the curated links."""

    __table__ = tables.observed_transitions

    source_id: Mapped[str]
    target_id: Mapped[str]
    count: Mapped[int]
    first_seen: Mapped[datetime]
    last_seen: Mapped[datetime]


# -- the Slack bot ---------------------------------------------------------------


class SlackUserRow(Base):
    """A Slack user's own choice of answer language (``/errkb lang``)."""

    __table__ = tables.slack_users

    user_id: Mapped[str]
    locale: Mapped[str]
    updated_at: Mapped[datetime]


class SlackReplyRow(Base):
    """What errkb showed (kind + args), so buttons can re-render, share or vote on it."""

    __table__ = tables.slack_replies

    id: Mapped[int]
    kind: Mapped[str]
    locale: Mapped[str]
    user_id: Mapped[str]
    channel: Mapped[str]
    thread_ts: Mapped[str | None]
    args: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class VoteRow(Base):
    """One user's verdict on one workaround in one thread; changeable, never duplicated."""

    __table__ = tables.slack_votes

    id: Mapped[int]
    user_id: Mapped[str]
    record_id: Mapped[str]
    position: Mapped[int]
    thread: Mapped[str]
    verdict: Mapped[str]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class UnknownErrorRow(Base):
    """An error pasted in Slack that matched nothing, by normalised template."""

    __table__ = tables.unknown_errors

    id: Mapped[int]
    template_hash: Mapped[str]
    template: Mapped[str]
    sample: Mapped[str]
    count: Mapped[int]
    first_seen: Mapped[datetime]
    last_seen: Mapped[datetime]
    permalinks: Mapped[list[Any]]
    source: Mapped[str | None]


class UnknownSightingRow(Base):
    """Where an unknown error was pasted: one row per thread, so that when a record for it
    is added the thread is told once (``told_at``)."""

    __table__ = tables.unknown_sightings

    id: Mapped[int]
    unknown_id: Mapped[int]
    channel: Mapped[str]
    thread_ts: Mapped[str]
    user_id: Mapped[str]
    at: Mapped[datetime]
    told_at: Mapped[datetime | None]
    told_record: Mapped[str | None]
    fix_text: Mapped[str | None]
    fix_user: Mapped[str | None]
    fix_ts: Mapped[str | None]
    fix_permalink: Mapped[str | None]


class ChannelSettingsRow(Base):
    """A channel's own errkb settings (``/errkb channel``); a channel without a row has the defaults."""

    __table__ = tables.channel_settings

    channel: Mapped[str]
    mode: Mapped[str]
    threshold: Mapped[float | None]
    locale: Mapped[str | None]
    alerts: Mapped[bool]
    updated_by: Mapped[str]
    updated_at: Mapped[datetime]


# -- staleness digest ------------------------------------------------------------


class RecordStateRow(Base):
    """A record's life in the knowledge base, apart from its knowledge: deprecation,
    snoozes, and when it was last put in a digest (the reminder throttle)."""

    __table__ = tables.record_state

    record_id: Mapped[str]
    deprecated_at: Mapped[datetime | None]
    deprecated_by: Mapped[str | None]
    deprecated_reason: Mapped[str | None]
    snoozed_until: Mapped[date | None]
    last_digested_at: Mapped[datetime | None]


class MatchEventRow(Base):
    """A record answered a paste in Slack: the usage that ranks stale records."""

    __table__ = tables.match_events

    id: Mapped[int]
    record_id: Mapped[str]
    at: Mapped[datetime]


class DigestRunRow(Base):
    """One digest for one period and audience; the unique pair makes it happen once.

    A replica claims the row (``claimed``) with a lease; ``done`` once Slack took
    the post. A claim whose lease ran out (its process died) may be taken over.
    """

    __table__ = tables.digest_runs

    id: Mapped[int]
    period: Mapped[str]
    audience: Mapped[str]
    status: Mapped[str]
    claimed_by: Mapped[str]
    claimed_at: Mapped[datetime]
    lease_until: Mapped[datetime]
    attempts: Mapped[int]
    done_at: Mapped[datetime | None]
    channel: Mapped[str | None]
    message_ts: Mapped[str | None]
    last_error: Mapped[str | None]


# -- durable work ----------------------------------------------------------------


class JobRow(Base):
    """A unit of Slack work, written before Slack is acknowledged and done from here.

    ``key`` is unique (the event, or the message it carries): a redelivery to
    any replica finds it taken. A worker claims a due job with a lease; a job
    whose lease ran out (its process died) is claimed again. ``stage`` and
    ``result`` record how far an attempt got (``posting`` before an answer is
    sent, the answer's ``ts`` after), so a retry never answers twice.
    """

    __table__ = tables.slack_jobs

    id: Mapped[int]
    key: Mapped[str]
    kind: Mapped[str]
    team_id: Mapped[str | None]
    channel: Mapped[str | None]
    payload: Mapped[dict[str, Any]]
    status: Mapped[str]
    attempts: Mapped[int]
    run_after: Mapped[datetime]
    deadline: Mapped[datetime]
    lease_owner: Mapped[str | None]
    lease_until: Mapped[datetime | None]
    stage: Mapped[str | None]
    result: Mapped[dict[str, Any] | None]
    last_error: Mapped[str | None]
    created_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]


class CorrectionRow(Base):
    """What people taught errkb about one error (by normalised template): the record that
    answers it, or none. The latest choice holds; a maintainer may undo it (inactive)."""

    __table__ = tables.corrections

    id: Mapped[int]
    template_hash: Mapped[str]
    template: Mapped[str]
    sample: Mapped[str]
    record_id: Mapped[str | None]  # None: no record answers it
    wrong_id: Mapped[str | None]  # what errkb had said
    user_id: Mapped[str]
    channel: Mapped[str | None]
    active: Mapped[bool]
    at: Mapped[datetime]
