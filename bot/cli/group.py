"""The parser: a Typer group whose commands come from :data:`bot.cli.commands.COMMANDS`.

A command's module is imported when the command runs or shows its own
``--help``; a listing (``errkb --help``, ``errkb graph --help``) is drawn from
the table's summaries alone and imports nothing.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal

import typer
from typer.core import TyperCommand, TyperGroup

from bot.cli.commands import Command, Group, children, find

MARKUP: Literal["rich"] = "rich"


def help_text(command: Command, runner: Any) -> str:
    """What ``errkb NAME --help`` says: the summary, the runner's docstring, the example."""
    from rich.markup import escape

    parts = [
        command.summary,
        inspect.getdoc(runner) or "",
        f"Example: [bold]{escape(command.example)}[/]",
    ]
    return "\n\n".join(part for part in parts if part)


@contextmanager
def _uncollected() -> Iterator[None]:
    """No cyclic garbage collection while a command's modules load; then they are frozen.

    Loading a command's libraries makes very many objects that live as long as the
    process. The collector would walk them again and again while they load and on
    every full collection after; frozen (before the collector resumes), collections
    skip them. Reference counting still frees.
    """
    from bot.collector import collector_off

    with collector_off(freeze=True):
        yield


def load(command: Command) -> TyperCommand:
    """Import the runner and turn it into a command, as Typer would for ``@app.command``."""
    module, _, name = command.runner.partition(":")
    with _uncollected():
        runner = getattr(importlib.import_module(module), name)
    single = typer.Typer(rich_markup_mode=MARKUP, add_completion=False)
    words = command.words
    text = help_text(command, runner)
    single.command(words[-1], help=text, short_help=command.summary)(runner)
    built = typer.main.get_command(single)
    if not isinstance(built, TyperCommand):
        raise TypeError(f"{command.runner} is not a command runner")
    return built


class _Names(Mapping[str, Any]):
    """The group's commands by name, built on first use (Typer reads the names for
    'did you mean')."""

    def __init__(self, group: CommandGroup) -> None:
        self.group = group

    def __getitem__(self, name: str) -> Any:
        found = self.group.lookup(name)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(children(self.group.words))

    def __len__(self) -> int:
        return len(children(self.group.words))


class CommandGroup(TyperGroup):
    """``errkb`` itself, or a group such as ``errkb graph``, driven by the command table."""

    def __init__(self, *, words: tuple[str, ...] = (), **attrs: Any) -> None:
        super().__init__(**attrs)
        self.words = words
        self.commands = _Names(self)  # type: ignore[assignment]
        self._listing = False
        self._loaded: dict[str, TyperCommand] = {}

    def list_commands(self, ctx: Any) -> list[str]:
        return children(self.words)

    def get_command(self, ctx: Any, cmd_name: str) -> TyperCommand | TyperGroup | None:
        return self.lookup(cmd_name)

    def lookup(self, name: str) -> TyperCommand | TyperGroup | None:
        entry = find((*self.words, name))
        if entry is None:
            return None
        if isinstance(entry, Group):
            return CommandGroup(
                words=entry.words,
                name=name,
                help=entry.summary,
                no_args_is_help=True,
                rich_markup_mode=MARKUP,
            )
        if self._listing:  # a line in a listing needs the summary, not the module
            return TyperCommand(name=name, help=entry.summary, short_help=entry.summary)
        if name not in self._loaded:
            self._loaded[name] = load(entry)
        return self._loaded[name]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
