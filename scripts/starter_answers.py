"""The replies errkb posts in a thread for the starter example pastes, made by errkb's own code.

Nothing here is written by hand: the starter knowledge base is read with
``bot.ingest``, the match index and graph are built as the bot builds them,
each example paste is cleaned and triaged as ``answer_paste`` does, and the
reply is rendered by ``stored_view`` — the function ``render_reply`` calls when
the bot posts — from the reply arguments ``reply_args`` stores. Only the
database is left out: the reply is held in memory, and no votes have been cast
(a fresh knowledge base). ``tests/slack/test_starter_replies.py`` sends a
paste to the real app over HTTP and checks that it posts exactly what
:func:`thread_reply` makes.

Figures and pictures use a fixed day (:data:`DAY`), so they change only when
the renderers or the data do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from bot import answer
from bot.fit.duplicates import prefer_general
from bot.ingest import load_records
from bot.match.index import MatchIndex
from bot.records import Record
from bot.render.blocks import Counts
from bot.render.state import AddState
from bot.render.stored import stored_view
from bot.starter import starter_dir
from bot.store.slack_repo import Reply
from graph.build import KnowledgeGraph, build_graph

DAY = date(2026, 12, 1)
LOCALES = ("en", "zh")
PASTE_LIMIT = 100_000  # the default of ERRKB_PASTE_LIMIT
CHANNEL = "C0EXAMPLE"
THREAD = "1722500000.000100"
USER = "U0EXAMPLE"


@dataclass(frozen=True)
class Knowledge:
    index: MatchIndex
    graph: KnowledgeGraph


@dataclass(frozen=True)
class Posted:
    """One reply errkb posts in a paste's thread."""

    example: str  # the example file's stem
    locale: str
    outcome: str  # answer.Outcome: answer, candidates, nothing, no_error (silent posts nothing)
    records: tuple[str, ...]
    payload: dict[
        str, Any
    ]  # {"text": ..., "blocks": [...]} as sent to chat.postMessage; {} if none


def knowledge(data: Path | None = None) -> Knowledge:
    """The starter knowledge base (``data/``), indexed and drawn as the bot does at start."""
    records = load_records([data or starter_dir()])
    graph = build_graph(records)
    graph.centralities()
    return Knowledge(MatchIndex.build(records), graph)


def example_pastes(data: Path | None = None) -> list[Path]:
    return sorted(((data or starter_dir()) / "examples").glob("*.txt"))


def thread_reply(
    kb: Knowledge,
    paste: str,
    *,
    locale: str,
    today: date = DAY,
    reply_id: int = 1,
    unknown: int = 1,
    channel: str = CHANNEL,
    thread: str = THREAD,
    limit: int = PASTE_LIMIT,
    counts: Counts | None = None,
    fresh: Mapping[str, Record] | None = None,
    asked: bool = True,
) -> tuple[str, list[str], dict[str, Any]]:
    """What the bot posts in ``thread`` for ``paste`` when asked (a mention): the outcome, the
    records answering, and the payload. ``reply_id`` and ``unknown`` stand for the rows the bot
    would have written (the reply, and the unknown error an uncertain reply offers to add);
    ``counts`` and ``fresh`` for the votes and evidence it reads (none in a new knowledge base).
    ``asked`` false: posted unasked, as a monitoring alert is answered."""
    read = answer.read_paste(paste, limit)
    triage = prefer_general(kb.index.triage(read), read.text, kb.index.record)
    outcome = answer.decide(triage, asked=asked)
    if outcome in ("silent", "no_error"):  # nothing in the thread (no_error is answered privately)
        return outcome, [], {}
    add = None
    if outcome != "answer" and triage.errors:
        add = AddState(unknown=unknown, channel=channel, thread=thread)
    args = answer.reply_args(
        outcome, triage, read, add.model_dump(exclude_none=True) if add else None, asked=asked
    )
    reply = Reply(
        id=reply_id,
        kind=outcome,
        locale=locale,
        user_id=USER,
        channel=channel,
        thread_ts=thread,
        args=args,
    )
    payload = stored_view(
        reply,
        kb=kb.index,
        kg=kb.graph,
        counts=counts or {},
        today=today,
        ephemeral=False,
        fresh=fresh,
    )
    return outcome, list(args.get("records", [])), payload


def starter_replies(
    kb: Knowledge | None = None,
    *,
    locales: Sequence[str] = LOCALES,
    today: date = DAY,
    data: Path | None = None,
) -> list[Posted]:
    """The reply to every starter example paste, in each of ``locales``."""
    kb = kb or knowledge(data)
    out = []
    for path in example_pastes(data):
        paste = path.read_text(encoding="utf-8")
        for locale in locales:
            outcome, records, payload = thread_reply(kb, paste, locale=locale, today=today)
            out.append(Posted(path.stem, locale, outcome, tuple(records), payload))
    return out


__all__ = [
    "DAY",
    "LOCALES",
    "Knowledge",
    "Posted",
    "example_pastes",
    "knowledge",
    "starter_replies",
    "thread_reply",
]
