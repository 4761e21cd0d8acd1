"""SQLAlchemy 2.0 models: the same schema on SQLite and PostgreSQL.

A record's scalar fields live in ``records``; what the bot asks for piece by
piece lives in rows of its own: translations per (locale, field), workarounds
and dead ends in order (workarounds carry outcome counters), graph links as
(source, target, kind) rows whose target may be an id not in the store, and
an append-only audit log.

What matching reads (record content, links, translations, deprecation) is
versioned apart from evidence (votes, confirmations, snoozes, usage):
``kb_state["kb_version"]`` is the knowledge version, moved once by each
transaction that changes knowledge, and ``knowledge_changes`` holds, per
record, the version that last changed it. Evidence moves neither.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}



class _JSONB(TypeDecorator[Any]):
    """PostgreSQL's JSONB, its dialect imported only when a PostgreSQL database uses it:
    importing ``sqlalchemy.dialects.postgresql`` (all its drivers, asyncio) costs a
    SQLite command such as ``errkb triage`` about 45 ms of CPU, measured."""

    impl = JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: Any) -> Any:
        from sqlalchemy.dialects.postgresql import JSONB

        return dialect.type_descriptor(JSONB())


Json = JSON().with_variant(_JSONB(), "postgresql")
RECORD_ID = 300


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dict[str, Any]: Json, list[Any]: Json}


def table_of(model: type[Base]) -> Table:
    """A model's Core table (typed as one), for statements over plain rows."""
    return cast(Table, model.__table__)


class RecordRow(Base):
    __tablename__ = "records"

    id: Mapped[str] = mapped_column(String(RECORD_ID), primary_key=True)
    domain: Mapped[str] = mapped_column(String(100), index=True)
    category: Mapped[str] = mapped_column(String(100))
    subcategory: Mapped[str | None] = mapped_column(String(100))
    signature: Mapped[str] = mapped_column(Text)
    regex: Mapped[str] = mapped_column(Text)
    root_cause: Mapped[str] = mapped_column(Text)
    root_cause_type: Mapped[str | None] = mapped_column(String(100))
    versions: Mapped[list[Any]]
    os_specific: Mapped[dict[str, Any]]
    official_doc_url: Mapped[str | None] = mapped_column(Text)
    official_doc_section: Mapped[str | None] = mapped_column(Text)
    error_code: Mapped[str | None] = mapped_column(String(100))
    verification_tier: Mapped[str] = mapped_column(String(50))
    confidence: Mapped[float | None] = mapped_column(Float)
    fix_success_rate: Mapped[float | None] = mapped_column(Float)
    resolvable: Mapped[str] = mapped_column(String(10))
    first_seen: Mapped[date | None] = mapped_column(Date)
    last_confirmed: Mapped[date | None] = mapped_column(Date, index=True)
    last_updated: Mapped[date | None] = mapped_column(Date)
    evidence_count: Mapped[int] = mapped_column(Integer, default=0)
    tags: Mapped[list[Any]]
    locale: Mapped[str] = mapped_column(String(20))
    aliases: Mapped[list[Any]]
    extra: Mapped[dict[str, Any]]
    graph_extra: Mapped[dict[str, Any]]
    content_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    translations: Mapped[list[TranslationRow]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, lazy="raise"
    )
    workarounds: Mapped[list[WorkaroundRow]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, lazy="raise",
        order_by="WorkaroundRow.position",
    )  # fmt: skip
    dead_ends: Mapped[list[DeadEndRow]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, lazy="raise",
        order_by="DeadEndRow.position",
    )  # fmt: skip
    links: Mapped[list[LinkRow]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, lazy="raise",
        order_by="LinkRow.position",
    )  # fmt: skip


class TranslationRow(Base):
    """A translatable field of a record in one locale (a string or a list)."""

    __tablename__ = "record_translations"

    record_id: Mapped[str] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    locale: Mapped[str] = mapped_column(String(20), primary_key=True)
    field: Mapped[str] = mapped_column(String(50), primary_key=True)
    value: Mapped[Any] = mapped_column(Json)


