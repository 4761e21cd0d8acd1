"""corrections: what people taught errkb about an error it answered wrongly

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "corrections",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("template_hash", sa.String(length=64), nullable=False),
        sa.Column("template", sa.Text(), nullable=False),
        sa.Column("sample", sa.Text(), nullable=False),
        sa.Column("record_id", sa.String(length=300), nullable=True),
        sa.Column("wrong_id", sa.String(length=300), nullable=True),
        sa.Column("user_id", sa.String(length=50), nullable=False),
        sa.Column("channel", sa.String(length=50), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_corrections")),
        sa.UniqueConstraint("template_hash", name=op.f("uq_corrections_template_hash")),
    )
    with op.batch_alter_table("corrections", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_corrections_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_corrections_wrong_id"), ["wrong_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("corrections", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_corrections_wrong_id"))
        batch_op.drop_index(batch_op.f("ix_corrections_at"))
    op.drop_table("corrections")
