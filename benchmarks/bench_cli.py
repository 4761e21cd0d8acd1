"""Command-line start-up: CPU seconds (user + system) of a fresh ``errkb`` process.

    .venv/bin/python benchmarks/bench_cli.py [--runs 7] [--imports]

Each command runs in a new process against a temporary SQLite database that
``errkb init`` filled with the starter knowledge base; the figure is the median
of the child's own user + system time (``getrusage``), start-up and imports
included, beside its target. ``--imports`` adds the heaviest imports of a triage
(``python -X importtime``), by top-level package. The machine is shared and its
speed drifts: compare two builds in one run (``farm-bench --vs``) rather than
against a figure from another day.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASTE = ROOT / "data" / "examples" / "vllm-oom.txt"

#: (what is run, target in CPU seconds)
CASES: list[tuple[list[str], float]] = [
    (["--help"], 0.4),
    (["triage", str(PASTE)], 0.8),
]


def errkb(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot", *args]


def cpu_seconds(command: list[str], env: dict[str, str]) -> float:
    """User + system seconds the command's process used, start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def heaviest_imports(env: dict[str, str], top: int = 12) -> list[tuple[str, float]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", "triage", str(PASTE)],
        env=env, cwd=ROOT, check=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    spent: Counter[str] = Counter()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        spent[name.strip().split(".")[0]] += int(own)
    return [(name, us / 1e6) for name, us in spent.most_common(top)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--imports", action="store_true", help="list the heaviest imports too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errkb-bench-cli-") as folder:
        env = {**os.environ, "ERRKB_DATABASE_URL": f"sqlite:///{folder}/errkb.db",
               "ERRKB_LOG_FORMAT": "text"}  # fmt: skip
        subprocess.run(errkb("init"), env=env, cwd=ROOT, check=True, capture_output=True)
        for argv, target in CASES:
            cpu_seconds(errkb(*argv), env)  # warm the file cache and .pyc files
            runs = sorted(cpu_seconds(errkb(*argv), env) for _ in range(args.runs))
            median = statistics.median(runs)
            verdict = "ok" if median <= target else "FAIL"
            shown = " ".join(a if not a.startswith("/") else os.path.relpath(a, ROOT) for a in argv)
            print(f"errkb {shown}: {median:.3f} CPU-s median of {args.runs} "
                  f"(min {runs[0]:.3f}, max {runs[-1]:.3f}); target <= {target:.2f}  {verdict}")  # fmt: skip
        if args.imports:
            print(
                "heaviest imports of a triage (self time under -X importtime, which inflates it):"
            )
            for name, seconds in heaviest_imports(env):
                print(f"  {name:24} {seconds:.3f} s")


if __name__ == "__main__":
    main()
