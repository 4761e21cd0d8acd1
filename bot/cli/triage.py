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
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.panel import Panel

from bot.bootstrap import StoredKnowledge, build_stored_knowledge
from bot.cli.common import console, emit_json, fail, open_default_store, settings
from bot.clock import SYSTEM_CLOCK
from bot.fit.duplicates import prefer_general
from bot.i18n import supported, t
from bot.match.index import MatchIndex
from bot.match.reader import prefer_reader
from bot.records import Record
from bot.render.terminal import triage_view
from bot.report import Counts, build_report
from graph.build import KnowledgeGraph, build_graph

if TYPE_CHECKING:
    from bot.store.db import Store

RecordsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--records", help="Record files to load in memory instead of the database (repeatable)."
    ),
]


@dataclass
class Knowledge:
    """What a triage runs against: the index and graph of record files or of the database
    (``stored``; its ``remember`` keeps a fresh build for the next run)."""

    index: MatchIndex
    graph: KnowledgeGraph
    stored: StoredKnowledge | None = None

    def counts(self, ids: list[str]) -> Counts:
        """What votes observed about these records' workarounds (as Slack shows them)."""
        return self.stored.votes(ids) if self.stored is not None else {}

    def store(self) -> Store:
        """The database, opened now when the snapshot was read without it (:meth:`close`
        closes it)."""
        assert self.stored is not None
        if self.stored.store is None:
            self.stored.store = open_default_store()
        return self.stored.store

    def close(self) -> None:
        if self.stored is not None and self.stored.store is not None:
            self.stored.store.dispose()


def _knowledge(paths: list[Path] | None, warm: bool = False) -> Knowledge:
    """``warm``: an index for matching many pastes (see the module docstring)."""
    if paths:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            fail(f"no such file: {', '.join(missing)}")
        from bot.ingest import load_records

        records = load_records(list(paths))
        return Knowledge(_index(records, warm=warm), build_graph(records))
    config = settings()
    # plain rows: a triage never loads the ORM; the snapshot when it is current
    stored = build_stored_knowledge(config, lambda: open_default_store(config))
    if not len(stored.index):
        _index([])
    index = stored.index
    if warm:  # the same parts, re-linked with every branch compiled
        index = MatchIndex(index.parts, index.vocabulary, warm=True)
    return Knowledge(index, stored.graph, stored)


def _index(records: list[Record], warm: bool = False) -> MatchIndex:
    """The match index of ``records``; ``warm`` for matching many pastes (see the module
    docstring)."""
    if not records:
        fail(
            "the knowledge base is empty: run errkb init, "
            "import records (errkb import FILE) or pass --records"
        )
    return MatchIndex.build(records, warm=warm)


def _read_paste(source: str, locale: str) -> str:
    """The paste's text; a missing file, a directory or an empty paste is one clear error."""
    if source == "-":
        text = sys.stdin.read()
    else:
        path = Path(source)
        if path.is_dir():
            fail(escape(t(locale, "cli.paste.directory", source=source)))
        if not path.exists():
            fail(escape(t(locale, "cli.paste.missing", source=source)))
        text = path.read_bytes().decode("utf-8", errors="replace")
    if not text.strip():
        name = t(locale, "cli.stdin") if source == "-" else source
        fail(escape(t(locale, "cli.paste.empty", source=name)))
    return text


def _observe(store: Store, session_name: str, ids: list[str], window_hours: float) -> None:
    from bot.store.observed import observe_error

    now = SYSTEM_CLOCK.now()
    with store.transaction() as session:
        for rid in ids:
            observe_error(
                session,
                scope=f"cli:{session_name}",
                record_id=rid,
                seen_at=now,
                window=timedelta(hours=window_hours),
            )


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
    ] = None,
) -> None:
    """With several errors in one paste they are ordered cause first along the
    transition graph; each answer says what usually precedes it, what comes
    next and what it is confused with.
    """
    from bot.answer import read_paste

    locale = supported(lang) or "en"
    config = settings()
    read = read_paste(_read_paste(source, locale), config.paste_limit)
    knowledge = _knowledge(records)
    index = knowledge.index
    result = prefer_reader(
        prefer_general(index.triage(read), read.text, index.record), lang, index.record
    )
    ids = result.answer_ids()
    counts = knowledge.counts(ids)
    if session_name and ids:
        if knowledge.stored is None:
            fail("--session records what it sees in the database: leave out --records")
        _observe(knowledge.store(), session_name, ids, config.observe_window_hours)
    knowledge.close()
    report = build_report(
        result, index.record, knowledge.graph, locale=lang, counts=counts, read=read
    )
    if as_json:
        emit_json(report.model_dump(mode="json"))
    else:
        for part in triage_view(report, result, index.record, locale, width=console.width):
            # lines as long as they are (the terminal wraps: ids stay whole); a panel wraps inside
            console.print(part, highlight=False, soft_wrap=not isinstance(part, Panel))
    if knowledge.stored is not None:
        knowledge.stored.remember()  # after the answer: the person does not wait for the file
