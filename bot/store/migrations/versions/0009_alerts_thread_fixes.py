"""channel alerts setting, unknown errors' source app, fixes found in threads

``channel_settings.alerts``: whether errkb reads other apps' monitoring alerts
in the channel (off unless someone turns it on). ``unknown_errors.source``: the
app whose alert carried an unknown error. ``unknown_sightings.fix_*``: the reply
in that thread people marked as the fix, what it said and who wrote it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIX_COLUMNS = ("fix_text", "fix_user", "fix_ts", "fix_permalink")


def upgrade() -> None:
    with op.batch_alter_table("channel_settings", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("alerts", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    with op.batch_alter_table("unknown_errors", schema=None) as batch_op:
        batch_op.add_column(sa.Column("source", sa.String(length=100), nullable=True))
    with op.batch_alter_table("unknown_sightings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fix_text", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("fix_user", sa.String(length=50), nullable=True))
        batch_op.add_column(sa.Column("fix_ts", sa.String(length=50), nullable=True))
        batch_op.add_column(sa.Column("fix_permalink", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("unknown_sightings", schema=None) as batch_op:
        for name in reversed(FIX_COLUMNS):
            batch_op.drop_column(name)
    with op.batch_alter_table("unknown_errors", schema=None) as batch_op:
        batch_op.drop_column("source")
    with op.batch_alter_table("channel_settings", schema=None) as batch_op:
        batch_op.drop_column("alerts")
