"""The README's command reference, written from the commands' own ``--help``.

``python -m bot.cli.reference`` prints it, ``--write`` puts it into README.md
between its markers, ``--check`` exits 1 when README.md says something else
(the test suite runs the same comparison). Each row is read from the parsed
command, so the README lists exactly the arguments and options ``--help`` shows.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bot.cli.commands import COMMANDS, Command
from bot.cli.group import load

BEGIN = "<!-- command reference: `python -m bot.cli.reference --write` writes it from --help -->"
END = "<!-- end of command reference -->"
README = Path(__file__).resolve().parents[2] / "README.md"


def synopsis(command: Command) -> str:
    """``errkb NAME ARGUMENTS``, arguments as ``--help`` names them."""
    words = ["errkb", command.name]
    for param in load(command).params:
        if param.param_type_name != "argument":
            continue
        name = (getattr(param, "metavar", None) or param.name or "").upper()
        name += "..." if param.nargs == -1 else ""
        words.append(name if param.required else f"[{name}]")
    return " ".join(words)


def options(command: Command) -> list[str]:
    """Every option ``--help`` lists (but ``--help`` itself), as it spells them."""
    found = []
    for param in load(command).params:
        if param.param_type_name != "option" or getattr(param, "hidden", False):
            continue
        found.append("/".join([*param.opts, *param.secondary_opts]))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    """The reference as a Markdown table, one row per command."""
    lines = ["| command | what it does | options |", "| --- | --- | --- |"]
    for command in COMMANDS:
        opts = ", ".join(f"`{_cell(o)}`" for o in options(command)) or "—"
        lines.append(f"| `{_cell(synopsis(command))}` | {_cell(command.summary)} | {opts} |")
    return "\n".join(lines) + "\n"


def current(readme: str) -> str:
    """What README.md holds between the markers."""
    start = readme.find(BEGIN)
    end = readme.find(END)
    if start < 0 or end < start:
        raise ValueError(f"README.md has no command reference markers ({BEGIN!r} … {END!r})")
    return readme[start + len(BEGIN) : end].strip("\n") + "\n"


def rewrite(readme: str) -> str:
    start = readme.find(BEGIN)
    end = readme.find(END)
    current(readme)  # the markers exist
    return readme[: start + len(BEGIN)] + "\n\n" + render() + "\n" + readme[end:]


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    if "--write" in argv:
        README.write_text(rewrite(text), encoding="utf-8")
        return 0
    if "--check" in argv:
        if current(text) != render():
            print(
                "README.md's command reference is out of date: python -m bot.cli.reference --write",
                file=sys.stderr,
            )
            return 1
        return 0
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
