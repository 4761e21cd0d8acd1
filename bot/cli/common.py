"""What every command shares: consoles, JSON output, opening the store."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console

from bot.settings import Settings, load_settings

if TYPE_CHECKING:
    from bot.store.db import Store

console = Console()
err_console = Console(stderr=True)
#: Problems or warnings listed before "… and N more": about a screenful.
SHOWN = 20


def settings() -> Settings:
    return load_settings()


def open_default_store(config: Settings | None = None) -> Store:
    """The configured database; refuses one whose schema is missing or not current
    (``errkb init`` creates it, ``errkb migrate`` upgrades it)."""
    from bot.store.db import open_store

    return open_store((config or settings()).database_url)


def emit_json(data: Any) -> None:
    """Machine output: one JSON document on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def fail(message: str, code: int = 1) -> NoReturn:
    """``error: message`` on one line however narrow the terminal; ``message`` is Rich markup
    (escape any text it quotes)."""
    err_console.print(
        f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True
    )
    raise typer.Exit(code)


def print_problems(lines: Sequence[str], *, limit: int | None = SHOWN, hint: str = "") -> None:
    """``lines`` on stderr, each on one line as written: the first ``limit`` of them, then
    how many more there are and ``hint`` (how to see them all); ``limit`` None: all."""
    shown = lines if limit is None else lines[:limit]
    for line in shown:
        err_console.print(line, highlight=False, markup=False, soft_wrap=True)
    if len(lines) > len(shown):
        more = f"… {len(lines) - len(shown)} more not shown ({len(lines)} in all)"
        err_console.print(
            more + (f"; {hint}" if hint else ""), highlight=False, markup=False, soft_wrap=True
        )
