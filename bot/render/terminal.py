"""Rich renderings of records for the command line. Pure: the console comes in."""

from __future__ import annotations

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from bot.records import Record, ranked_workarounds
from bot.records import Text as LocalText


def _fallback_note(text: Text | LocalText) -> str:
    return f" [dim]({text.locale})[/]" if isinstance(text, LocalText) and text.fallback else ""


def record_panel(record: Record, locale: str, *, title: str | None = None) -> Panel:
    """A record for the terminal, every text in ``locale`` where translated (marked where not)."""
    local = record.localized(locale)
    parts: list[Text] = [
        Text(str(local.signature), style="bold red"),
        Text.from_markup(f"\n[bold]Root cause[/]{_fallback_note(local.root_cause)}: {escape(str(local.root_cause))}"),
    ]
    ranked = ranked_workarounds(record)
    if ranked:
        parts.append(Text.from_markup("\n[bold green]Workarounds[/]"))
    for rank, i in enumerate(ranked, start=1):
        w = local.workarounds[i]
        rate = f" [dim]{w.item.success_rate:.0%}[/]" if w.item.success_rate is not None else ""
        parts.append(Text.from_markup(f"{rank}. {escape(str(w.action))}{rate}"))
        if str(w.how):
            parts.append(Text("   " + str(w.how), style="cyan"))
        if str(w.condition):
            parts.append(Text.from_markup(f"   [dim]when: {escape(str(w.condition))}[/]"))
    if record.dead_ends:
        parts.append(Text.from_markup("\n[bold yellow]Dead ends[/]"))
    for d in local.dead_ends:
        why = f" — {escape(str(d.why))}" if d.why else ""
        parts.append(Text.from_markup(f"✗ {escape(str(d.text))}{why}"))
    footer = []
    if record.versions:
        footer.append("versions: " + ", ".join(v.version for v in record.versions))
    if record.last_confirmed:
        footer.append(f"last confirmed {record.last_confirmed.isoformat()}")
    if record.official_doc_url:
        footer.append(f"docs: {record.official_doc_url}")
    if footer:
        parts.append(Text("\n" + " · ".join(footer), style="dim"))
    heading = title or record.id
    return Panel(Group(*parts), title=escape(heading) + _fallback_note(local.signature), title_align="left")


def print_record(console: Console, record: Record, locale: str) -> None:
    console.print(record_panel(record, locale))