class WorkaroundRow(Base):
    __tablename__ = "workarounds"
    __table_args__ = (UniqueConstraint("record_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    record_id: Mapped[str] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    success_rate: Mapped[float | None] = mapped_column(Float)
    how: Mapped[str] = mapped_column(Text)
    condition: Mapped[str] = mapped_column(Text)
    sources: Mapped[list[Any]]
    extra: Mapped[dict[str, Any]]
    fixed_count: Mapped[int] = mapped_column(Integer, default=0)
    failed_count: Mapped[int] = mapped_column(Integer, default=0)


class DeadEndRow(Base):
    __tablename__ = "dead_ends"
    __table_args__ = (UniqueConstraint("record_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    record_id: Mapped[str] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    why_fails: Mapped[str] = mapped_column(Text)
    fail_rate: Mapped[float | None] = mapped_column(Float)
    condition: Mapped[str] = mapped_column(Text)
    sources: Mapped[list[Any]]
    extra: Mapped[dict[str, Any]]


class LinkRow(Base):
    """A transition-graph link; ``target_id`` may name a record not in the store."""

    __tablename__ = "links"
    __table_args__ = (
        UniqueConstraint("source_id", "kind", "position"),
        Index("ix_links_target_kind", "target_id", "kind"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    source_id: Mapped[str] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(40))
    position: Mapped[int] = mapped_column(Integer)
    target_id: Mapped[str] = mapped_column(String(RECORD_ID))
    probability: Mapped[float | None] = mapped_column(Float)
    condition: Mapped[str | None] = mapped_column(Text)
    is_object: Mapped[bool] = mapped_column(default=True)
    extra: Mapped[dict[str, Any]]


class AuditRow(Base):
    """Who changed which record, when, and what it was before and after."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    actor: Mapped[str] = mapped_column(String(200))
    record_id: Mapped[str] = mapped_column(String(RECORD_ID), index=True)
    action: Mapped[str] = mapped_column(String(50))
    before: Mapped[dict[str, Any] | None] = mapped_column(Json)
    after: Mapped[dict[str, Any] | None] = mapped_column(Json)


class StateRow(Base):
    """Small named counters: the knowledge version (``kb_version``), the oldest
    version the change feed can still answer from (``knowledge_floor``) and the
    database's knowledge epoch (``knowledge_epoch``)."""

    __tablename__ = "kb_state"

    key: Mapped[str] = mapped_column(String(50), primary_key=True)
    value: Mapped[int] = mapped_column(Integer, default=0)


class KnowledgeChangeRow(Base):
    """The latest change to one record's knowledge: the version that made it and how.

    ``kind`` is ``upserted`` or ``removed`` (deleted or deprecated). One row per
    record, so the feed never holds more rows than records ever known; rows of
    records long gone are pruned and ``knowledge_floor`` says from where.
    """

    __tablename__ = "knowledge_changes"
    __table_args__ = (Index("ix_knowledge_changes_kind_at", "kind", "at"),)

    record_id: Mapped[str] = mapped_column(String(RECORD_ID), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, index=True)
    kind: Mapped[str] = mapped_column(String(10))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ThreadErrorRow(Base):
    """An error seen in a conversation scope (a Slack thread, a CLI ``--session``)."""

    __tablename__ = "thread_errors"
    __table_args__ = (Index("ix_thread_errors_scope_seen", "scope", "seen_at"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    scope: Mapped[str] = mapped_column(String(200))
    record_id: Mapped[str] = mapped_column(String(RECORD_ID))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ObservedTransitionRow(Base):
    """A transition A→B seen in use; kept apart from the curated links."""

    __tablename__ = "observed_transitions"

    source_id: Mapped[str] = mapped_column(String(RECORD_ID), primary_key=True)
    target_id: Mapped[str] = mapped_column(String(RECORD_ID), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
    first_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# -- the Slack bot ---------------------------------------------------------------


class SlackUserRow(Base):
    """A Slack user's own choice of answer language (``/errkb lang``)."""

    __tablename__ = "slack_users"

    user_id: Mapped[str] = mapped_column(String(50), primary_key=True)
    locale: Mapped[str] = mapped_column(String(20))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SlackReplyRow(Base):
    """What errkb showed (kind + args), so buttons can re-render, share or vote on it."""

    __tablename__ = "slack_replies"
    __table_args__ = (
        Index("ix_slack_replies_user_id_created_at", "user_id", "created_at"),
        Index("ix_slack_replies_channel_thread_ts", "channel", "thread_ts"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(20))
    locale: Mapped[str] = mapped_column(String(20))
    user_id: Mapped[str] = mapped_column(String(50))
    channel: Mapped[str] = mapped_column(String(50))
    thread_ts: Mapped[str | None] = mapped_column(String(50))
    args: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class VoteRow(Base):
    """One user's verdict on one workaround in one thread; changeable, never duplicated."""

    __tablename__ = "slack_votes"
    __table_args__ = (UniqueConstraint("user_id", "record_id", "position", "thread"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(50))
    record_id: Mapped[str] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    thread: Mapped[str] = mapped_column(String(120))
    verdict: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class UnknownErrorRow(Base):
    """An error pasted in Slack that matched nothing, by normalised template."""

    __tablename__ = "unknown_errors"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    template_hash: Mapped[str] = mapped_column(String(64), unique=True)
    template: Mapped[str] = mapped_column(Text)
    sample: Mapped[str] = mapped_column(Text)
    count: Mapped[int] = mapped_column(Integer, default=0)
    first_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    permalinks: Mapped[list[Any]]



class UnknownSightingRow(Base):
    """Where an unknown error was pasted: one row per thread, so that when a record for it
    is added the thread is told once (``told_at``)."""

    __tablename__ = "unknown_sightings"
    __table_args__ = (UniqueConstraint("unknown_id", "channel", "thread_ts"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    unknown_id: Mapped[int] = mapped_column(ForeignKey("unknown_errors.id", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(50))
    thread_ts: Mapped[str] = mapped_column(String(50))
    user_id: Mapped[str] = mapped_column(String(50))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    told_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    told_record: Mapped[str | None] = mapped_column(String(RECORD_ID))


class ChannelSettingsRow(Base):
    """A channel's own errkb settings (``/errkb channel``); a channel without a row has the defaults."""

    __tablename__ = "channel_settings"

    channel: Mapped[str] = mapped_column(String(50), primary_key=True)
    mode: Mapped[str] = mapped_column(String(10))
    threshold: Mapped[float | None] = mapped_column(Float)
    locale: Mapped[str | None] = mapped_column(String(20))
    updated_by: Mapped[str] = mapped_column(String(50))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

# -- staleness digest ------------------------------------------------------------


class RecordStateRow(Base):
    """A record's life in the knowledge base, apart from its knowledge: deprecation,
    snoozes, and when it was last put in a digest (the reminder throttle)."""

    __tablename__ = "record_state"

    record_id: Mapped[str] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    deprecated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    deprecated_by: Mapped[str | None] = mapped_column(String(200))
    deprecated_reason: Mapped[str | None] = mapped_column(Text)
    snoozed_until: Mapped[date | None] = mapped_column(Date)
    last_digested_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class MatchEventRow(Base):
    """A record answered a paste in Slack: the usage that ranks stale records."""

    __tablename__ = "match_events"
    __table_args__ = (Index("ix_match_events_record_at", "record_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    record_id: Mapped[str] = mapped_column(String(RECORD_ID))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class DigestRunRow(Base):
    """One digest for one period and audience; the unique pair makes it happen once.

    A replica claims the row (``claimed``) with a lease; ``done`` once Slack took
    the post. A claim whose lease ran out (its process died) may be taken over.
    """

    __tablename__ = "digest_runs"
    __table_args__ = (UniqueConstraint("period", "audience"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    period: Mapped[str] = mapped_column(String(40))
    audience: Mapped[str] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(20))
    claimed_by: Mapped[str] = mapped_column(String(200))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lease_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    done_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    channel: Mapped[str | None] = mapped_column(String(50))
    message_ts: Mapped[str | None] = mapped_column(String(50))
    last_error: Mapped[str | None] = mapped_column(Text)


# -- durable work ----------------------------------------------------------------


class JobRow(Base):
    """A unit of Slack work, written before Slack is acknowledged and done from here.

    ``key`` is unique (the event, or the message it carries): a redelivery to
    any replica finds it taken. A worker claims a due job with a lease; a job
    whose lease ran out (its process died) is claimed again. ``stage`` and
    ``result`` record how far an attempt got (``posting`` before an answer is
    sent, the answer's ``ts`` after), so a retry never answers twice.
    """

    __tablename__ = "slack_jobs"
    __table_args__ = (Index("ix_slack_jobs_status_run_after", "status", "run_after"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(50))
    team_id: Mapped[str | None] = mapped_column(String(50))
    channel: Mapped[str | None] = mapped_column(String(50))
    payload: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(20))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    run_after: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    deadline: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    stage: Mapped[str | None] = mapped_column(String(50))
    result: Mapped[dict[str, Any] | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class CorrectionRow(Base):
    """What people taught errkb about one error (by normalised template): the record that
    answers it, or none. The latest choice holds; a maintainer may undo it (inactive)."""

    __tablename__ = "corrections"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    template_hash: Mapped[str] = mapped_column(String(64), unique=True)
    template: Mapped[str] = mapped_column(Text)
    sample: Mapped[str] = mapped_column(Text)
    record_id: Mapped[str | None] = mapped_column(String(RECORD_ID))  # None: no record answers it
    wrong_id: Mapped[str | None] = mapped_column(String(RECORD_ID), index=True)  # what errkb had said
    user_id: Mapped[str] = mapped_column(String(50))
    channel: Mapped[str | None] = mapped_column(String(50))
    active: Mapped[bool] = mapped_column(default=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
