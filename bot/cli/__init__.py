"""The ``errkb`` command line: one Typer app, commands registered by feature."""

from __future__ import annotations

import logging

import typer
from rich.markup import escape

from bot.cli import common, digest, graph, kb, serve, triage
from bot.cli import eval as evaluation
from bot.errors import ErrkbError, ImportFailed

app = typer.Typer(
    name="errkb",
    help="errkb: answers pasted errors from your team's error knowledge base.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)
for module in (kb, triage, evaluation, graph, digest, serve):
    module.register(app)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; user mistakes end with a message and exit 1, never a traceback."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app(args=argv, prog_name="errkb")
    except ImportFailed as exc:
        for problem in exc.problems:
            common.err_console.print(str(problem), highlight=False, markup=False, soft_wrap=True)
        common.err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise SystemExit(1) from None
    except ErrkbError as exc:  # one line, however narrow the terminal: operators grep for it
        message = escape(" ".join(str(exc).split()))
        common.err_console.print(
            f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True
        )
        raise SystemExit(1) from None
