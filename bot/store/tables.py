"""The schema as SQLAlchemy Core tables: the same on SQLite and PostgreSQL.

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

This module is the one declaration of the schema: the ORM's row classes
(:mod:`bot.store.models`) are mapped onto these tables, the record conversion
(:mod:`bot.store.convert`) takes its column lists from them, and
:data:`metadata` is what Alembic compares the migrations with. Code that reads
or writes plain rows uses the tables and never imports the ORM, so a one-shot
command such as ``errkb triage`` loads neither ``sqlalchemy.orm`` nor a mapping.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
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
    false,
)

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
RECORD_ID = 300

metadata = MetaData(naming_convention=NAMING_CONVENTION)


class _JSONB(TypeDecorator[Any]):
    """PostgreSQL's JSONB, its dialect imported only when a PostgreSQL database uses it, so
    that a command on SQLite never loads ``sqlalchemy.dialects.postgresql`` (its drivers,
    asyncio)."""

    impl = JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: Any) -> Any:
        from sqlalchemy.dialects.postgresql import JSONB

        return dialect.type_descriptor(JSONB())


Json = JSON().with_variant(_JSONB(), "postgresql")


def _col(name: str, kind: Any, *args: Any, **kwargs: Any) -> Column[Any]:
    """A column that always holds a value."""
    return Column(name, kind, *args, nullable=False, **kwargs)


def _null(name: str, kind: Any, *args: Any, **kwargs: Any) -> Column[Any]:
    """A column that may hold NULL."""
    return Column(name, kind, *args, nullable=True, **kwargs)


def _serial() -> Column[Any]:
    return Column("id", Integer, primary_key=True, autoincrement=True)


def _moment(name: str, **kwargs: Any) -> Column[Any]:
    return _col(name, DateTime(timezone=True), **kwargs)


def _record_ref(name: str, **kwargs: Any) -> Column[Any]:
    """A record's id whose row goes when the record does."""
    return _col(name, String(RECORD_ID), ForeignKey("records.id", ondelete="CASCADE"), **kwargs)


records = Table(
    "records",
    metadata,
    Column("id", String(RECORD_ID), primary_key=True),
    _col("domain", String(100), index=True),
    _col("category", String(100)),
    _null("subcategory", String(100)),
    _col("signature", Text),
    _col("regex", Text),
    _col("root_cause", Text),
    _null("root_cause_type", String(100)),
    _col("versions", Json),
    _col("os_specific", Json),
    _null("official_doc_url", Text),
    _null("official_doc_section", Text),
    _null("error_code", String(100)),
    _col("verification_tier", String(50)),
    _null("confidence", Float),
    _null("fix_success_rate", Float),
    _col("resolvable", String(10)),
    _null("first_seen", Date),
    _null("last_confirmed", Date, index=True),
    _null("last_updated", Date),
    _col("evidence_count", Integer, default=0),
    _col("tags", Json),
    _col("locale", String(20)),
    _col("aliases", Json),
    _col("extra", Json),
    _col("graph_extra", Json),
    _col("content_hash", String(64)),
    _moment("created_at"),
    _moment("updated_at"),
)

#: A translatable field of a record in one locale (a string or a list).
record_translations = Table(
    "record_translations",
    metadata,
    _record_ref("record_id", primary_key=True),
    Column("locale", String(20), primary_key=True),
    Column("field", String(50), primary_key=True),
    _col("value", Json),
)

workarounds = Table(
    "workarounds",
    metadata,
    _serial(),
    _record_ref("record_id"),
    _col("position", Integer),
    _col("action", Text),
    _null("success_rate", Float),
    _col("how", Text),
    _col("condition", Text),
    _col("sources", Json),
    _col("extra", Json),
    _col("fixed_count", Integer, default=0),
    _col("failed_count", Integer, default=0),
    UniqueConstraint("record_id", "position"),
)

dead_ends = Table(
    "dead_ends",
    metadata,
    _serial(),
    _record_ref("record_id"),
    _col("position", Integer),
    _col("action", Text),
    _col("why_fails", Text),
    _null("fail_rate", Float),
    _col("condition", Text),
    _col("sources", Json),
    _col("extra", Json),
    UniqueConstraint("record_id", "position"),
)

