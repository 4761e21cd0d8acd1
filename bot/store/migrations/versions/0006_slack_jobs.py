"""slack jobs: durable Slack work, written before Slack is acknowledged

The job's unique key de-duplicates deliveries, so ``slack_events`` goes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.drop_table("slack_events")
    op.create_table(
        "slack_jobs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=50), nullable=False),
        sa.Column("team_id", sa.String(length=50), nullable=True),
        sa.Column("channel", sa.String(length=50), nullable=True),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("run_after", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_owner", sa.String(length=200), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("stage", sa.String(length=50), nullable=True),
        sa.Column("result", JSON, nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_slack_jobs")),
        sa.UniqueConstraint("key", name=op.f("uq_slack_jobs_key")),
    )
    with op.batch_alter_table("slack_jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_slack_jobs_created_at"), ["created_at"], unique=False)
        batch_op.create_index(
            "ix_slack_jobs_status_run_after", ["status", "run_after"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("slack_jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_slack_jobs_status_run_after")
        batch_op.drop_index(batch_op.f("ix_slack_jobs_created_at"))
    op.drop_table("slack_jobs")
    op.create_table(
        "slack_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("event_id", sa.String(length=100), nullable=False),
        sa.Column("client_msg_id", sa.String(length=100), nullable=True),
        sa.Column("kind", sa.String(length=50), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_slack_events")),
        sa.UniqueConstraint("client_msg_id", name=op.f("uq_slack_events_client_msg_id")),
        sa.UniqueConstraint("event_id", name=op.f("uq_slack_events_event_id")),
    )
