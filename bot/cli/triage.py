"""Command: triage.

A one-shot command: the match index is built without warming every regex up
(:class:`~bot.match.index.MatchIndex` ``warm``), the few branches a paste
needs are compiled as it needs them. What the usual run (from the database,
answered) needs is imported with this module, while the command group holds
the garbage collector off (:func:`bot.cli.group.load`): imported later, the
same modules cost more.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import console, emit_json, fail, open_default_store, settings
from bot.match.excerpt import Skipped
from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.match.reader import prefer_reader
from bot.records import Record
from bot.render.blocks import skipped_note
from bot.render.terminal import record_panel
from bot.report import Cause, Counts, LookAlike, NextError, TriageReport, build_report
from bot.store.db import Store
from bot.store.loading import load_records as read_records
from bot.store.loading import workaround_counts
from bot.store.observed import list_observed
from graph.build import KnowledgeGraph, build_graph

RecordsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--records", help="Record files to load in memory instead of the database (repeatable)."
    ),
]


@dataclass
class Knowledge:
    """What a triage runs against: records (from files or the store) and their graph."""

    records: list[Record]
    graph: KnowledgeGraph
    store: Store | None = None


def _knowledge(paths: list[Path] | None) -> Knowledge:
    if paths:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            fail(f"no such file: {', '.join(missing)}")
        from bot.ingest import load_records

        records = load_records(list(paths))
        return Knowledge(records, build_graph(records))
    store = open_default_store()
    with store.read_rows() as rows:  # plain rows: a triage never loads the ORM
        records = read_records(rows, include_deprecated=False)
        observed = list_observed(rows)
    return Knowledge(records, build_graph(records, observed=observed), store)


def _index(records: list[Record], warm: bool = False) -> MatchIndex:
    """The match index of ``records``; ``warm`` for matching many pastes (see the module docstring)."""
    if not records:
        fail(
            "the knowledge base is empty: run errkb init, import records (errkb import FILE) or pass --records"
        )
    return MatchIndex.build(records, warm=warm)


def _read_paste(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    if not path.is_file():
        fail(f"no such file: {source}")
    return path.read_bytes().decode("utf-8", errors="replace")


def _first_line(text: str, limit: int = 120) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _items(sections: list[Any], record_id: str) -> list[Any]:
    return next((list(s.items) for s in sections if s.error == record_id), [])


def _show_graph(report: TriageReport, record_id: str) -> None:
    causes: list[Cause] = _items(report.causes, record_id)
    if causes:
        console.print("[bold]Usually preceded by[/] (root-cause candidates):")
        for c in causes:
            hops = f", {c.hops} steps back" if c.hops > 1 else ""
            console.print(
                f"  {c.score:.0%}{hops}  {_first_line(c.label)}", highlight=False, markup=False
            )
    following: list[NextError] = _items(report.next, record_id)
    if following:
        console.print("[bold]What to expect next[/] once fixed:")
        for n in following:
            chance = f"{n.probability:.0%}" if n.probability is not None else "?"
            when = f" (when {n.conditions[0]})" if n.conditions else ""
            console.print(
                f"  {chance}  {_first_line(n.label)}{when}", highlight=False, markup=False
            )
    alike: list[LookAlike] = _items(report.confused_with, record_id)
    if alike:
        console.print("[bold]Often confused with[/]:")
        for a in alike:
            tell = f" — {a.distinctions[0]}" if a.distinctions else ""
            console.print(f"  {_first_line(a.label)}{tell}", highlight=False, markup=False)


def _show(report: TriageReport, result: Triage, index: MatchIndex, lang: str) -> None:
    if report.skipped is not None:
        skipped = report.skipped
        note = skipped_note(lang, Skipped(skipped.chars, skipped.lines, skipped.read))
        console.print(note, style="dim", highlight=False, markup=False)
    if not result.answered and not report.matches:  # no candidate worth a look
        console.print("[bold]Nothing known[/] about this paste: no record matches it.")
        return
    if not result.answered:
        from rich.table import Table

        console.print("[yellow]Not sure[/]: no confident answer. Closest candidates (uncertain):")
        table = Table("record", "score", "band", "line")
        for m in report.matches[:5]:
            table.add_row(m.id, f"{m.score:.2f}", m.band, m.line[:80])
        console.print(table)
        return
    ids = [a.id for a in report.answers]
    if len(ids) > 1:
        console.print(
            f"[bold]{len(ids)} errors in this paste[/], cause first: fix [bold]{ids[0]}[/] first."
        )
    matches = {m.record_id: m for m in result.matches}
    for rid in ids:
        record, match = index.record(rid), matches.get(rid)
        if record is None or match is None:
            continue
        console.print(record_panel(record, lang, title=f"{rid}  ({match.band}, {match.score:.2f})"))
        _show_graph(report, rid)
        console.print(f"[dim]matched line {match.line_no}: {match.line[:200]}[/]", highlight=False)


def _observe(store: Store, session_name: str, ids: list[str], window_hours: float) -> None:
    from bot.store.observed import observe_error

    now = datetime.now(UTC)
    with store.transaction() as session:
        for rid in ids:
            observe_error(session, scope=f"cli:{session_name}", record_id=rid, seen_at=now,
                          window=timedelta(hours=window_hours))  # fmt: skip


def triage(
    source: Annotated[str, typer.Argument(help="File with the paste, or - for stdin.")] = "-",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    lang: Annotated[str, typer.Option("--lang", help="Locale of the answer (en, zh, ...).")] = "en",
    records: RecordsOption = None,
    session_name: Annotated[
        str | None,
        typer.Option(
            "--session",
            help="Name a debugging session: errors seen in it one after another "
            "are recorded as observed transitions.",
        ),
    ] = None,  # fmt: skip
) -> None:
    """With several errors in one paste they are ordered cause first along the
    transition graph; each answer says what usually precedes it, what comes
    next and what it is confused with.
    """
    from bot.answer import read_paste

    config = settings()
    read = read_paste(_read_paste(source), config.paste_limit)
    knowledge = _knowledge(records)
    index = _index(knowledge.records)
    result = prefer_reader(index.triage(read), lang, index.record)
    ids = result.answer_ids()
    counts: Counts = {}
    if knowledge.store is not None:
        counts = _counts(knowledge.store, ids)
    if session_name and ids:
        if knowledge.store is None:
            fail("--session records what it sees in the database: leave out --records")
        _observe(knowledge.store, session_name, ids, config.observe_window_hours)
    if knowledge.store is not None:
        knowledge.store.dispose()
    report = build_report(
        result, index.record, knowledge.graph, locale=lang, counts=counts, read=read
    )
    if as_json:
        emit_json(report.model_dump(mode="json"))
    else:
        _show(report, result, index, lang)


def _counts(store: Store, ids: list[str]) -> Counts:
    """What votes observed about the answers' workarounds (as Slack shows them)."""
    with store.read_rows() as rows:
        return workaround_counts(rows, record_ids=ids)
