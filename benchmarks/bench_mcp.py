"""Latency of ``errkb mcp`` as an agent sees it: the MCP SDK's client over stdio.

Imports a knowledge base (the starter one, or ``--records FILE`` such as the
deadends corpus) into a fresh SQLite file, starts ``errkb mcp`` as the client
does, then prints the time to the first tool list, and per-call p50/p99 of
``triage`` on the starter example pastes, of a 1 MB paste (cut at
``ERRKB_PASTE_LIMIT`` as in Slack), of ``search`` and of ``show``.

    python benchmarks/bench_mcp.py --calls 200
    python benchmarks/bench_mcp.py --records ../shared/corpora/deadends/deadends-canons.jsonl.gz
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from bot.ingest import load_records
from bot.starter import starter_dir
from bot.store import repository
from bot.store.db import open_store


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def timed(calls: int, call: Callable[[int], Awaitable[Any]]) -> str:
    took = []
    for n in range(calls):
        start = time.perf_counter()
        result = await call(n)
        took.append((time.perf_counter() - start) * 1000)
        assert not result.is_error, result.content
    return (
        f"p50 {percentile(took, 0.5):7.2f} ms   "
        f"p99 {percentile(took, 0.99):7.2f} ms   ({calls} calls)"
    )


async def measure(env: dict[str, str], calls: int) -> None:
    pastes = [
        p.read_text(encoding="utf-8") for p in sorted((starter_dir() / "examples").glob("*.txt"))
    ]
    huge = pastes[0] + "\n" + "INFO step 12 ok, loss 0.31, throughput 5012 tok/s\n" * 20_000
    command = [sys.executable, "-m", "bot", "mcp"]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    start = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        async with Client(stdio_client(params, errlog=quiet), mode="legacy") as client:
            tools = await client.list_tools()
            print(
                f"start to tool list ({len(tools.tools)} "
                f"tools): {time.perf_counter() - start:.2f} s"
            )
            print(
                "triage, example pastes:",
                await timed(
                    calls, lambda n: client.call_tool("triage", {"paste": pastes[n % len(pastes)]})
                ),
            )
            print(
                f"triage, {len(huge):,}-char paste:",
                await timed(
                    max(5, calls // 10), lambda n: client.call_tool("triage", {"paste": huge})
                ),
            )
            print(
                "search:",
                await timed(
                    calls, lambda n: client.call_tool("search", {"words": "CUDA out of memory"})
                ),
            )
            found = await client.call_tool("search", {"words": "out of memory", "limit": 1})
            record_id = (found.structured_content or {})["hits"][0]["id"]
            print(
                "show, zh:",
                await timed(
                    calls, lambda n: client.call_tool("show", {"id": record_id, "lang": "zh"})
                ),
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument(
        "--records", type=Path, help="Records to serve instead of the starter knowledge base."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.sqlite3"
        store = open_store(url, migrate=True)
        records = load_records([args.records or starter_dir()])
        with store.transaction() as session:
            repository.import_records(
                session, records=records, on_conflict="upsert", actor="bench", now=datetime.now(UTC)
            )
        store.dispose()
        print(f"{len(records)} records")
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": folder,
            "ERRKB_DATABASE_URL": url,
            "ERRKB_LOG_LEVEL": "WARNING",
        }
        anyio.run(measure, env, args.calls)


if __name__ == "__main__":
    main()
