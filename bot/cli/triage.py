"""Commands: triage, eval."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.panel import Panel
from rich.table import Table

from bot.cli.common import console, emit_json, fail
from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.records import Record

RecordsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--records", help="Record files to load in memory instead of the database (repeatable)."
    ),
]


def _records(paths: list[Path] | None) -> list[Record]:
    if paths:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            fail(f"no such file: {', '.join(missing)}")
        from bot.ingest import load_records

        return load_records(list(paths))
    from bot.cli.common import open_default_store
    from bot.store.repository import load_records as load_stored

    store = open_default_store()
    with store.transaction() as session:
        return load_stored(session)


def _index(paths: list[Path] | None) -> MatchIndex:
    records = _records(paths)
    if not records:
        fail(
            "the knowledge base is empty: import records first (errkb import FILE) or pass --records"
        )
    return MatchIndex.build(records)


def _read_paste(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    if not path.is_file():
        fail(f"no such file: {source}")
    return path.read_bytes().decode("utf-8", errors="replace")


def _best_text(record: Record, lang: str) -> dict[str, Any]:
    signature, _ = record.text("signature", lang)
    root_cause, _ = record.text("root_cause", lang)
    workarounds, _ = record.text("workarounds", lang)
    dead_ends, _ = record.text("dead_ends", lang)
    ranked = sorted(
        zip(workarounds, record.workarounds, strict=False),
        key=lambda pair: -(pair[1].success_rate or 0.0),
    )
    return {
        "id": record.id,
        "signature": signature,
        "root_cause": root_cause,
        "workarounds": [{"action": text, "success_rate": w.success_rate} for text, w in ranked],
        "dead_ends": [
            {"action": text, "why_fails": d.why_fails, "fail_rate": d.fail_rate}
            for text, d in zip(dead_ends, record.dead_ends, strict=False)
        ],
    }


def _as_json(result: Triage, index: MatchIndex, lang: str) -> dict[str, Any]:
    best = index.record(result.best.record_id) if result.best else None
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
        "best": _best_text(best, lang) if best is not None and result.answered else None,
    }


def _show(result: Triage, index: MatchIndex, lang: str) -> None:
    best = result.best
    if best is None:
        console.print("[bold]Nothing known[/] about this paste: no record matches it.")
        return
    if result.answered:
        record = index.record(best.record_id)
        assert record is not None
        text = _best_text(record, lang)
        body = f"[bold]{text['signature']}[/]\n\n[bold]Root cause[/]: {text['root_cause']}"
        console.print(
            Panel(body, title=f"{best.record_id}  ({best.band}, {best.score:.2f})", expand=False)
        )
        table = Table("workaround", "success", title="Workarounds (best first)")
        for item in text["workarounds"]:
            rate = item["success_rate"]
            table.add_row(item["action"], "" if rate is None else f"{rate:.0%}")
        console.print(table)
        for item in text["dead_ends"]:
            console.print(f"[red]dead end[/]: {item['action']}", highlight=False)
        console.print(f"[dim]matched line {best.line_no}: {best.line[:200]}[/]", highlight=False)
        return
    console.print("[yellow]Not sure[/]: no confident answer. Closest candidates (uncertain):")
    table = Table("record", "score", "band", "line")
    for m in result.matches[:5]:
        table.add_row(m.record_id, f"{m.score:.2f}", m.band, m.line[:80])
    console.print(table)


def triage(
    source: Annotated[str, typer.Argument(help="File with the paste, or - for stdin.")] = "-",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    lang: Annotated[str, typer.Option("--lang", help="Locale of the answer (en, zh, ...).")] = "en",
    records: RecordsOption = None,
) -> None:
    """Name the record that answers a pasted error, or say that none does.

    Example: errkb triage crash.log --records data/records.jsonl --lang zh
    """
    paste = _read_paste(source)
    index = _index(records)
    result = index.triage(paste)
    if as_json:
        emit_json(_as_json(result, index, lang))
    else:
        _show(result, index, lang)


def evaluate(
    cases: Annotated[
        Path, typer.Argument(help="Labelled pastes, JSONL (shared/eval/dev.jsonl format).")
    ],
    records: RecordsOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Include per-case results.")] = False,
) -> None:
    """Score the matcher on labelled pastes (top-1, top-3, MRR, declines, latency).

    Example: errkb eval ../shared/eval/dev.jsonl --records ../shared/corpora/deadends/deadends-canons.jsonl.gz --json
    """
    from pydantic import ValidationError

    from bot.match.eval import evaluate as run_eval
    from bot.match.eval import read_cases

    if not cases.is_file():
        fail(f"no such file: {cases}")
    try:
        labelled = read_cases(cases)
    except (ValueError, ValidationError) as exc:
        fail(f"{cases}: not a JSONL file of labelled cases ({str(exc).splitlines()[0]})")
    report = run_eval(_index(records), labelled, time.perf_counter)
    if as_json:
        emit_json(report.summary(verbose=verbose))
        return
    table = Table("cases", "top-1", "top-3", "MRR", "declines", "median ms", "p99 ms")
    table.add_row(
        str(report.cases), f"{report.top1:.3f}", f"{report.top3:.3f}", f"{report.mrr:.3f}",
        f"{report.decline:.3f}", f"{report.median_ms:.2f}", f"{report.p99_ms:.2f}",
    )  # fmt: skip
    console.print(table)
    if verbose:
        detail = Table("case", "ok", "top", "band", "ms")
        for r in report.results:
            ok = r.top1 if r.positive else r.correct_decline
            top = r.top[0] if r.top else ("-", 0.0, "-")
            detail.add_row(r.id, "yes" if ok else "[red]no[/]", top[0], top[2], f"{r.ms:.2f}")
        console.print(detail)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("triage")(triage)
    app.command("eval")(evaluate)
