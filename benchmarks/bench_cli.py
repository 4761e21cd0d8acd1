"""Command-line start-up: CPU seconds (user + system) of a fresh ``errkb`` process.

    .venv/bin/python benchmarks/bench_cli.py [--runs 7] [--imports] [--no-corpus]

Each command runs in a new process against a temporary SQLite database that
``errkb init`` filled with the starter knowledge base; the figure is the median
of the child's own user + system time (``getrusage``), start-up and imports
included, beside its target. Then the same triage against a database the deadends
corpus (``../shared/corpora/deadends``, 2,522 records) was imported into: from the
knowledge snapshot the run before left (``ERRKB_CACHE_DIR``), and after a change to
the database (the snapshot is then at another version: the index is built from the
records and the snapshot written again), beside deadends.dev's own lookup of the
same paste (load its JSON lines, ``re.search`` every record's regex). Skipped
without the corpus or with ``--no-corpus``. ``--imports`` adds the heaviest imports
of a triage (``python -X importtime``), by top-level package. The machine is shared
and its speed drifts: compare two builds in one run (``farm-bench --vs``) rather
than against a figure from another day.
"""

from __future__ import annotations

import argparse
import json
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
CORPUS = ROOT.parent / "shared" / "corpora" / "deadends" / "deadends-canons.jsonl.gz"
#: A cold triage of the corpus, started from its snapshot, in CPU seconds.
CORPUS_TARGET = 0.6
#: deadends.dev's lookup: every record's regex over the paste's first 10,000 characters.
LOOKUP = """
import gzip, json, re, sys
records = [json.loads(line) for line in gzip.open(sys.argv[1], "rt", encoding="utf-8")]
head = open(sys.argv[2], encoding="utf-8").read()[:10_000]
regexes = [(r["id"], (r.get("error") or {}).get("regex")) for r in records]
hits = [rid for rid, regex in regexes if regex and re.search(regex, head, re.I)]
assert len(records) > 2000 and sum(1 for _, regex in regexes if regex) > 2000
"""

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
    subprocess.run(
        command,
        env=env,
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=120,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def heaviest_imports(env: dict[str, str], top: int = 12) -> list[tuple[str, float]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", "triage", str(PASTE)],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    spent: Counter[str] = Counter()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        spent[name.strip().split(".")[0]] += int(own)
    return [(name, us / 1e6) for name, us in spent.most_common(top)]


def report(what: str, runs: list[float], target: float | None) -> None:
    runs = sorted(runs)
    median = statistics.median(runs)
    verdict = (
        ""
        if target is None
        else f"; target <= {target:.2f}  " + ("ok" if median <= target else "FAIL")
    )
    print(
        f"{what}: {median:.3f} CPU-s median of {len(runs)} "
        f"(min {runs[0]:.3f}, max {runs[-1]:.3f}){verdict}"
    )


def corpus(folder: str, count: int) -> None:
    """Triage against the imported corpus: from its snapshot, and after a change."""
    env = {
        **os.environ,
        "ERRKB_DATABASE_URL": f"sqlite:///{folder}/corpus.db",
        "ERRKB_CACHE_DIR": f"{folder}/cache",
        "ERRKB_LOG_FORMAT": "text",
    }
    subprocess.run(
        errkb("init", "--no-starter"), env=env, cwd=ROOT, check=True, capture_output=True
    )
    subprocess.run(errkb("import", str(CORPUS)), env=env, cwd=ROOT, check=True, capture_output=True)
    triage = errkb("triage", str(PASTE))
    cpu_seconds(triage, env)  # builds once and leaves the snapshot
    report(
        "errkb triage, 2,522 records, from the snapshot",
        [cpu_seconds(triage, env) for _ in range(count)],
        CORPUS_TARGET,
    )
    changed = []
    for n in range(count):
        one = Path(folder) / f"change-{n}.json"
        one.write_text(json.dumps(changed_record(n)), encoding="utf-8")
        subprocess.run(
            errkb("import", str(one)), env=env, cwd=ROOT, check=True, capture_output=True
        )
        changed.append(cpu_seconds(triage, env))
    report(
        "errkb triage, 2,522 records, after a change (builds, writes the snapshot)", changed, None
    )
    lookup = [sys.executable, "-c", LOOKUP, str(CORPUS), str(PASTE)]
    report(
        "deadends.dev lookup of the same paste, 2,522 records",
        [cpu_seconds(lookup, env) for _ in range(count)],
        None,
    )


def changed_record(n: int) -> dict[str, object]:
    """A small record of its own, so each import moves the knowledge version."""
    return {
        "id": f"bench/changed-{n}",
        "signature": f"BenchChangedError: change number {n}",
        "regex": f"BenchChangedError: change number {n}\\b",
        "domain": "bench",
        "category": "bench",
        "root_cause": "A record the benchmark imports to change the database.",
        "workarounds": [],
        "dead_ends": [],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--imports", action="store_true", help="list the heaviest imports too")
    parser.add_argument("--no-corpus", action="store_true", help="skip the 2,522-record database")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errkb-bench-cli-") as folder:
        env = {
            **os.environ,
            "ERRKB_DATABASE_URL": f"sqlite:///{folder}/errkb.db",
            "ERRKB_LOG_FORMAT": "text",
        }
        subprocess.run(errkb("init"), env=env, cwd=ROOT, check=True, capture_output=True)
        for argv, target in CASES:
            cpu_seconds(errkb(*argv), env)  # warm the file cache and .pyc files
            runs = sorted(cpu_seconds(errkb(*argv), env) for _ in range(args.runs))
            median = statistics.median(runs)
            verdict = "ok" if median <= target else "FAIL"
            shown = " ".join(a if not a.startswith("/") else os.path.relpath(a, ROOT) for a in argv)
            print(
                f"errkb {shown}: {median:.3f} CPU-s median of {args.runs} "
                f"(min {runs[0]:.3f}, max {runs[-1]:.3f}); target <= {target:.2f}  {verdict}"
            )
        if CORPUS.exists() and not args.no_corpus:
            corpus(folder, args.runs)
        if args.imports:
            print(
                "heaviest imports of a triage (self time under -X importtime, which inflates it):"
            )
            for name, seconds in heaviest_imports(env):
                print(f"  {name:24} {seconds:.3f} s")


if __name__ == "__main__":
    main()
