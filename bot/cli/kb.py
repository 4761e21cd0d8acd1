"""Commands over the knowledge base: init, migrate, import, export, show, search, stats."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from bot.cli.common import console, emit_json, err_console, fail, open_default_store, settings
from bot.errors import ImportFailed, Problem, RecordNotFound
from bot.ingest import Format, ReadResult, dangling_links, read_records
from bot.ingest.deadends import native_to_canon
from bot.match.patterns import risky_regex
from bot.records import Record
from bot.records.clean import clean_text
from bot.render.terminal import print_record
from bot.starter import starter_dir
from bot.store import repository as repo
from bot.store.db import Store, open_store
from bot.store.staged import import_staged

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _now() -> datetime:
    return datetime.now(UTC)


def _progress(label: str) -> Progress:
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(),
        console=err_console, transient=True, disable=not err_console.is_terminal,
    )  # fmt: skip


def run_import(
    paths: list[Path], *, fmt: Format, on_conflict: repo.OnConflict, actor: str
) -> tuple[repo.ImportSummary, list[str]]:
    """Validate everything, then write it in one transaction; warnings are returned."""
    with _progress("reading") as bar:
        task = bar.add_task("read", total=None)
        result = read_records(
            paths, fmt, lambda n, total: bar.update(task, completed=n, total=total)
        )
    if result.problems:
        raise ImportFailed(result.problems)
    store = open_default_store()
    try:
        if store.engine.dialect.name == "sqlite":
            return _import_staged(store, result, on_conflict=on_conflict, actor=actor)
        with store.transaction() as session:
            known = repo.record_ids(session)
            with _progress("writing") as bar:
                task = bar.add_task("write", total=None)
                summary = repo.import_records(
                    session, records=result.records, on_conflict=on_conflict, actor=actor, now=_now(),
                    progress=lambda n, total: bar.update(task, completed=n, total=total),
                )  # fmt: skip
            if summary.conflicts:
                session.rollback()
                raise ImportFailed([
                    _conflict(result.sources.get(rid, ""), rid) for rid in summary.conflicts
                ])  # fmt: skip
    finally:
        store.dispose()
    return summary, _warnings(result, known)


def _import_staged(
    store: Store, result: ReadResult, *, on_conflict: repo.OnConflict, actor: str
) -> tuple[repo.ImportSummary, list[str]]:
    """:func:`run_import` on SQLite: staged, so the write lock is held only to apply."""
    with store.read() as session:
        known = repo.record_ids(session)
    with _progress("writing") as bar:
        task = bar.add_task("write", total=None)
        summary = import_staged(
            store, records=result.records, on_conflict=on_conflict, actor=actor, now=_now(),
            progress=lambda n, total: bar.update(task, completed=n, total=total),
        )  # fmt: skip
    if summary.conflicts:
        raise ImportFailed([_conflict(result.sources.get(rid, ""), rid) for rid in summary.conflicts])
    return summary, _warnings(result, known)


def _warnings(result: ReadResult, known: set[str]) -> list[str]:
    warnings = [
        f"{source}: {kind} → {target}: not in the knowledge base (kept)"
        for source, kind, target in dangling_links(result.records, known)
    ]
    warnings += [
        f"{record.id}: regex: {reason}"
        for record in result.records
        if (reason := risky_regex(record.regex)) is not None
    ]
    return warnings


def _conflict(place: str, record_id: str) -> Problem:
    file, _, where = place.partition(":")
    return Problem(
        file,
        where,
        record_id,
        "id",
        "already in the knowledge base with other content (--on-conflict fail)",
    )


def init(
    starter: Annotated[bool, typer.Option(help="Load the starter knowledge base.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Safe to run again: existing records are kept, starter records are updated."""
    config = settings()
    open_store(config.database_url, migrate=True).dispose()
    counts = {"added": 0, "updated": 0, "unchanged": 0, "skipped": 0}
    if starter:
        summary, _ = run_import(
            [starter_dir()], fmt="native", on_conflict="upsert", actor="errkb init"
        )
        counts = summary.counts()
    if as_json:
        emit_json({"database": _safe_url(config.database_url), **counts})
        return
    console.print(f"Database ready: [bold]{_safe_url(config.database_url)}[/]")
    if starter:
        console.print("Starter knowledge base: " + _summary_text(counts))


def migrate(as_json: JsonOpt = False) -> None:
    """Safe to run again, and from several processes at once: one migrates, the
    others wait for it and find nothing left to do. `errkb serve` refuses a
    database whose schema is not current."""
    from bot.store.db import make_engine, migrate_schema

    config = settings()
    engine = make_engine(config.database_url)
    try:
        before, after = migrate_schema(engine)
    finally:
        engine.dispose()
    if as_json:
        emit_json({"database": _safe_url(config.database_url), "before": before, "after": after})
        return
    if before == after:
        console.print(
            f"Schema already at revision {after}: [bold]{_safe_url(config.database_url)}[/]"
        )
    else:
        console.print(f"Schema migrated from revision {before or '(none)'} to {after}: "
                      f"[bold]{_safe_url(config.database_url)}[/]")  # fmt: skip


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _summary_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in counts.items())


