"""Command-line start-up: CPU seconds (user + system) of a fresh ``errkb`` process.

    .venv/bin/python benchmarks/bench_cli.py [--runs 7] [--imports] [--no-corpus] [--vs TREE]

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
of a triage (``python -X importtime``), by top-level package.

errkb is measured as installed: its modules compiled to bytecode (``pip install``
writes the ``.pyc`` files; the warm-up run writes them here, whatever
``PYTHONDONTWRITEBYTECODE`` says), so a figure is errkb's work and not the
compilation of its sources. The machine is shared and its speed drifts:
``--vs TREE`` measures another checkout (its own ``.venv``) in the same run, each
command run in turn by one build and then the other, each build with a database
of its own.
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
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Build:
    """A checkout of errkb and the interpreter that runs it."""

    name: str
    root: Path
    python: str

    def errkb(self, *args: str) -> list[str]:
        return [self.python, "-m", "bot", *args]


def environment(folder: str, **more: str) -> dict[str, str]:
    """The child's environment: a database in ``folder``, bytecode written and read."""
    env = {
        **os.environ,
        "ERRKB_DATABASE_URL": f"sqlite:///{folder}/errkb.db",
        "ERRKB_LOG_FORMAT": "text",
        **more,
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cpu_seconds(command: list[str], env: dict[str, str], cwd: Path = ROOT) -> float:
    """User + system seconds the command's process used, start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        command,
        env=env,
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=120,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def heaviest_imports(build: Build, env: dict[str, str], top: int = 12) -> list[tuple[str, float]]:
    done = subprocess.run(
        [build.python, "-X", "importtime", "-m", "bot", "triage", str(PASTE)],
        env=env,
        cwd=build.root,
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


def in_turn(
    builds: list[Build], count: int, run: Callable[[Build], float]
) -> dict[str, list[float]]:
    """``count`` runs of each build, one build after the other, so drift falls on all alike."""
    runs: dict[str, list[float]] = {build.name: [] for build in builds}
    for _ in range(count):
        for build in builds:
            runs[build.name].append(run(build))
    return runs


def label(build: Build, builds: list[Build], what: str) -> str:
    return what if len(builds) == 1 else f"[{build.name}] {what}"


def startup(builds: list[Build], folder: str, count: int) -> None:
    """``errkb --help`` and a starter triage, against a database ``errkb init`` filled."""
    envs = {}
    for build in builds:
        own = Path(folder) / build.name
        own.mkdir()
        envs[build.name] = environment(str(own))
        subprocess.run(
            build.errkb("init"),
            env=envs[build.name],
            cwd=build.root,
            check=True,
            capture_output=True,
        )
    for argv, target in CASES:
        for build in builds:  # the file cache warm and the .pyc files written
            cpu_seconds(build.errkb(*argv), envs[build.name], build.root)
        runs = in_turn(builds, count, command_runner(argv, envs))
        shown = " ".join(a if not a.startswith("/") else os.path.relpath(a, ROOT) for a in argv)
        for build in builds:
            report(label(build, builds, f"errkb {shown}"), runs[build.name], target)


def command_runner(argv: list[str], envs: dict[str, dict[str, str]]) -> Callable[[Build], float]:
    """One run of ``errkb ARGV`` by a build, in its own environment."""

    def run(build: Build) -> float:
        return cpu_seconds(build.errkb(*argv), envs[build.name], build.root)

    return run


def corpus(builds: list[Build], folder: str, count: int) -> None:
    """Triage against the imported corpus: from its snapshot, and after a change."""
    envs = {}
    for build in builds:
        own = Path(folder) / f"corpus-{build.name}"
        own.mkdir()
        env = environment(str(own), ERRKB_CACHE_DIR=f"{own}/cache")
        envs[build.name] = env
        for step in (build.errkb("init", "--no-starter"), build.errkb("import", str(CORPUS))):
            subprocess.run(step, env=env, cwd=build.root, check=True, capture_output=True)
        cpu_seconds(build.errkb("triage", str(PASTE)), env, build.root)  # leaves the snapshot

    def triage(build: Build) -> float:
        return cpu_seconds(build.errkb("triage", str(PASTE)), envs[build.name], build.root)

    snapshot = in_turn(builds, count, triage)
    for build in builds:
        report(
            label(build, builds, "errkb triage, 2,522 records, from the snapshot"),
            snapshot[build.name],
            CORPUS_TARGET,
        )
    changes = iter(range(count * len(builds)))

    def changed(build: Build) -> float:
        one = Path(folder) / f"change-{next(changes)}.json"
        one.write_text(json.dumps(changed_record(one.stem)), encoding="utf-8")
        subprocess.run(
            build.errkb("import", str(one)),
            env=envs[build.name],
            cwd=build.root,
            check=True,
            capture_output=True,
        )
        return triage(build)

    after = in_turn(builds, count, changed)
    for build in builds:
        report(
            label(
                build,
                builds,
                "errkb triage, 2,522 records, after a change (builds, writes the snapshot)",
            ),
            after[build.name],
            None,
        )
    lookup = [sys.executable, "-c", LOOKUP, str(CORPUS), str(PASTE)]
    report(
        "deadends.dev lookup of the same paste, 2,522 records",
        [cpu_seconds(lookup, os.environ.copy()) for _ in range(count)],
        None,
    )


def changed_record(name: str) -> dict[str, object]:
    """A small record of its own, so each import moves the knowledge version."""
    return {
        "id": f"bench/{name}",
        "signature": f"BenchChangedError: {name}",
        "regex": f"BenchChangedError: {name}\\b",
        "domain": "bench",
        "category": "bench",
        "root_cause": "A record the benchmark imports to change the database.",
        "workarounds": [],
        "dead_ends": [],
    }


def builds_to_measure(vs: Path | None) -> list[Build]:
    this = Build("this", ROOT, sys.executable)
    if vs is None:
        return [this]
    other = vs.resolve()
    python = other / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"--vs {vs}: no {python} (create its .venv and install errkb there)")
    return [Build("vs", other, str(python)), this]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--imports", action="store_true", help="list the heaviest imports too")
    parser.add_argument("--no-corpus", action="store_true", help="skip the 2,522-record database")
    parser.add_argument(
        "--vs", type=Path, default=None, help="another checkout to measure in the same run"
    )
    args = parser.parse_args()
    builds = builds_to_measure(args.vs)
    if len(builds) > 1:
        print(f"vs = {builds[0].root}; this = {ROOT}")
    with tempfile.TemporaryDirectory(prefix="errkb-bench-cli-") as folder:
        startup(builds, folder, args.runs)
        if CORPUS.exists() and not args.no_corpus:
            corpus(builds, folder, args.runs)
        if args.imports:
            print(
                "heaviest imports of a triage (self time under -X importtime, which inflates it):"
            )
            env = environment(f"{folder}/{builds[-1].name}")
            for name, seconds in heaviest_imports(builds[-1], env):
                print(f"  {name:24} {seconds:.3f} s")


if __name__ == "__main__":
    main()