#: A transition-graph link; ``target_id`` may name a record not in the store.
links = Table(
    "links",
    metadata,
    _serial(),
    _record_ref("source_id"),
    _col("kind", String(40)),
    _col("position", Integer),
    _col("target_id", String(RECORD_ID)),
    _null("probability", Float),
    _null("condition", Text),
    _col("is_object", Boolean, default=True),
    _col("extra", Json),
    UniqueConstraint("source_id", "kind", "position"),
    Index("ix_links_target_kind", "target_id", "kind"),
)

#: Who changed which record, when, and what it was before and after.
audit_log = Table(
    "audit_log",
    metadata,
    _serial(),
    _moment("at", index=True),
    _col("actor", String(200)),
    _col("record_id", String(RECORD_ID), index=True),
    _col("action", String(50)),
    _null("before", Json),
    _null("after", Json),
)

#: Small named counters: the knowledge version (``kb_version``), the oldest
#: version the change feed can still answer from (``knowledge_floor``) and the
#: database's knowledge epoch (``knowledge_epoch``).
kb_state = Table(
    "kb_state",
    metadata,
    Column("key", String(50), primary_key=True),
    _col("value", Integer, default=0),
)

#: The latest change to one record's knowledge: the version that made it and how.
#: ``kind`` is ``upserted`` or ``removed`` (deleted or deprecated). One row per
#: record, so the feed never holds more rows than records ever known; rows of
#: records long gone are pruned and ``knowledge_floor`` says from where.
knowledge_changes = Table(
    "knowledge_changes",
    metadata,
    Column("record_id", String(RECORD_ID), primary_key=True),
    _col("seq", Integer, index=True),
    _col("kind", String(10)),
    _moment("at"),
    Index("ix_knowledge_changes_kind_at", "kind", "at"),
)

#: An error seen in a conversation scope (a Slack thread, a CLI ``--session``).
thread_errors = Table(
    "thread_errors",
    metadata,
    _serial(),
    _col("scope", String(200)),
    _col("record_id", String(RECORD_ID)),
    _moment("seen_at"),
    Index("ix_thread_errors_scope_seen", "scope", "seen_at"),
)

#: A transition A→B seen in use; kept apart from the curated links.
observed_transitions = Table(
    "observed_transitions",
    metadata,
    Column("source_id", String(RECORD_ID), primary_key=True),
    Column("target_id", String(RECORD_ID), primary_key=True),
    _col("count", Integer, default=0),
    _moment("first_seen"),
    _moment("last_seen"),
)

# -- the Slack bot ---------------------------------------------------------------

#: A Slack user's own choice of answer language (``/errkb lang``).
slack_users = Table(
    "slack_users",
    metadata,
    Column("user_id", String(50), primary_key=True),
    _col("locale", String(20)),
    _moment("updated_at"),
)

#: What errkb showed (kind + args), so buttons can re-render, share or vote on it.
slack_replies = Table(
    "slack_replies",
    metadata,
    _serial(),
    _col("kind", String(20)),
    _col("locale", String(20)),
    _col("user_id", String(50)),
    _col("channel", String(50)),
    _null("thread_ts", String(50)),
    _col("args", Json),
    _moment("created_at"),
    Index("ix_slack_replies_user_id_created_at", "user_id", "created_at"),
    Index("ix_slack_replies_channel_thread_ts", "channel", "thread_ts"),
)

#: One user's verdict on one workaround in one thread; changeable, never duplicated.
slack_votes = Table(
    "slack_votes",
    metadata,
    _serial(),
    _col("user_id", String(50)),
    _record_ref("record_id", index=True),
    _col("position", Integer),
    _col("thread", String(120)),
    _col("verdict", String(10)),
    _moment("created_at"),
    _moment("updated_at"),
    UniqueConstraint("user_id", "record_id", "position", "thread"),
)

#: An error pasted in Slack that matched nothing, by normalised template.
unknown_errors = Table(
    "unknown_errors",
    metadata,
    _serial(),
    _col("template_hash", String(64), unique=True),
    _col("template", Text),
    _col("sample", Text),
    _col("count", Integer, default=0),
    _moment("first_seen"),
    _moment("last_seen", index=True),
    _col("permalinks", Json),
    _null("source", String(100)),  # the app that posted it, when it came from a monitoring alert
)

