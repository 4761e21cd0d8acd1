"""Commands: ``errkb i18n check`` (which record texts are not translated yet)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from bot.cli import common
from bot.i18n import available_locales
from bot.i18n.coverage import LocaleCoverage, coverage
from bot.records import Record, normalise_locale

SHOWN = 20


def _load(paths: list[Path] | None) -> list[Record]:
    if paths:
        from bot.ingest import load_records

        return load_records(list(paths))
    from bot.store import repository

    store = common.open_default_store()
    try:
        with store.transaction() as session:
            return repository.load_records(session)
    finally:
        store.dispose()


def coverage_dict(found: LocaleCoverage) -> dict[str, Any]:
    return {
        "locale": found.locale,
        "records": found.records,
        "complete_records": found.complete,
        "texts": found.texts,
        "translated_texts": found.translated,
        "percent": round(found.percent, 1),
        "untranslated": {gap.record_id: list(gap.paths) for gap in found.gaps},
    }


def _print(found: LocaleCoverage) -> None:
    if not found.records:
        common.console.print(f"[bold]{found.locale}[/]: every record is written in it")
        return
    common.console.print(
        f"[bold]{found.locale}[/]: {found.translated} of {found.texts} texts translated "
        f"({found.percent:.1f}%); {found.complete} of {found.records} records complete",
        highlight=False,
    )
    for gap in found.gaps[:SHOWN]:
        paths = ", ".join(gap.paths)
        common.console.print(f"  {escape(gap.record_id)}: {escape(paths)}", highlight=False)
    if len(found.gaps) > SHOWN:
        common.console.print(f"  … and {len(found.gaps) - SHOWN} more records (see --json)")


def check(
    locale: Annotated[
        list[str] | None,
        typer.Option(
            "--locale", help="Check this locale (repeatable); default: every locale errkb speaks."
        ),
    ] = None,
    records: Annotated[
        list[Path] | None,
        typer.Option(
            "--records",
            help="Check records in these files or folders instead of the database. Repeatable.",
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when any text is not translated.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    locales = [normalise_locale(x) for x in locale] if locale else list(available_locales())
    found = coverage(_load(records), locales)
    if as_json:
        common.emit_json({"locales": [coverage_dict(c) for c in found]})
    else:
        for item in found:
            _print(item)
    if strict and any(c.gaps for c in found):
        raise typer.Exit(1)
