"""graph/ is the pure middle: no database, Slack, scheduler or clock; networkx stays inside."""

from __future__ import annotations

import ast
from pathlib import Path

GRAPH = Path(__file__).resolve().parents[2] / "graph"
FORBIDDEN_MODULES = (
    "sqlalchemy",
    "slack_sdk",
    "slack_bolt",
    "apscheduler",
    "bot.store",
    "bot.slack",
)
CLOCK_CALLS = ("now", "today", "utcnow", "time", "monotonic")


def test_graph_imports_no_edges_and_reads_no_clock() -> None:
    problems = []
    for path in sorted(GRAPH.glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            problems += [
                f"{path.name}: imports {n}" for n in names if n.startswith(FORBIDDEN_MODULES)
            ]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if (
                    node.func.attr in CLOCK_CALLS
                    and isinstance(owner, ast.Name)
                    and owner.id in ("datetime", "date", "time")
                ):
                    problems.append(f"{path.name}:{node.lineno}: reads the clock")
    assert problems == []


def test_networkx_stays_inside_graph() -> None:
    root = GRAPH.parent
    users = [
        str(p.relative_to(root))
        for folder in ("bot",)
        for p in (root / folder).rglob("*.py")
        if "import networkx" in p.read_text("utf-8") or "from networkx" in p.read_text("utf-8")
    ]
    assert users == []
