"""A stored reply rendered again from the knowledge base as it is now. Pure.

Replies are stored as what they showed (``kind`` and ``args``: records, the
person's lines, which error and whether expanded), so a vote, "More", "Next
error", a correction or "Share in channel" renders the same reply afresh.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any, Protocol

from bot.fit.duplicates import several_note
from bot.fit.order import PasteFacts
from bot.match.excerpt import Skipped
from bot.match.index import MatchIndex
from bot.records import Record
from bot.render import blocks, panels
from bot.render.answer import Shown, render_answer
from bot.render.kit import Message
from bot.render.state import AddState
from bot.report import graph_sections
from graph.build import KnowledgeGraph


class StoredReply(Protocol):
    """What :func:`stored_view` reads of a stored reply (``bot.store.slack_repo.Reply`` has it)."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def locale(self) -> str: ...
    @property
    def args(self) -> dict[str, Any]: ...


def shown_of(args: Mapping[str, Any], *, removable: bool = True) -> Shown:
    view = args.get("view") or {}
    return Shown(
        page=int(view.get("page", 0)),
        expanded=bool(view.get("expanded", False)),
        lines=dict(args.get("lines") or {}),
        removable=removable,
    )


def stored_view(
    reply: StoredReply,
    *,
    kb: MatchIndex,
    kg: KnowledgeGraph | None,
    counts: blocks.Counts,
    today: date,
    ephemeral: bool,
    note: str | None = None,
    fresh: Mapping[str, Record] | None = None,
) -> Message:
    """``reply`` rendered now (``fresh``: records with their evidence as stored, which the
    index may hold stale)."""

    def record(record_id: str) -> Record | None:
        return (fresh or {}).get(record_id) or kb.record(record_id)

    args = reply.args
    add = AddState(**args["add"]) if args.get("add") else None
    view = blocks.Reply(
        locale=reply.locale,
        today=today,
        reply_id=reply.id,
        ephemeral=ephemeral,
        note=note,
        cut_at=args.get("cut_at"),
        add=add,
        skipped=Skipped(**args["skipped"]) if args.get("skipped") else None,
        facts=PasteFacts.load(args["paste"]) if args.get("paste") else None,
    )
    if reply.kind == "answer":
        records = [r for r in map(record, args["records"]) if r is not None]
        if records:
            graph = graph_sections(kg, [r.id for r in records], locale=reply.locale)
            variants = args.get("variants") or {}
            several = {
                r.id: note
                for r in records
                if (
                    note := several_note(
                        reply.locale, r, variants.get(r.id, ()), view.facts, record
                    )
                )
            }
            return render_answer(records, view, shown_of(args), graph, counts, variants, several)
    if reply.kind == "candidates":
        found = [(record(rid), score) for rid, score in args["candidates"]]
        candidates = [(r, s) for r, s in found if r is not None]
        if candidates:
            return blocks.render_candidates(candidates, view)
    if reply.kind == "record":
        shown = record(args["record"])
        if shown is not None:
            graph = graph_sections(kg, [shown.id], locale=reply.locale)
            return panels.render_record(shown, view, graph)
    if reply.kind == "search":
        hits = [(record(rid), score) for rid, score in kb.search(args["words"], limit=10)]
        return panels.render_search(args["words"], [(r, s) for r, s in hits if r is not None], view)
    return blocks.render_nothing(view, args.get("errors", []))


__all__ = ["StoredReply", "shown_of", "stored_view"]
