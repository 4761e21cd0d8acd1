"""digests are keyed jobs: digest_runs goes

A period's digest is now the job ``digest:{period}:{audience}`` in ``slack_jobs``,
under the lease every job has. The digests already posted are carried over as
done jobs, so an upgrade in the middle of a period does not post that period's
digest a second time; a claim still in flight or a failed try is not: the
scheduler's next tick claims the period's job afresh. Downgrading carries the
done ones back.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

_runs = sa.table(
    "digest_runs",
    sa.column("period", sa.String),
    sa.column("audience", sa.String),
    sa.column("status", sa.String),
    sa.column("claimed_by", sa.String),
    sa.column("claimed_at", sa.DateTime(timezone=True)),
    sa.column("lease_until", sa.DateTime(timezone=True)),
    sa.column("attempts", sa.Integer),
    sa.column("done_at", sa.DateTime(timezone=True)),
    sa.column("channel", sa.String),
    sa.column("message_ts", sa.String),
    sa.column("last_error", sa.Text),
)
_jobs = sa.table(
    "slack_jobs",
    sa.column("key", sa.String),
    sa.column("kind", sa.String),
    sa.column("team_id", sa.String),
    sa.column("channel", sa.String),
    sa.column("payload", _JSON),
    sa.column("status", sa.String),
    sa.column("attempts", sa.Integer),
    sa.column("run_after", sa.DateTime(timezone=True)),
    sa.column("deadline", sa.DateTime(timezone=True)),
    sa.column("stage", sa.String),
    sa.column("result", _JSON),
    sa.column("last_error", sa.Text),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("finished_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    bind = op.get_bind()
    done = bind.execute(sa.select(_runs).where(_runs.c.status == "done")).mappings().all()
    taken = set(bind.execute(sa.select(_jobs.c.key).where(_jobs.c.kind == "digest")).scalars())
    rows = []
    for run in done:
        key = f"digest:{run['period']}:{run['audience']}"
        if key in taken:
            continue
        finished = run["done_at"] or run["claimed_at"]
        rows.append(
            {
                "key": key,
                "kind": "digest",
                "team_id": None,
                "channel": None,
                "payload": {"period": run["period"], "audience": run["audience"]},
                "status": "done",
                "attempts": run["attempts"],
                "run_after": run["claimed_at"],
                "deadline": finished,
                "stage": "posted",
                "result": {
                    "by": run["claimed_by"],
                    "channel": run["channel"],
                    "ts": run["message_ts"],
                },
                "last_error": None,
                "created_at": run["claimed_at"],
                "finished_at": finished,
            }
        )
    if rows:
        op.bulk_insert(_jobs, rows)
    op.drop_table("digest_runs")


def downgrade() -> None:
    op.create_table(
        "digest_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("period", sa.String(length=40), nullable=False),
        sa.Column("audience", sa.String(length=120), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("claimed_by", sa.String(length=200), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("channel", sa.String(length=50), nullable=True),
        sa.Column("message_ts", sa.String(length=50), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_digest_runs")),
        sa.UniqueConstraint("period", "audience", name=op.f("uq_digest_runs_period")),
    )
    bind = op.get_bind()
    jobs = bind.execute(
        sa.select(_jobs).where(_jobs.c.kind == "digest", _jobs.c.status == "done")
    ).mappings()
    rows = []
    for job in jobs:
        posted = dict(job["result"] or {})
        rows.append(
            {
                "period": job["payload"]["period"],
                "audience": job["payload"]["audience"],
                "status": "done",
                "claimed_by": posted.get("by") or "",
                "claimed_at": job["created_at"],
                "lease_until": job["finished_at"] or job["created_at"],
                "attempts": job["attempts"],
                "done_at": job["finished_at"],
                "channel": posted.get("channel"),
                "message_ts": posted.get("ts"),
                "last_error": None,
            }
        )
    if rows:
        op.bulk_insert(_runs, rows)
