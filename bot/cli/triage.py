"""Command: triage."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from bot.cli.common import console, emit_json, fail, open_default_store, settings
from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.records import Record
from bot.render.blocks import Graph
from bot.render.terminal import record_panel
from bot.store.db import Store
from graph.build import KnowledgeGraph, build_graph
from graph.triage import triage_sections

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
    from bot.store import digest_repo, repository
    from bot.store.observed import list_observed

    store = open_default_store()
    with store.transaction() as session:
        gone = digest_repo.deprecated_ids(session)
        records = [r for r in repository.load_records(session) if r.id not in gone]
        observed = list_observed(session)
    return Knowledge(records, build_graph(records, observed=observed), store)


def _index(records: list[Record]) -> MatchIndex:
    if not records:
        fail(
            "the knowledge base is empty: run errkb init, import records (errkb import FILE) or pass --records"
        )
    return MatchIndex.build(records)


def _read_paste(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    if not path.is_file():
        fail(f"no such file: {source}")
    return path.read_bytes().decode("utf-8", errors="replace")


def _record_json(record: Record, lang: str) -> dict[str, Any]:
    signature, used = record.text("signature", lang)
    root_cause, _ = record.text("root_cause", lang)
    workarounds, _ = record.text("workarounds", lang)
    dead_ends, _ = record.text("dead_ends", lang)
    ranked = sorted(
        range(len(record.workarounds)),
        key=lambda i: (-(record.workarounds[i].success_rate or 0.0), i),
    )
    return {
        "id": record.id,
        "locale": used,
        "signature": signature,
        "root_cause": root_cause,
        "workarounds": [
            {
                "action": workarounds[i],
                "success_rate": record.workarounds[i].success_rate,
                "how": record.workarounds[i].how,
            }
            for i in ranked
        ],
        "dead_ends": [
            {"action": text, "why_fails": d.why_fails, "fail_rate": d.fail_rate}
            for text, d in zip(dead_ends, record.dead_ends, strict=False)
        ],
        "last_confirmed": record.last_confirmed.isoformat() if record.last_confirmed else None,
        "official_doc_url": record.official_doc_url,
    }


def _as_json(
    result: Triage, index: MatchIndex, sections: dict[str, Any] | None, lang: str
) -> dict[str, Any]:
    answers = [index.record(rid) for rid in _cause_first(result, sections)]
    return {
        "answered": result.answered,
        "errors": [
            {"index": e.index, "line_no": e.line_no, "kind": e.kind, "role": e.role, "text": e.text}
            for e in result.errors
        ],
        "matches": [
            {
                "id": m.record_id,
                "score": m.score,
                "band": m.band,
                "line": m.line,
                "error_index": m.error_index,
            }
            for m in result.matches
        ],
        "answers": [_record_json(r, lang) for r in answers if r is not None],
        "best": _record_json(answers[0], lang) if answers and answers[0] is not None else None,
        **(sections or {"causes": [], "next": [], "confused_with": [], "order": None}),
    }


def _cause_first(result: Triage, sections: dict[str, Any] | None) -> list[str]:
    return Graph(sections or {}).order(result.answer_ids())


def _first_line(text: str, limit: int = 120) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _show_graph(sections: dict[str, Any], record_id: str) -> None:
    def items(kind: str) -> list[dict[str, Any]]:
        return Graph(sections).items(kind, record_id)

    causes = items("causes")
    if causes:
        console.print("[bold]Usually preceded by[/] (root-cause candidates):")
        for c in causes:
            hops = f", {c['hops']} steps back" if c["hops"] > 1 else ""
            console.print(
                f"  {c['score']:.0%}{hops}  {_first_line(c['label'])}",
                highlight=False,
                markup=False,
            )
    following = items("next")
    if following:
        console.print("[bold]What to expect next[/] once fixed:")
        for n in following:
            chance = f"{n['probability']:.0%}" if n.get("probability") is not None else "?"
            when = f" (when {n['conditions'][0]})" if n.get("conditions") else ""
            console.print(
                f"  {chance}  {_first_line(n['label'])}{when}", highlight=False, markup=False
            )
    alike = items("confused_with")
    if alike:
        console.print("[bold]Often confused with[/]:")
        for a in alike:
            tell = f" — {a['distinctions'][0]}" if a.get("distinctions") else ""
            console.print(f"  {_first_line(a['label'])}{tell}", highlight=False, markup=False)


def _show(result: Triage, index: MatchIndex, sections: dict[str, Any] | None, lang: str) -> None:
    if result.best is None:
        console.print("[bold]Nothing known[/] about this paste: no record matches it.")
        return
    if not result.answered:
        console.print("[yellow]Not sure[/]: no confident answer. Closest candidates (uncertain):")
        table = Table("record", "score", "band", "line")
        for m in result.matches[:5]:
            table.add_row(m.record_id, f"{m.score:.2f}", m.band, m.line[:80])
        console.print(table)
        return
    ids = _cause_first(result, sections)
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
        if sections:
            _show_graph(sections, rid)
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
    """Name the record that answers a pasted error, or say that none does.

    With several errors in one paste they are ordered cause first along the
    transition graph; each answer says what usually precedes it, what comes
    next and what it is confused with.

    Example: [bold]errkb triage crash.log --lang zh[/]
    """
    paste = _read_paste(source)
    knowledge = _knowledge(records)
    index = _index(knowledge.records)
    result = index.triage(paste)
    ids = result.answer_ids()
    sections = triage_sections(knowledge.graph, ids, locale=lang) if ids else None
    if session_name and ids:
        if knowledge.store is None:
            fail("--session records what it sees in the database: leave out --records")
        _observe(knowledge.store, session_name, ids, settings().observe_window_hours)
    if knowledge.store is not None:
        knowledge.store.dispose()
    if as_json:
        emit_json(_as_json(result, index, sections, lang))
    else:
        _show(result, index, sections, lang)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("triage")(triage)
