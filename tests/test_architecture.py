"""The thinking stays free of I/O: pure modules import no Slack, database,
scheduler or environment, and read no clock. Time, locale and settings come in
as parameters."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE = [
    "bot/records",
    "bot/channels.py",
    "bot/conversation.py",
    "bot/alerts.py",
    "bot/answer.py",
    "bot/edits.py",
    "bot/fixes.py",
    "bot/report.py",
    "bot/fit",
    "bot/mcp/models.py",
    "bot/mcp/text.py",
    "bot/match",
    "bot/render",
    "bot/i18n",
    "bot/digest/select.py",
    "graph",
]
FORBIDDEN_IMPORTS = (
    "slack_bolt",
    "slack_sdk",
    "sqlalchemy",
    "alembic",
    "apscheduler",
    "bot.store",
    "bot.slack",
    "bot.settings",
    "os",
)
FORBIDDEN_CALLS = {"now", "today", "utcnow", "getenv"}


def pure_files() -> list[Path]:
    files: list[Path] = []
    for entry in PURE:
        path = ROOT / entry
        if path.is_dir():
            files.extend(sorted(path.rglob("*.py")))
        elif path.exists():
            files.append(path)
    return files


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", pure_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_module_does_no_io(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [
        n for n in _imports(tree) if any(n == f or n.startswith(f + ".") for f in FORBIDDEN_IMPORTS)
    ]
    assert not bad, f"{path.name} imports {bad}"
    calls = [
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in FORBIDDEN_CALLS
    ]
    assert not calls, f"{path.name} reads the clock or environment: {calls}"


def test_there_are_pure_modules_to_check() -> None:
    assert len(pure_files()) >= 3
