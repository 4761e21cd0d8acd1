"""Rich renderings for the command line: records, triage results and listings. Pure.

Every text that comes from a paste or a record is a :class:`rich.text.Text`
(or escaped with Rich's own :func:`~rich.markup.escape`), never markup: a log
line such as ``[ERROR] [/move_base]: Aborting`` is shown as written, never
read as styles or refused as bad markup. Labels come from the catalogs in the
locale asked for. Record ids are never cut: a listing is a table while every
id fits on one line beside the other columns, and one entry per id below the
other otherwise, so an id can always be copied whole into ``errkb show`` (print
with ``soft_wrap``: an id longer than the terminal is then one line the
terminal wraps, not cut). The width comes in; the console is the caller's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bot.i18n import t
from bot.match.excerpt import Skipped
from bot.match.rank import Triage
from bot.records import Record, ranked_workarounds
from bot.records import Text as LocalText
from bot.render.notes import skipped_note
from bot.report import AnswerRecord, TriageReport

#: Cells each other column may shrink to (wrapping) beside the id column, in a table.
OTHER_COLUMNS_CELLS = 12
#: Cells a table spends on borders and padding per column.
COLUMN_CHROME = 3


def _note(locale: str, text: Text | LocalText) -> Text:
    if isinstance(text, LocalText) and text.fallback:
        return Text(" " + t(locale, "cli.untranslated", language=text.locale), style="dim")
    return Text()


def _labelled(label: str, style: str, value: str, note: Text | None = None) -> Text:
    line = Text(label, style=style)
    if note is not None:
        line.append_text(note)
    line.append(": " + value)
    return line


def record_panel(
    record: Record,
    locale: str,
    *,
    title: str | None = None,
    width: int = 80,
    answer: AnswerRecord | None = None,
) -> Panel:
    """A record for the terminal, every text in ``locale`` where translated (marked where not).
    Its heading (the id) is the panel's title while it fits in ``width`` (Rich cuts a longer
    title); else the panel's first line, wrapped, whole. ``answer`` (the record as the
    triage report answers a paste) orders its workarounds for that paste and says why."""
    local = record.localized(locale)
    heading = Text(title or record.id)
    heading.append_text(_note(locale, local.signature))
    fits = cell_len(heading.plain) + 6 <= width
    parts: list[Text] = [] if fits else [Text(heading.plain, style="bold", overflow="fold")]
    parts += [
        Text(str(local.signature), style="bold red"),
        Text(""),
        _labelled(
            t(locale, "cli.root_cause"),
            "bold",
            str(local.root_cause),
            _note(locale, local.root_cause),
        ),
    ]
    ranked = [w.position for w in answer.workarounds] if answer else ranked_workarounds(record)
    tried = {w.position: w.tried for w in answer.workarounds if w.tried} if answer else {}
    if ranked:
        parts += [Text(""), Text(t(locale, "cli.workarounds"), style="bold green")]
    if answer and answer.why_first:
        parts.append(Text(answer.why_first, style="green"))
    for rank, i in enumerate(ranked, start=1):
        w = local.workarounds[i]
        line = Text(f"{rank}. {w.action}")
        if w.item.success_rate is not None:
            line.append(f" {w.item.success_rate:.0%}", style="dim")
        parts.append(line)
        if i in tried:
            parts.append(Text("   " + str(tried[i]), style="dim"))
        if str(w.how):
            parts.append(Text("   " + str(w.how), style="cyan"))
        if str(w.condition):
            parts.append(
                Text("   " + t(locale, "cli.when", condition=str(w.condition)), style="dim")
            )
    if record.dead_ends:
        parts += [Text(""), Text(t(locale, "cli.dead_ends"), style="bold yellow")]
    for d in local.dead_ends:
        parts.append(Text(f"✗ {d.text}" + (f" — {d.why}" if d.why else "")))
    footer = []
    if record.versions:
        footer.append(
            t(locale, "cli.versions", versions=", ".join(v.version for v in record.versions))
        )
    if record.last_confirmed:
        footer.append(t(locale, "cli.last_confirmed", date=record.last_confirmed.isoformat()))
    if record.official_doc_url:
        footer.append(t(locale, "cli.docs", url=record.official_doc_url))
    if footer:
        parts += [Text(""), Text(" · ".join(footer), style="dim")]
    if answer and answer.several:
        parts += [Text(""), Text(answer.several, style="dim")]
    return Panel(Group(*parts), title=heading if fits else None, title_align="left")


# -- listings ----------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    header: str
    justify: str = "left"


def listing(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], *, width: int
) -> RenderableType:
    """Rows whose first cell is a record id, as a table when every id fits whole on one line
    in ``width`` cells beside the others (else each row as its id, then ``header: value`` lines).
    Cells are text, never markup."""
    longest = max((cell_len(row[0]) for row in rows), default=0)
    needed = longest + COLUMN_CHROME + 1
    for n, column in enumerate(columns[1:], start=1):
        content = max((cell_len(row[n]) for row in rows), default=0)
        needed += max(cell_len(column.header), min(content, OTHER_COLUMNS_CELLS)) + COLUMN_CHROME
    if needed <= width:
        table = Table()
        table.add_column(columns[0].header, no_wrap=True, min_width=longest)
        for column in columns[1:]:
            table.add_column(column.header, justify=column.justify, overflow="fold")  # type: ignore[arg-type]
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        return table
    entries: list[RenderableType] = []
    for row in rows:
        entries.append(Text(row[0], style="bold", overflow="ignore", no_wrap=True))
        for column, cell in zip(columns[1:], row[1:], strict=False):
            entries.append(Text(f"  {column.header}: {cell}"))
    return Group(*entries)


# -- triage ------------------------------------------------------------------------


def _first_line(text: str, limit: int = 120) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def graph_lines(report: TriageReport, record_id: str, locale: str) -> list[Text]:
    """What usually precedes ``record_id``, what follows it, what it is confused with."""
    lines: list[Text] = []
    causes = next((s.items for s in report.causes if s.error == record_id), [])
    if causes:
        lines.append(Text(t(locale, "cli.preceded_by"), style="bold"))
    for c in causes:
        hops = f", {t(locale, 'cli.steps_back', count=c.hops)}" if c.hops > 1 else ""
        lines.append(Text(f"  {c.score:.0%}{hops}  {_first_line(c.label)}"))
    following = next((s.items for s in report.next if s.error == record_id), [])
    if following:
        lines.append(Text(t(locale, "cli.next"), style="bold"))
    for n in following:
        chance = f"{n.probability:.0%}" if n.probability is not None else "?"
        when = " " + t(locale, "cli.next_when", condition=n.conditions[0]) if n.conditions else ""
        lines.append(Text(f"  {chance}  {_first_line(n.label)}{when}"))
    alike = next((s.items for s in report.confused_with if s.error == record_id), [])
    if alike:
        lines.append(Text(t(locale, "cli.confused_with"), style="bold"))
    for a in alike:
        tell = f" — {a.distinctions[0]}" if a.distinctions else ""
        lines.append(Text(f"  {_first_line(a.label)}{tell}"))
    return lines


def triage_view(
    report: TriageReport,
    result: Triage,
    record: Callable[[str], Record | None],
    locale: str,
    *,
    width: int,
) -> list[RenderableType]:
    """What ``errkb triage`` prints: what was skipped of a long paste, then the answers
    cause first, the candidates worth a look when unsure, or that nothing is known."""
    head: list[RenderableType] = []
    if report.skipped is not None:
        skipped = report.skipped
        note = skipped_note(locale, Skipped(skipped.chars, skipped.lines, skipped.read))
        head.append(Text(note, style="dim"))
    if not result.answered and not report.matches:  # no candidate above the floor
        return [*head, Text(t(locale, "cli.nothing_known"), style="bold")]
    if not result.answered:
        columns = [
            Column(t(locale, "cli.col.record")),
            Column(t(locale, "cli.col.score"), "right"),
            Column(t(locale, "cli.col.band")),
            Column(t(locale, "cli.col.line")),
        ]
        rows = [
            [m.id, f"{m.score:.2f}", t(locale, f"cli.band.{m.band}"), _first_line(m.line, 80)]
            for m in report.matches[:5]
        ]
        return [
            *head,
            Text(t(locale, "cli.not_sure"), style="yellow"),
            listing(columns, rows, width=width),
        ]
    shown: list[RenderableType] = head
    ids = [a.id for a in report.answers]
    if len(ids) > 1:
        shown.append(
            Text(t(locale, "cli.errors_in_paste", count=len(ids), id=ids[0]), style="bold")
        )
    matches = {m.record_id: m for m in result.matches}
    answers = {a.id: a for a in report.answers}
    for rid in ids:
        found = record(rid)
        match = matches.get(rid)
        if found is None or match is None:
            continue
        band = t(locale, f"cli.band.{match.band}")
        title = f"{rid}  ({band}, {match.score:.2f})"
        shown.append(record_panel(found, locale, title=title, width=width, answer=answers.get(rid)))
        shown += graph_lines(report, rid, locale)
        line = t(locale, "cli.matched_line", line=match.line_no, text=_first_line(match.line, 200))
        shown.append(Text(line, style="dim"))
    return shown


def search_view(hits: Sequence[tuple[Record, float]], locale: str, *, width: int) -> RenderableType:
    """Search results: id, signature in ``locale``, score."""
    if not hits:
        return Text(t(locale, "cli.search.none"))
    columns = [
        Column(t(locale, "cli.col.record")),
        Column(t(locale, "cli.col.signature")),
        Column(t(locale, "cli.col.score"), "right"),
    ]
    rows = [
        [r.id, _first_line(r.text("signature", locale)[0], 100), f"{score:.2f}"]
        for r, score in hits
    ]
    return listing(columns, rows, width=width)


__all__ = ["Column", "graph_lines", "listing", "record_panel", "search_view", "triage_view"]
