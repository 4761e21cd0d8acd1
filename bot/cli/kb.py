"""Commands over the knowledge base: init, migrate, import, export, show, search, stats."""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer
import yaml
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from bot.cli.common import (
    SHOWN,
    console,
    emit_json,
    err_console,
    fail,
    open_default_store,
    print_problems,
    settings,
)
from bot.clock import SYSTEM_CLOCK
from bot.errors import ImportFailed, Problem, RecordNotFound
from bot.i18n import supported, t
from bot.ingest import Format, ReadResult, dangling_links, read_records
from bot.ingest.deadends import native_to_canon
from bot.match.patterns import risky_regex
from bot.records import Record
from bot.records.clean import clean_text
from bot.render.terminal import record_panel, search_view
from bot.starter import starter_dir
from bot.store import repository as repo
from bot.store.db import Store, open_store
from bot.store.staged import import_staged
from bot.store.urls import without_password

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _progress(label: str) -> Progress:
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    )


@dataclass
class ImportOutcome:
    """What an import did and what it noticed."""

    summary: repo.ImportSummary
    #: links to records that are in neither the input nor the knowledge base (kept)
    warnings: list[str] = field(default_factory=list)
    #: regexes a backtracking engine could hang on (errkb runs them in RE2, in linear time)
    regex_notes: list[str] = field(default_factory=list)
    #: records read but left out by ``--domain``
    other_domains: int = 0


def run_import(
    paths: list[Path],
    *,
    fmt: Format,
    on_conflict: repo.OnConflict,
    actor: str,
    domains: Sequence[str] = (),
) -> ImportOutcome:
    """Validate everything, then write it (only ``domains``, when given) in one transaction."""
    with _progress("reading") as bar:
        task = bar.add_task("read", total=None)
        result = read_records(
            paths, fmt, lambda n, total: bar.update(task, completed=n, total=total)
        )
    if result.problems:
        raise ImportFailed(result.problems)
    records = result.records
    if domains:
        records = [r for r in records if r.domain in domains]
    store = open_default_store()
    try:
        if store.engine.dialect.name == "sqlite":
            summary, known = _import_staged(
                store, result, records, on_conflict=on_conflict, actor=actor
            )
        else:
            with store.transaction() as session:
                known = repo.record_ids(session)
                with _progress("writing") as bar:
                    task = bar.add_task("write", total=None)
                    summary = repo.import_records(
                        session,
                        records=records,
                        on_conflict=on_conflict,
                        actor=actor,
                        now=SYSTEM_CLOCK.now(),
                        progress=lambda n, total: bar.update(task, completed=n, total=total),
                    )
                if summary.conflicts:
                    session.rollback()
                    raise ImportFailed(
                        [_conflict(result.sources.get(rid, ""), rid) for rid in summary.conflicts]
                    )
    finally:
        store.dispose()
    warnings = [
        f"{source}: {kind} → {target}: not in the knowledge base (kept)"
        for source, kind, target in dangling_links(records, known)
    ]
    notes = [
        f"{record.id}: regex: {reason}"
        for record in records
        if (reason := risky_regex(record.regex)) is not None
    ]
    return ImportOutcome(summary, warnings, notes, len(result.records) - len(records))


