"""Import speed of the deadends corpus on SQLite and PostgreSQL.

Usage: python benchmarks/bench_import.py [--postgres URL] [--corpus PATH]

Prints, per database: reading and validating the corpus, the first import (all
added), a re-import (all unchanged) and loading every record back. Target:
the first import under 10 s on each database.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bot.ingest import load_records
from bot.store import repository as repo
from bot.store.db import open_store

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "deadends" / "deadends-canons.jsonl.gz"


def timed(label: str, func):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = func()
    print(f"  {label:<28} {time.perf_counter() - start:8.2f} s")
    return result


def run(url: str, corpus: Path) -> None:
    records = load_records([corpus])
    store = open_store(url, migrate=True)
    now = datetime.now(UTC)

    def importing():  # type: ignore[no-untyped-def]
        with store.transaction() as session:
            return repo.import_records(
                session, records=records, on_conflict="upsert", actor="bench", now=now
            )

    first = timed("import (all new)", importing)
    again = timed("re-import (unchanged)", importing)

    def loading():  # type: ignore[no-untyped-def]
        with store.transaction() as session:
            return repo.load_records(session)

    loaded = timed("load every record", loading)
    print(
        f"  added {len(first.added)}, unchanged on re-import "
        f"{len(again.unchanged)}, loaded {len(loaded)}"
    )
    store.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    if not args.corpus.exists():
        raise SystemExit(f"corpus not found: {args.corpus}")
    start = time.perf_counter()
    count = len(load_records([args.corpus]))
    print(f"read and validate {count} records: {time.perf_counter() - start:.2f} s")
    with tempfile.TemporaryDirectory() as folder:
        print("SQLite")
        run(f"sqlite:///{folder}/bench.sqlite3", args.corpus)
    base = make_url(args.postgres)
    name = f"errkb_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        print("PostgreSQL")
        run(base.set(database=name).render_as_string(hide_password=False), args.corpus)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    main()
