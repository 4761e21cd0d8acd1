"""Rich renderings of records for the command line. Pure: the console comes in."""

from __future__ import annotations

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from bot.records import Record, ranked_workarounds


def _fallback_note(used: str, wanted: str) -> str:
    return "" if used.split("_")[0] == wanted.split("_")[0] else f" [dim]({used})[/]"


def record_panel(record: Record, locale: str, *, title: str | None = None) -> Panel:
    signature, sig_loc = record.text("signature", locale)
    root_cause, rc_loc = record.text("root_cause", locale)
    actions, _ = record.text("workarounds", locale)
    dead_texts, _ = record.text("dead_ends", locale)
    parts: list[Text] = [
        Text(signature, style="bold red"),
        Text.from_markup(
            f"\n[bold]Root cause[/]{_fallback_note(rc_loc, locale)}: {escape(root_cause)}"
        ),
    ]
    ranked = ranked_workarounds(record)
    if ranked:
        parts.append(Text.from_markup("\n[bold green]Workarounds[/]"))
    for rank, i in enumerate(ranked, start=1):
        w = record.workarounds[i]
        rate = f" [dim]{w.success_rate:.0%}[/]" if w.success_rate is not None else ""
        parts.append(Text.from_markup(f"{rank}. {escape(actions[i])}{rate}"))
        if w.how:
            parts.append(Text("   " + w.how, style="cyan"))
        if w.condition:
            parts.append(Text.from_markup(f"   [dim]when: {escape(w.condition)}[/]"))
    if record.dead_ends:
        parts.append(Text.from_markup("\n[bold yellow]Dead ends[/]"))
    for i, d in enumerate(record.dead_ends):
        why = f" — {escape(d.why_fails)}" if d.action.strip() and d.why_fails else ""
        parts.append(Text.from_markup(f"✗ {escape(dead_texts[i])}{why}"))
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
    return Panel(
        Group(*parts), title=escape(heading) + _fallback_note(sig_loc, locale), title_align="left"
    )


def print_record(console: Console, record: Record, locale: str) -> None:
    console.print(record_panel(record, locale))
