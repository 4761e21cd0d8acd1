"""A malformed setting stops every command in one line naming the variable, exit 1, no traceback;
``errkb --version`` says which errkb this is."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest

from tests.ops.test_settings import run_errkb

#: (variable, malformed value, a word the one line must carry besides the name)
MALFORMED = [
    ("ERRKB_DATABASE_URL", "foo:///", "'foo'"),
    ("ERRKB_DATABASE_URL", "not a url", "not a database URL"),
    ("ERRKB_DATABASE_URL", "mysql://errkb@db/errkb", "'mysql'"),
    ("ERRKB_DIGEST_CRON", "every monday", "5 fields"),
    ("ERRKB_DIGEST_CRON", "99 9 * * mon", "99"),
    ("ERRKB_CHANNEL_LOCALES", "C0123=xx", "C0123=xx"),
    ("ERRKB_TIMEZONE", "Mars/Olympus", "Mars/Olympus"),
]

#: Commands as an operator runs them, each of which reads the settings first.
COMMANDS = [
    ("stats",),
    ("triage", "data/examples/vllm-oom.txt"),
    ("digest", "--dry-run"),
    ("export",),
    ("serve", "--http", "--port", "0"),
    ("serve", "--socket"),
    ("mcp", "--http", "--port", "0"),
]


#: Every malformed value against one command, the database URL against every command.
CASES = [(("stats",), *bad) for bad in MALFORMED] + [(c, *MALFORMED[0]) for c in COMMANDS[1:]]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "variable", "value", "word"),
    CASES,
    ids=[f"{' '.join(c[0])}-{c[1]}={c[2]}" for c in CASES],
)
def test_a_malformed_setting_is_one_line_naming_it(
    tmp_path: Path, command: tuple[str, ...], variable: str, value: str, word: str
) -> None:
    examples = Path(__file__).resolve().parents[2] / "data" / "examples"
    args = tuple(
        str(examples / a.removeprefix("data/examples/")) if a.startswith("data/") else a
        for a in command
    )
    done = run_errkb(
        tmp_path,
        *args,
        **{
            variable: value,
            "SLACK_SIGNING_SECRET": "s3cret-value",
            "SLACK_BOT_TOKEN": "xoxb-1-2-abc",
        },
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert variable in lines[0] and word in lines[0], lines[0]
    assert "Traceback" not in done.stderr and "s3cret-value" not in done.stderr
    assert done.stdout == ""


@pytest.mark.slow
def test_a_well_formed_url_of_each_supported_database_is_taken(tmp_path: Path) -> None:
    """The check refuses what errkb cannot run on, not the URLs the README shows."""
    sqlite = f"sqlite:///{tmp_path / 'kb.sqlite3'}"
    assert run_errkb(tmp_path, "init", "--no-starter", ERRKB_DATABASE_URL=sqlite).returncode == 0
    done = run_errkb(
        tmp_path, "stats", ERRKB_DATABASE_URL="postgresql+psycopg://errkb:x@127.0.0.1:1/errkb"
    )
    assert done.returncode == 1 and "ERRKB_DATABASE_URL" not in done.stderr  # refused by the server
    assert "cannot reach the database" in done.stderr


def test_version_prints_the_installed_version(tmp_path: Path) -> None:
    done = run_errkb(tmp_path, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"errkb {version('errkb')}"
