"""The command table holds the CLI together: every command in it runs, has help with its
example, and is in the README's command reference exactly as ``--help`` describes it;
``errkb --help`` and ``errkb triage`` import only what they use."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app, reference
from bot.cli.commands import COMMANDS, GROUPS, Command
from bot.store.db import Store

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _help(words: tuple[str, ...]) -> str:
    result = runner.invoke(app, [*words, "--help"])
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # line wrapping aside


def _names(group: tuple[str, ...] = ()) -> list[str]:
    """Every command the parser knows, found by walking ``errkb --help`` listings."""
    listing = runner.invoke(app, [*group, "--help"]).output
    found = []
    for name in re.findall(r"^│ (\S+) ", listing.split("Commands")[1], re.M):
        words = (*group, name)
        found += _names(words) if any(g.words == words for g in GROUPS) else [" ".join(words)]
    return found


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_every_command_has_help_with_its_summary_and_example(command: Command) -> None:
    text = _help(command.words)
    assert f"Usage: errkb {command.name} " in text
    assert command.summary in text
    assert f"Example: {command.example}" in text
    assert command.example.startswith(f"errkb {command.name}")
    for option in reference.options(command):
        assert option.split("/")[0] in text, f"errkb {command.name} --help lacks {option}"


def test_the_listings_show_exactly_the_table() -> None:
    assert _names() == [c.name for c in COMMANDS]
    for group in GROUPS:
        assert group.summary in _help(group.words)


def test_the_readme_command_reference_is_what_help_says() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = reference.current(readme)
    listed = re.findall(r"^\| `errkb ([a-z][a-z0-9 -]*?)(?: [A-Z\[]|`)", block, re.M)
    assert listed == [c.name for c in COMMANDS], "README commands differ from the command table"
    assert block == reference.render(), (
        "README.md's command reference is out of date: python -m bot.cli.reference --write"
    )


def test_an_unknown_command_is_refused_with_a_suggestion() -> None:
    result = runner.invoke(app, ["trage"])
    assert result.exit_code == 2 and "Did you mean 'triage'?" in result.output


def _modules_after(*argv: str, env: dict[str, str] | None = None) -> set[str]:
    script = (
        "import json, sys\n"
        "from bot.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "sys.stdout = sys.__stdout__\n"
        "print('\\n' + json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=True,
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


HEAVY = {"matplotlib", "slack_bolt", "apscheduler", "networkx", "numpy", "sqlalchemy", "yaml"}


def test_help_imports_no_command_module_and_no_heavy_library() -> None:
    loaded = _modules_after("--help")
    assert not {
        m
        for m in loaded
        if m.startswith("bot.cli.") and m not in {"bot.cli.commands", "bot.cli.group"}
    }
    assert not HEAVY & {m.split(".")[0] for m in loaded}


@pytest.mark.slow
def test_triage_imports_only_what_triage_needs_and_from_the_snapshot_no_sqlalchemy(
    committed_store: Store,
) -> None:
    assert runner.invoke(app, ["init"]).exit_code == 0  # the starter knowledge base, to answer from
    paste = ROOT / "data" / "examples" / "vllm-oom.txt"
    loaded = _modules_after("triage", str(paste), env=dict(os.environ))
    assert "bot.match.index" in loaded and "bot.cli.triage" in loaded  # it did triage
    assert "bot.bootstrap" in loaded  # its knowledge is wired where every entry point's is
    slack = {"slack_bolt", "slack_sdk", "waitress", "apscheduler"}  # what bootstrap also wires
    heavy = slack | {"matplotlib", "yaml", "networkx", "alembic"}
    assert not heavy & {m.split(".")[0] for m in loaded}
    assert not {m for m in loaded if m.startswith("bot.slack") or m == "bot.knowledge"}
    if os.environ["ERRKB_DATABASE_URL"].startswith("sqlite"):  # no PostgreSQL drivers for SQLite
        assert "sqlalchemy.dialects.postgresql" not in loaded
    # records are read as plain rows of the Core tables: no ORM, no mapped classes
    assert not {"sqlalchemy.orm", "bot.store.models"} & loaded
    assert {m for m in loaded if m.startswith("bot.cli.")} == {
        "bot.cli.commands",
        "bot.cli.group",
        "bot.cli.common",
        "bot.cli.triage",
    }
    again = _modules_after("triage", str(paste), env=dict(os.environ))  # from the snapshot
    assert "bot.match.index" in again
    if os.environ["ERRKB_DATABASE_URL"].startswith("sqlite"):  # read with the standard library
        assert not {m for m in again if m.split(".")[0] == "sqlalchemy"}
