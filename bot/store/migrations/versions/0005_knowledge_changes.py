"""knowledge changes: the per-record change feed of the knowledge version

One row per record: the knowledge version (``kb_state.kb_version``) that
last changed it and how (upserted or removed). ``kb_state.knowledge_floor``
is the oldest version the feed answers from: the version at this migration,
since nothing before it was written down.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "knowledge_changes",
        sa.Column("record_id", sa.String(length=300), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("record_id", name=op.f("pk_knowledge_changes")),
    )
    op.create_index(op.f("ix_knowledge_changes_seq"), "knowledge_changes", ["seq"], unique=False)
    op.create_index(
        "ix_knowledge_changes_kind_at", "knowledge_changes", ["kind", "at"], unique=False
    )
    state = sa.table("kb_state", sa.column("key", sa.String), sa.column("value", sa.Integer))
    version = op.get_bind().scalar(sa.select(state.c.value).where(state.c.key == "kb_version"))
    if version is None:
        op.bulk_insert(state, [{"key": "kb_version", "value": 0}])
    op.bulk_insert(state, [{"key": "knowledge_floor", "value": version or 0}])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM kb_state WHERE key = 'knowledge_floor'"))
    op.drop_index("ix_knowledge_changes_kind_at", table_name="knowledge_changes")
    op.drop_index(op.f("ix_knowledge_changes_seq"), table_name="knowledge_changes")
    op.drop_table("knowledge_changes")