def import_(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders of records.")],
    fmt: Annotated[
        str, typer.Option("--format", help="auto, native or deadends (auto detects each record).")
    ] = "auto",
    on_conflict: Annotated[
        str, typer.Option(help="upsert (replace), skip (keep ours) or fail when an id exists.")
    ] = "upsert",
    actor: Annotated[str, typer.Option(help="Who is importing, for the audit log.")] = "cli",
    as_json: JsonOpt = False,
) -> None:
    """Everything is validated first; one bad record and nothing is written."""
    if fmt not in ("auto", "native", "deadends"):
        fail(f"--format must be auto, native or deadends, not {fmt!r}", 2)
    if on_conflict not in ("upsert", "skip", "fail"):
        fail(f"--on-conflict must be upsert, skip or fail, not {on_conflict!r}", 2)
    summary, warnings = run_import(paths, fmt=fmt, on_conflict=on_conflict, actor=actor)  # type: ignore[arg-type]
    if as_json:
        emit_json({**summary.counts(), "warnings": warnings})
        return
    for warning in warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    console.print("Imported: " + _summary_text(summary.counts()))


def export(
    fmt: Annotated[
        str, typer.Option("--format", help="json, jsonl or deadends (JSONL of canons).")
    ] = "json",
    domain: Annotated[str | None, typer.Option(help="Only this domain.")] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default stdout).")
    ] = None,
) -> None:
    if fmt not in ("json", "jsonl", "deadends"):
        fail(f"--format must be json, jsonl or deadends, not {fmt!r}", 2)
    store = open_default_store()
    with store.read() as session:
        records = repo.load_records(session, domain=domain)
    store.dispose()
    text = format_records(records, fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        err_console.print(f"Wrote {len(records)} records to {output}")


def format_records(records: list[Record], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([r.to_native() for r in records], ensure_ascii=False, indent=2) + "\n"
    rows = [native_to_canon(r) if fmt == "deadends" else r.to_native() for r in records]
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def show(
    record_id: Annotated[str, typer.Argument(help="Record id.")],
    lang: Annotated[
        str, typer.Option("--lang", help="Locale of the text (English fallback).")
    ] = "en",
    as_json: JsonOpt = False,
) -> None:
    store = open_default_store()
    with store.read() as session:
        record = repo.get_record(session, record_id=record_id)
    store.dispose()
    if record is None:
        raise RecordNotFound(record_id)
    if as_json:
        emit_json(record.to_native())
        return
    print_record(console, record, lang)


def search(
    words: Annotated[list[str], typer.Argument(help="Words to look for.")],
    limit: Annotated[int, typer.Option(help="How many records to list.")] = 10,
    lang: Annotated[str, typer.Option("--lang", help="Locale of the signatures shown.")] = "en",
    as_json: JsonOpt = False,
) -> None:
    from bot.match.index import MatchIndex

    store = open_default_store()
    with store.read() as session:
        records = repo.load_records(session)
    store.dispose()
    index = MatchIndex.build(records, warm=False)  # search runs no regex
    query = clean_text(" ".join(words))  # an argument of undecodable bytes holds lone surrogates
    found = [(index.record(rid), score) for rid, score in index.search(query, limit=limit)]
    hits = [(record, score) for record, score in found if record is not None]
    if as_json:
        emit_json([
            {"id": r.id, "score": score, "domain": r.domain, "signature": r.text("signature", lang)[0]}
            for r, score in hits
        ])  # fmt: skip
        return
    if not hits:
        console.print("No record matches those words.")
        return
    table = Table("record", "signature", "score")
    for record, score in hits:
        table.add_row(
            record.id, record.text("signature", lang)[0].splitlines()[0][:100], f"{score:.2f}"
        )
    console.print(table)


def stats(as_json: JsonOpt = False) -> None:
    store = open_default_store()
    with store.read() as session:
        data = repo.stats(session)
    store.dispose()
    if as_json:
        emit_json(data)
        return
    table = Table(title="errkb knowledge base", show_header=False)
    table.add_row("records", str(data["records"]))
    for domain, count in data["domains"].items():
        table.add_row(f"  {domain}", str(count))
    for locale, count in data["translated"].items():
        table.add_row(f"translated to {locale}", str(count))
    table.add_row("workarounds", str(data["workarounds"]))
    table.add_row("dead ends", str(data["dead_ends"]))
    for kind, count in sorted(data["links"].items()):
        table.add_row(f"links {kind}", str(count))
    table.add_row("dangling links", str(data["dangling_links"]))
    table.add_row("oldest last_confirmed", str(data["oldest_confirmed"]))
    console.print(table)
