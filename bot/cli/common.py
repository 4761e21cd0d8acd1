"""What every command shares: consoles, JSON output, opening the store."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console

from bot.settings import Settings, load_settings
from bot.store.db import Store, open_store

console = Console()
err_console = Console(stderr=True)


def settings() -> Settings:
    return load_settings()


def open_default_store(config: Settings | None = None) -> Store:
    """The configured database; refuses one whose schema is missing or not current
    (``errkb init`` creates it, ``errkb migrate`` upgrades it)."""
    return open_store((config or settings()).database_url)


def emit_json(data: Any) -> None:
    """Machine output: one JSON document on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def fail(message: str, code: int = 1) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    raise typer.Exit(code)
