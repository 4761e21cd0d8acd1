"""Commands: ``errkb graph check|show|export|observed`` (the transition graph)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from bot.cli import common
from bot.i18n import t
from graph.build import KnowledgeGraph, ObservedEdge, build_graph
from graph.check import GraphReport, check_graph
from graph.export import FORMATS, export_graph

RecordsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--records",
        help="Read records from these files or folders (JSON, JSONL, YAML, .gz; native or "
        "deadends canons) instead of the database. Repeatable.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
SHOWN = 15


def _load(paths: list[Path] | None) -> KnowledgeGraph:
    if paths:
        from bot.ingest import load_records

        return build_graph(load_records(list(paths)))
    from bot.store import repository
    from bot.store.observed import list_observed

    store = common.open_default_store()
    try:
        with store.read() as session:
            return build_graph(repository.load_records(session), observed=list_observed(session))
    finally:
        store.dispose()


def _listing(title: str, lines: list[str]) -> None:
    common.console.print(f"[bold]{title}[/]: {len(lines)}")
    for line in lines[:SHOWN]:
        common.console.print(f"  {escape(line)}", highlight=False)
    if len(lines) > SHOWN:
        common.console.print(f"  … and {len(lines) - SHOWN} more (see --json)")


def _print_report(report: GraphReport) -> None:
    common.console.print(
        f"{report.records} records, {report.placeholders} placeholders, "
        f"{report.references} references, {report.leads_to_edges} leads_to edges, "
        f"{report.confusion_pairs} look-alike pairs, {report.components} linked components "
        f"(largest {', '.join(map(str, report.largest_components)) or '-'}), "
        f"{len(report.orphans)} orphans",
        highlight=False,
    )
    _listing("dangling references", [f"{d.source} {d.kind} {d.target}" for d in report.dangling])
    _listing("self-loops", [f"{s.record_id} ({s.kind})" for s in report.self_loops])
    _listing(
        "one-sided links",
        [f"{o.source} {o.kind} {o.target} (no {o.missing} back)" for o in report.one_sided],
    )
    _listing("cycles", [" → ".join(c.example) for c in report.cycles])
    if report.hubs:
        table = Table("hub", "in", "out", "look-alikes", title="hubs")
        for hub in report.hubs:
            table.add_row(
                Text(hub.id), str(hub.in_degree), str(hub.out_degree), str(hub.confused_degree)
            )
        common.console.print(table)
    verdict = "[green]strict: ok[/]" if report.strict_ok else "[red]strict: fails[/]"
    common.console.print(verdict + " (dangling references and self-loops fail --strict)")


def check(
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 on dangling references or self-loops.")
    ] = False,
    as_json: JsonOption = False,
    records: RecordsOption = None,
) -> None:
    report = check_graph(_load(records))
    if as_json:
        common.emit_json(report.to_dict())
    else:
        _print_report(report)
    if strict and not report.strict_ok:
        raise typer.Exit(1)


def show(
    record_id: Annotated[str, typer.Argument(metavar="ID", help="Record id.")],
    depth: Annotated[int, typer.Option(min=1, max=5, help="Hops either way.")] = 2,
    lang: Annotated[str, typer.Option("--lang", help="Label locale, e.g. en, zh.")] = "en",
    png: Annotated[Path | None, typer.Option("--png", help="Also write a PNG picture.")] = None,
    as_json: JsonOption = False,
    records: RecordsOption = None,
) -> None:
    from graph.draw import neighbourhood, render_tree

    kg = _load(records)
    if record_id not in kg:
        common.fail(f"no record or graph reference with id {record_id!r}")
    nb = neighbourhood(kg, record_id, depth=depth, locale=lang)
    if png is not None:
        from graph.layout import PICTURE_NODES
        from graph.picture import render_png

        try:
            whole = neighbourhood(kg, record_id, depth=depth, locale=lang, max_nodes=PICTURE_NODES)
            png.write_bytes(render_png(whole))  # what /errkb graph sends
        except OSError as exc:
            common.fail(f"cannot write {png}: {exc.strerror}")
    if as_json:
        data: dict[str, Any] = asdict(nb)
        data["observed"] = [_observed_dict(e) for e in kg.observed_from(record_id)]
        data["png"] = str(png) if png else None
        common.emit_json(data)
        return
    common.console.print(
        render_tree(kg, record_id, depth=depth, locale=lang), highlight=False, markup=False
    )
    observed = kg.observed_from(record_id)
    if observed:
        common.console.print(t(lang, "cli.graph.observed"), highlight=False, markup=False)
        for e in observed:
            seen = t(lang, "cli.graph.seen", id=e.target, count=e.count)
            common.console.print(f"   ⇢ {seen}", highlight=False, markup=False)
    if png is not None:
        common.err_console.print(f"wrote {png}", highlight=False)


def export(
    fmt: Annotated[str, typer.Option("--format", help="graphml or json.")] = "json",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
    records: RecordsOption = None,
) -> None:
    if fmt not in FORMATS:
        common.fail(f"unknown format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    text = export_graph(_load(records), fmt)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        common.fail(f"cannot write {output}: {exc.strerror}")


def _observed_dict(edge: ObservedEdge) -> dict[str, Any]:
    return {
        "source": edge.source,
        "target": edge.target,
        "count": edge.count,
        "first_seen": edge.first_seen.isoformat(),
        "last_seen": edge.last_seen.isoformat(),
    }


def observed(
    as_json: JsonOption = False,
    min_count: Annotated[int, typer.Option(min=1, help="Hide rarer transitions.")] = 1,
    limit: Annotated[int, typer.Option(min=1, help="At most this many.")] = 100,
) -> None:
    """Curated links are never changed by these; adopt one by adding it to the record."""
    from bot.store import repository
    from bot.store.observed import list_observed

    store = common.open_default_store()
    try:
        with store.read() as session:
            edges = list_observed(session, min_count=min_count, limit=limit)
            ids = {e.source for e in edges} | {e.target for e in edges}
            kg = build_graph(repository.load_records(session, ids=ids))
    finally:
        store.dispose()
    rows = [
        {**_observed_dict(e), "curated": kg.transition(e.source, e.target) is not None}
        for e in edges
    ]
    if as_json:
        common.emit_json(rows)
        return
    if not rows:
        common.console.print("no transitions observed yet")
        return
    table = Table("count", "from", "to", "first seen", "last seen", "curated")
    for row in rows:
        table.add_row(
            str(row["count"]),
            Text(row["source"]),
            Text(row["target"]),
            row["first_seen"][:16],
            row["last_seen"][:16],
            "yes" if row["curated"] else "",
        )
    common.console.print(table)
