"""channel settings, unknown-error sightings, replies by user and by thread

``channel_settings``: a channel's mode, answer threshold and language
(``/errkb channel``). ``unknown_sightings``: the threads an unknown error was
pasted in, so they can be told once a record for it exists. ``slack_replies``
is read by user (the Home tab's recent answers) and by thread (a follow-up's
language).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-08
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "channel_settings",
        sa.Column("channel", sa.String(length=50), nullable=False),
        sa.Column("mode", sa.String(length=10), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=True),
        sa.Column("locale", sa.String(length=20), nullable=True),
        sa.Column("updated_by", sa.String(length=50), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("channel", name=op.f("pk_channel_settings")),
    )
    op.create_table(
        "unknown_sightings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("unknown_id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=50), nullable=False),
        sa.Column("thread_ts", sa.String(length=50), nullable=False),
        sa.Column("user_id", sa.String(length=50), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("told_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("told_record", sa.String(length=300), nullable=True),
        sa.ForeignKeyConstraint(
            ["unknown_id"],
            ["unknown_errors.id"],
            ondelete="CASCADE",
            name=op.f("fk_unknown_sightings_unknown_id_unknown_errors"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_unknown_sightings")),
        sa.UniqueConstraint(
            "unknown_id", "channel", "thread_ts", name=op.f("uq_unknown_sightings_unknown_id")
        ),
    )

    with op.batch_alter_table("slack_replies", schema=None) as batch_op:
        batch_op.create_index(
            "ix_slack_replies_user_id_created_at", ["user_id", "created_at"], unique=False
        )
        batch_op.create_index(
            "ix_slack_replies_channel_thread_ts", ["channel", "thread_ts"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("slack_replies", schema=None) as batch_op:
        batch_op.drop_index("ix_slack_replies_channel_thread_ts")
        batch_op.drop_index("ix_slack_replies_user_id_created_at")
    op.drop_table("unknown_sightings")
    op.drop_table("channel_settings")
