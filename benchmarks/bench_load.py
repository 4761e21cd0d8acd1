"""Loading records back from the store: CPU seconds of ``repository.load_records``.

    .venv/bin/python benchmarks/bench_load.py [--size 100000] [--runs 3] [--folder DIR]
                                              [--postgres URL] [--profile]

The first run imports ``--size`` synthetic records (``synthetic_kb.py``) into a
SQLite file in ``--folder`` (kept, and reused by later runs of the same size), or
into a new database on the PostgreSQL server at ``--postgres`` (dropped after).
Then each run loads every record (``include_deprecated=False``, what a server
and ``errkb triage`` load) in a fresh process, and prints the median CPU seconds
(user + system, ``time.process_time``) of the load alone, its peak memory
growth and a digest of what was loaded (equal digests: equal records).
PostgreSQL's own CPU is not counted. The machine is shared: compare two
builds in one sitting, not against a figure from another day.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT),
    str(ROOT / "benchmarks"),
]  # this checkout's errkb, whichever is installed


def build(url: str, size: int) -> None:
    from synthetic_kb import synthetic_records

    from bot.store import repository
    from bot.store.db import open_store

    store = open_store(url, migrate=True)
    try:
        with store.transaction() as session:
            repository.import_records(
                session,
                records=synthetic_records(size),
                on_conflict="upsert",
                actor="bench",
                now=datetime.now(UTC),
            )
    finally:
        store.dispose()


def load_once(url: str, profile: bool) -> None:
    """One load in this process; prints its figures as one JSON line."""
    from bot.store import repository
    from bot.store.db import open_store

    store = open_store(url)
    with store.read() as rows:  # as a server loads (bot.knowledge.store_loader)
        rows.connection()  # connect before the clock starts
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
        start = time.process_time()
        records = repository.load_records(rows, include_deprecated=False)
        seconds = time.process_time() - start
        if profile:
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    digest = hashlib.sha256()
    for record in records:
        digest.update(json.dumps(record.to_native(), sort_keys=True, default=str).encode())
    store.dispose()
    print(
        json.dumps(
            {
                "cpu": seconds,
                "records": len(records),
                "grown_mib": grown / 1024,
                "digest": digest.hexdigest()[:16],
            }
        )
    )


def _postgres(base: str) -> tuple[str, object]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(base).set(drivername="postgresql+psycopg")
    name = f"errkb_bench_load_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url.set(database=name).render_as_string(hide_password=False), drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--folder", type=Path, default=Path(tempfile.gettempdir()) / "errkb-bench-load"
    )
    parser.add_argument("--postgres", help="a PostgreSQL server URL instead of a SQLite file")
    parser.add_argument("--profile", action="store_true", help="print a profile of one load")
    parser.add_argument("--load-once", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_once:
        load_once(args.load_once, args.profile)
        return
    drop = None
    if args.postgres:
        url, drop = _postgres(args.postgres)
        build(url, args.size)
    else:
        args.folder.mkdir(parents=True, exist_ok=True)
        path = args.folder / f"synthetic-{args.size}.sqlite3"
        url = f"sqlite:///{path}"
        if not path.exists():
            build(url, args.size)
    try:
        runs = []
        for n in range(args.runs):
            command = [sys.executable, __file__, "--load-once", url]
            if args.profile and n == 0:
                command.append("--profile")
            done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
            if args.profile and n == 0:
                print(done.stderr)
            runs.append(json.loads(done.stdout.splitlines()[-1]))
    finally:
        if drop is not None:
            drop()  # type: ignore[operator]
    cpu = sorted(r["cpu"] for r in runs)
    print(
        f"load_records, {runs[0]['records']} records "
        f"({'PostgreSQL' if args.postgres else 'SQLite'}): "
        f"{statistics.median(cpu):.2f} CPU-s median of "
        f"{len(cpu)} (min {cpu[0]:.2f}, max {cpu[-1]:.2f}); "
        f"peak memory +{statistics.median(r['grown_mib'] for r in runs):.0f} MiB; "
        f"digest {runs[0]['digest']}"
    )


if __name__ == "__main__":
    main()
