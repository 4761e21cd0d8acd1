"""Every benchmark still runs: each script, at its smallest size, prints its figures.

The benchmarks are how errkb's speed targets are checked, and two of them once
stopped running after refactors nobody measured. These runs check that each
script works and prints what it promises, not its figures (those depend on the
machine: a missed target is the script's report, not a failure here).
They run once, in the SQLite pass of the suite (the benchmarks make their own
databases); the two that need the deadends corpus skip without it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEADENDS, ROOT, need_shared

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("ERRKB_TEST_DATABASE_URL", "").startswith("postgresql"),
        reason="the benchmarks run once, in the SQLite pass of the suite",
    ),
]


def bench(script: str, *args: str, timeout: float = 300) -> str:
    """Run one benchmark script; its standard output. A crash fails the test."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode in (0, 1), done.stderr[-3000:]
    return done.stdout


def test_bench_answer_prints_every_reply_and_a_verdict() -> None:
    out = bench("bench_answer.py", "--no-before")
    assert "12 replies:" in out and "fail" in out


def test_bench_cli_times_help_and_triage() -> None:
    out = bench("bench_cli.py", "--runs", "1")
    assert "errkb --help:" in out and "errkb triage" in out and "CPU-s" in out
    if DEADENDS.exists():  # the 2,522-record database, from its snapshot and after a change
        for figure in ("2,522 records, from the snapshot", "after a change", "deadends.dev lookup"):
            assert figure in out, out


def test_bench_graph_prints_query_latencies() -> None:
    out = bench("bench_graph.py", "--nodes", "2000", "--edges", "6000", "--queries", "20")
    assert "centrality lookup" in out and "worst p99" in out


def test_bench_mcp_calls_each_tool() -> None:
    out = bench("bench_mcp.py", "--calls", "3")
    for tool in ("triage", "search", "show"):
        assert f"{tool}" in out
    assert "p50" in out and "p99" in out


def test_bench_faults_runs_a_scenario_with_its_verdict() -> None:
    out = bench("bench_faults.py", "--only", "malformed")
    assert "tracebacks" in out and out.rstrip().endswith("PASS")


def test_bench_knowledge_prints_every_figure_beside_its_target() -> None:
    out = bench("bench_knowledge.py", "--sizes", "300")
    for figure in (
        "first build",
        "one changed record",
        "paste p99 at 50/s during updates (ms)",
        "back to back: p99 during updates / usual",
        "an update while pastes run",
        "memory kept after the first",
        "restart, unchanged KB",
        "rebuilds for a vote",
        "one change answerable",
    ):
        assert figure in out, out


def test_bench_load_loads_what_it_imported(tmp_path: Path) -> None:
    out = bench("bench_load.py", "--size", "200", "--runs", "1", "--folder", str(tmp_path))
    assert re.search(r"load_records, 200 records \(SQLite\): [\d.]+ CPU-s", out), out


def test_bench_slack_serves_the_corpus_under_load() -> None:
    need_shared()
    out = bench("bench_slack.py", "--seconds", "2", "--rate", "5", "--imports", "1")
    for figure in (
        "ack p50 / p99",
        "paste-to-answer p50 / p99",
        "pastes answered twice",
        "one-record imports succeeded",
        "rebuilds from",
    ):
        assert figure in out, out
    assert re.search(r"pastes answered twice\s+0\s", out), out


def test_fit_ranker_prints_grouped_folds_beside_ungrouped_and_writes_nothing() -> None:
    features = ROOT / "bot" / "match" / "features.py"
    shipped = features.read_text(encoding="utf-8")
    out = bench("fit_ranker.py", "eval/starter-general.jsonl", "--folds", "3", "--grid", "0.3")
    assert features.read_text(encoding="utf-8") == shipped
    assert "ungrouped fold 0:" in out and "nested cross-validation (held-out folds)" in out
    folds = re.findall(
        r"^grouped by repository and ecosystem fold \d+: \d+ cases \(([^)]*)\)", out, re.M
    )
    assert len(folds) >= 2, out
    held = [{part.rsplit(" ", 1)[0] for part in fold.split(", ")} for fold in folds]
    # no ecosystem in two folds
    assert all(not (a & b) for n, a in enumerate(held) for b in held[n + 1 :]), held
    table = out.split(
        "held-out figures: ungrouped nested CV | grouped by repository and ecosystem", 1
    )[1]
    assert "by set" in table and "by ecosystem" in table
    for row in ("starter-general", "all", "python", "docker"):
        cells = re.search(rf"^  {row} +\d+ +\d+ \|(.*)\|(.*)$", table, re.M)
        assert cells, table
        assert all(len(side.split()) == 6 for side in cells.groups())  # top-1 … declines, each side


def test_benchmarks_are_all_covered() -> None:
    """A new benchmark gets a run here (or a reason it cannot have one)."""
    heavy = {"bench_match.py", "bench_import.py"}  # minutes on the deadends corpus: run by hand
    scripts = {p.name for p in Path(ROOT / "benchmarks").glob("bench_*.py")}
    tested = {
        name.removeprefix("test_").split("_")[1]
        for name in globals()
        if name.startswith("test_bench_")
    }
    assert {s.removeprefix("bench_").removesuffix(".py") for s in scripts - heavy} <= tested


def test_bench_longpaste_finds_the_error_on_every_surface() -> None:
    out = bench("bench_longpaste.py", "--sizes", "10000", "--where", "end", "--runs", "1")
    for surface in ("Slack snippet", "/errkb", "MCP", "CLI"):
        assert f"{surface}" in out
    assert "every paste found by this checkout" in out


def test_bench_fixes_prints_first_and_top2_before_and_after() -> None:
    out = bench("bench_fixes.py", "--verbose")
    assert re.search(r"fix that worked 1st\s+\d+/\d+ = [\d.]+\s+\d+/\d+ = [\d.]+", out)
    assert re.search(r"fix that worked top2\s+\d+/\d+", out)
    assert "vllm-cache-qwen05b" in out  # a case whose order the paste changed, listed