def _import_staged(
    store: Store,
    result: ReadResult,
    records: list[Record],
    *,
    on_conflict: repo.OnConflict,
    actor: str,
) -> tuple[repo.ImportSummary, set[str]]:
    """:func:`run_import` on SQLite: staged, so the write lock is held only to apply; the
    summary and the ids known before."""
    with store.read() as session:
        known = repo.record_ids(session)
    with _progress("writing") as bar:
        task = bar.add_task("write", total=None)
        summary = import_staged(
            store,
            records=records,
            on_conflict=on_conflict,
            actor=actor,
            now=SYSTEM_CLOCK.now(),
            progress=lambda n, total: bar.update(task, completed=n, total=total),
        )
    if summary.conflicts:
        raise ImportFailed(
            [_conflict(result.sources.get(rid, ""), rid) for rid in summary.conflicts]
        )
    return summary, known


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
    store = open_store(config.database_url, migrate=True)
    try:
        from bot.knowledge import epoch_reader

        epoch_reader(store)()  # given here, so a later triage can name its snapshot without a write
    finally:
        store.dispose()
    counts = {"added": 0, "updated": 0, "unchanged": 0, "skipped": 0}
    if starter:
        done = run_import([starter_dir()], fmt="native", on_conflict="upsert", actor="errkb init")
        counts = done.summary.counts()
    if as_json:
        emit_json({"database": without_password(config.database_url), **counts})
        return
    console.print(f"Database ready: [bold]{without_password(config.database_url)}[/]")
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
        emit_json(
            {"database": without_password(config.database_url), "before": before, "after": after}
        )
        return
    if before == after:
        console.print(
            f"Schema already at revision {after}: [bold]{without_password(config.database_url)}[/]"
        )
    else:
        console.print(
            f"Schema migrated from revision {before or '(none)'} to {after}: "
            f"[bold]{without_password(config.database_url)}[/]"
        )


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
    domain: Annotated[
        list[str] | None,
        typer.Option("--domain", help="Import only the records of this domain (repeatable)."),
    ] = None,
    actor: Annotated[str, typer.Option(help="Who is importing, for the audit log.")] = "cli",
    verbose: Annotated[
        bool, typer.Option("--verbose", help="List every problem, warning and regex note.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Everything is validated first; one bad record and nothing is written. A file's
    content decides between a JSON array and JSON lines, whatever its extension says.
    A failing import lists its first problems and how many there are in all (--verbose:
    every one). Regexes a backtracking engine could hang on are counted in one note
    (errkb itself runs every regex in RE2, in linear time; --verbose lists them).
    """
    if fmt not in ("auto", "native", "deadends"):
        fail(f"--format must be auto, native or deadends, not {escape(repr(fmt))}", 2)
    if on_conflict not in ("upsert", "skip", "fail"):
        fail(f"--on-conflict must be upsert, skip or fail, not {escape(repr(on_conflict))}", 2)
    try:
        done = run_import(
            paths,
            fmt=fmt,  # type: ignore[arg-type]  # checked above
            on_conflict=on_conflict,  # type: ignore[arg-type]
            actor=actor,
            domains=domain or (),
        )
    except ImportFailed as exc:
        print_problems(
            [str(p) for p in exc.problems],
            limit=None if verbose else SHOWN,
            hint="--verbose lists every one",
        )
        fail(escape(str(exc)))
    if as_json:
        emit_json(
            {
                **done.summary.counts(),
                "other_domains": done.other_domains,
                "warnings": done.warnings,
                "regex_notes": done.regex_notes,
            }
        )
        return
    limit = None if verbose else SHOWN
    print_problems(
        [f"warning: {w}" for w in done.warnings],
        limit=limit,
        hint="--verbose lists every one, --json gives them all",
    )
    if done.regex_notes and verbose:
        print_problems([f"note: {n}" for n in done.regex_notes], limit=None)
    elif done.regex_notes:
        err_console.print(
            f"note: {len(done.regex_notes)} regexes could backtrack for a long time in a "
            "backtracking engine (Python re, PCRE) if the records are used elsewhere; errkb runs "
            "them in RE2, in linear time (--verbose lists them)",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    line = "Imported: " + _summary_text(done.summary.counts())
    if domain:
        line += f"; {done.other_domains} of other domains left out"
    console.print(line, highlight=False, markup=False, soft_wrap=True)


EXTENSIONS = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".yaml": "yaml",
    ".yml": "yaml",
}
EXPORT_FORMATS = ("json", "jsonl", "yaml", "deadends")


def export_format(fmt: str | None, output: Path | None) -> tuple[str, bool]:
    """The format to write and whether to gzip it: what ``--format`` says, else what the
    output's extension names (``kb.jsonl``, ``kb.yaml.gz`` ...), else a JSON array."""
    name = output.name.lower() if output is not None else ""
    packed = name.endswith(".gz")
    suffix = Path(name.removesuffix(".gz")).suffix
    named = EXTENSIONS.get(suffix)
    if fmt is None:
        return named or "json", packed
    if fmt not in EXPORT_FORMATS:
        fail(f"--format must be one of {', '.join(EXPORT_FORMATS)}, not {escape(repr(fmt))}", 2)
    wanted = "jsonl" if fmt == "deadends" else fmt
    if named is not None and named != wanted:
        fail(
            escape(
                f"--format {fmt} writes {wanted.upper()}, but {output} names {named.upper()}: "
                "change the extension or leave out --format"
            ),
            2,
        )
    return fmt, packed


def export(
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="json, jsonl, yaml or deadends (JSON lines of canons); "
            "default: what the --output extension names, else json.",
        ),
    ] = None,
    domain: Annotated[str | None, typer.Option(help="Only this domain.")] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="File to write (default stdout); .gz compresses."),
    ] = None,
) -> None:
    """kb.json is a JSON array, kb.jsonl JSON lines, kb.yaml YAML; errkb import reads each back."""
    chosen, packed = export_format(fmt, output)
    if output is not None and output.is_dir():
        fail(escape(f"{output} is a directory: name a file to write"))
    store = open_default_store()
    with store.read() as session:
        records = repo.load_records(session, domain=domain)
    store.dispose()
    text = format_records(records, chosen)
    if output is None:
        sys.stdout.write(text)
        return
    data = text.encode("utf-8")
    try:
        output.write_bytes(gzip.compress(data, mtime=0) if packed else data)
    except OSError as exc:
        fail(escape(f"cannot write {output}: {exc.strerror}"))
    written = t(
        "en",
        "cli.wrote",
        count=len(records),
        path=str(output),
        format=chosen + (", gzip" if packed else ""),
    )
    err_console.print(written, highlight=False, markup=False, soft_wrap=True)


def format_records(records: list[Record], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([r.to_native() for r in records], ensure_ascii=False, indent=2) + "\n"
    if fmt == "yaml":
        return yaml.safe_dump([r.to_native() for r in records], allow_unicode=True, sort_keys=False)
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
    console.print(
        record_panel(record, supported(lang) or "en", width=console.width), highlight=False
    )


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
        emit_json(
            [
                {
                    "id": r.id,
                    "score": score,
                    "domain": r.domain,
                    "signature": r.text("signature", lang)[0],
                }
                for r, score in hits
            ]
        )
        return
    console.print(
        search_view(hits, supported(lang) or "en", width=console.width),
        highlight=False,
        soft_wrap=True,
    )


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
        table.add_row(Text(f"  {domain}"), str(count))
    for locale, count in data["translated"].items():
        table.add_row(f"translated to {locale}", str(count))
    table.add_row("workarounds", str(data["workarounds"]))
    table.add_row("dead ends", str(data["dead_ends"]))
    for kind, count in sorted(data["links"].items()):
        table.add_row(f"links {kind}", str(count))
    table.add_row("dangling links", str(data["dangling_links"]))
    table.add_row("oldest last_confirmed", str(data["oldest_confirmed"]))
    console.print(table)
