"""The ``errkb`` command line: one Typer app whose commands come from :mod:`bot.cli.commands`.

Importing this package imports no command module: each is loaded when its
command runs (see :mod:`bot.cli.group`), so ``errkb --help`` and
``errkb triage`` start without the libraries other commands need.
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from bot.cli.group import MARKUP, CommandGroup
from bot.errors import ErrkbError, ImportFailed

app = typer.Typer(
    cls=CommandGroup,
    name="errkb",
    help="errkb: answers pasted errors from your team's error knowledge base.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=MARKUP,
)


def _show_version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import version

        typer.echo(f"errkb {version('errkb')}")
        raise typer.Exit()


@app.callback()
def _errkb(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print errkb's version and exit.",
            callback=_show_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """(Typer makes a group only of an app with a callback or several registered commands.)"""


def main(argv: list[str] | None = None) -> None:
    """Run the command line; user mistakes end with a message and exit 1, never a traceback."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app(args=argv, prog_name="errkb")
    except ImportFailed as exc:
        from bot.cli.common import err_console, print_problems

        print_problems([str(problem) for problem in exc.problems])
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise SystemExit(1) from None
    except ErrkbError as exc:  # one line, however narrow the terminal: operators grep for it
        from rich.markup import escape

        from bot.cli.common import err_console

        message = escape(" ".join(str(exc).split()))
        err_console.print(
            f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True
        )
        raise SystemExit(1) from None
