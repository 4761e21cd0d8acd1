"""Graph benchmark: build time and memory, and per-query latency.

    .venv/bin/python benchmarks/bench_graph.py [--nodes 100000 --edges 300000 --queries 1000]

Targets (issue 4): deadends corpus build < 1 s; 100k-node / 300k-edge build
< 30 s; every query < 5 ms at 100k (centrality is computed once, then looked
up). The deadends part is skipped when ../shared is absent.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.records import Record
from graph.build import KnowledgeGraph, build_graph
from graph.lookalike import look_alikes
from graph.triage import likely_causes, likely_next, order_errors

DEADENDS = ROOT.parent / "shared" / "corpora" / "deadends" / "deadends-canons.jsonl.gz"


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def build_figures(label: str, records: list[Record]) -> KnowledgeGraph:
    gc.collect()
    kg, seconds = timed(lambda: build_graph(records))
    tracemalloc.start()
    build_graph(records)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"{label}: build {seconds:.3f} s, peak memory during build {peak / 2**20:.1f} MiB "
        f"({len(kg)} nodes, {kg.edge_count} leads_to edges, {kg.confusion_count} look-alike pairs)"
    )
    return kg


def synthetic(nodes: int, edges: int, seed: int = 7) -> list[Record]:
    rng = random.Random(seed)
    ids = [f"syn/d{i % 50}/e{i}" for i in range(nodes)]
    per = edges // nodes
    records = []
    for i, rid in enumerate(ids):
        leads = [
            {
                "error_id": ids[rng.randrange(nodes)],
                "probability": round(rng.uniform(0.05, 0.95), 2),
            }
            for _ in range(per)
        ]
        confused = [ids[rng.randrange(nodes)]] if i % 10 == 0 else []
        records.append(
            Record.model_validate(
                {
                    "id": rid,
                    "signature": f"SynthError: failure number {i} in module m{i % 97}",
                    "regex": f"SynthError: failure number {i}\\b",
                    "domain": f"d{i % 50}",
                    "transition_graph": {"leads_to": leads, "frequently_confused_with": confused},
                }
            )
        )
    return records


def latency(label: str, fn: Callable[[str], Any], ids: list[str]) -> float:
    samples = []
    for rid in ids:
        start = time.perf_counter()
        fn(rid)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p99 = samples[int(len(samples) * 0.99) - 1]
    print(
        f"  {label:<22} median {statistics.median(samples):7.3f} ms   p99 {p99:7.3f} ms"
        f"   max {samples[-1]:7.3f} ms"
    )
    return p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=1000)
    args = parser.parse_args()

    if DEADENDS.exists():
        from bot.ingest import load_records

        records, seconds = timed(lambda: load_records([DEADENDS]))
        print(f"deadends: read and validate {len(records)} records {seconds:.3f} s")
        build_figures("deadends", records)
    else:
        print(f"deadends: skipped ({DEADENDS} not present)")

    records, seconds = timed(lambda: synthetic(args.nodes, args.edges))
    print(f"synthetic: make {len(records)} records {seconds:.1f} s (not part of the build)")
    kg = build_figures(f"synthetic {args.nodes}/{args.edges}", records)
    del records
    _, seconds = timed(kg.centralities)
    print(f"synthetic: centrality (PageRank + degree) computed once {seconds:.3f} s")

    gc.collect()  # a settled process: the garbage of the build (and the traced rebuild) is gone
    rng = random.Random(1)
    ids = list(kg.record_ids)
    sample = [ids[rng.randrange(len(ids))] for _ in range(args.queries)]
    print(f"per-query latency over {args.queries} random records:")
    worst = max(
        latency("likely causes (k=3)", lambda r: likely_causes(kg, r), sample),
        latency("likely next", lambda r: likely_next(kg, r), sample),
        latency("look-alikes", lambda r: look_alikes(kg, r), sample),
        latency(
            "order of 3 errors",
            lambda r: order_errors(
                kg, [r, *(n.id for n in likely_next(kg, r)[:1]), ids[hash(r) % len(ids)]]
            ),
            sample,
        ),
        latency("centrality lookup", kg.centrality, sample),
    )
    print(f"worst p99 {worst:.3f} ms (target < 5 ms)")


if __name__ == "__main__":
    main()