#: Where an unknown error was pasted: one row per thread, so that when a record
#: for it is added the thread is told once (``told_at``).
unknown_sightings = Table(
    "unknown_sightings",
    metadata,
    _serial(),
    _col("unknown_id", Integer, ForeignKey("unknown_errors.id", ondelete="CASCADE")),
    _col("channel", String(50)),
    _col("thread_ts", String(50)),
    _col("user_id", String(50)),
    _moment("at"),
    _null("told_at", DateTime(timezone=True)),
    _null("told_record", String(RECORD_ID)),
    # the reply people marked as what fixed it (a check-mark reaction, "that worked")
    _null("fix_text", Text),
    _null("fix_user", String(50)),
    _null("fix_ts", String(50)),
    _null("fix_permalink", Text),
    UniqueConstraint("unknown_id", "channel", "thread_ts"),
)

#: A channel's own errkb settings (``/errkb channel``); a channel without a row has the defaults.
channel_settings = Table(
    "channel_settings",
    metadata,
    Column("channel", String(50), primary_key=True),
    _col("mode", String(10)),
    _null("threshold", Float),
    _null("locale", String(20)),
    _col("alerts", Boolean, server_default=false()),  # answer other apps' monitoring alerts here
    _col("updated_by", String(50)),
    _moment("updated_at"),
)

# -- staleness digest ------------------------------------------------------------

#: A record's life in the knowledge base, apart from its knowledge: deprecation,
#: snoozes, and when it was last put in a digest (the reminder throttle).
record_state = Table(
    "record_state",
    metadata,
    _record_ref("record_id", primary_key=True),
    _null("deprecated_at", DateTime(timezone=True)),
    _null("deprecated_by", String(200)),
    _null("deprecated_reason", Text),
    _null("snoozed_until", Date),
    _null("last_digested_at", DateTime(timezone=True)),
)

#: A record answered a paste in Slack: the usage that ranks stale records.
match_events = Table(
    "match_events",
    metadata,
    _serial(),
    _col("record_id", String(RECORD_ID)),
    _moment("at", index=True),
    Index("ix_match_events_record_at", "record_id", "at"),
)

# -- durable work ----------------------------------------------------------------

#: A unit of Slack work, written before Slack is acknowledged and done from here.
#: ``key`` is unique (the event, or the message it carries): a redelivery to any
#: replica finds it taken. A worker claims a due job with a lease; a job whose
#: lease ran out (its process died) is claimed again. ``stage`` and ``result``
#: record how far an attempt got (``posting`` before an answer is sent, the
#: answer's ``ts`` after), so a retry never answers twice.
slack_jobs = Table(
    "slack_jobs",
    metadata,
    _serial(),
    _col("key", String(200), unique=True),
    _col("kind", String(50)),
    _null("team_id", String(50)),
    _null("channel", String(50)),
    _col("payload", Json),
    _col("status", String(20)),
    _col("attempts", Integer, default=0),
    _moment("run_after"),
    _moment("deadline"),
    _null("lease_owner", String(200)),
    _null("lease_until", DateTime(timezone=True)),
    _null("stage", String(50)),
    _null("result", Json),
    _null("last_error", Text),
    _moment("created_at", index=True),
    _null("finished_at", DateTime(timezone=True)),
    Index("ix_slack_jobs_status_run_after", "status", "run_after"),
)

#: What people taught errkb about one error (by normalised template): the record
#: that answers it, or none. The latest choice holds; a maintainer may undo it (inactive).
corrections = Table(
    "corrections",
    metadata,
    _serial(),
    _col("template_hash", String(64), unique=True),
    _col("template", Text),
    _col("sample", Text),
    _null("record_id", String(RECORD_ID)),  # None: no record answers it
    _null("wrong_id", String(RECORD_ID), index=True),  # what errkb had said
    _col("user_id", String(50)),
    _null("channel", String(50)),
    _col("active", Boolean, default=True),
    _moment("at", index=True),
)
