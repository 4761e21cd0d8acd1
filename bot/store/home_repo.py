"""What the App Home tab reads. Keyword-only arguments; nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.store.models import SlackReplyRow, UnknownErrorRow

#: Reply kinds that answered someone's paste.
ANSWER_KINDS = ("answer", "candidates")


@dataclass(frozen=True)
class AnswerSeen:
    """An answer errkb gave: where and when, and its records (best first)."""

    reply_id: int
    kind: str
    channel: str
    thread_ts: str | None
    at: datetime
    records: tuple[str, ...]


def _records(kind: str, args: dict[str, Any]) -> tuple[str, ...]:
    if kind == "answer":
        return tuple(str(r) for r in args.get("records") or [])
    return tuple(str(pair[0]) for pair in args.get("candidates") or [] if pair)


def recent_answers(session: Session, *, user_id: str, limit: int) -> list[AnswerSeen]:
    """The answers errkb gave ``user_id`` (to their pastes, or shared by them), newest first."""
    rows = session.scalars(
        select(SlackReplyRow)
        .where(SlackReplyRow.user_id == user_id, SlackReplyRow.kind.in_(ANSWER_KINDS))
        .order_by(SlackReplyRow.created_at.desc(), SlackReplyRow.id.desc())
        .limit(limit)
    )
    return [
        AnswerSeen(
            row.id,
            row.kind,
            row.channel,
            row.thread_ts,
            row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC),
            _records(row.kind, dict(row.args)),
        )
        for row in rows
    ]


def unknown_count(session: Session) -> int:
    """How many distinct unknown errors were seen."""
    return int(session.scalar(select(func.count()).select_from(UnknownErrorRow)) or 0)


__all__ = ["AnswerSeen", "recent_answers", "unknown_count"]
