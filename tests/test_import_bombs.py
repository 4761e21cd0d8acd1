"""Import bombs: a few hundred kilobytes that unpack to tens of millions of items or values are
refused by ``errkb import`` (a real process, its address space capped at 1 GiB) in one line
naming the file and the limit, with exit status 1, well within a minute; an ordinary
50,000-record import still goes in."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from benchmarks.synthetic_kb import synthetic_record
from bot.ingest.limits import MAX_FILE_ITEMS, MAX_IMPORT_VALUES
from bot.store import repository
from bot.store.db import Store
from tests.bombs import BOMBS, GIB, run_capped

#: bomb → words of the limit its one line names
LIMITS = {
    "zeros.json.gz": f"more than {MAX_FILE_ITEMS:,} items in one file",
    "empty.jsonl.gz": f"more than {MAX_FILE_ITEMS:,} items in one file",
    "aliases.yaml": f"more than {MAX_IMPORT_VALUES:,} values in one "
    "import, counting every value a YAML alias repeats",
}


def _env(store: Store) -> dict[str, str]:
    return {
        **os.environ,
        "ERRKB_DATABASE_URL": store.engine.url.render_as_string(hide_password=False),
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BOMBS))
def test_a_bomb_is_refused_in_one_line_within_a_minute_and_a_gibibyte(
    committed_store: Store, tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    BOMBS[name](path)
    assert path.stat().st_size < 1 << 20
    done = run_capped(["import", str(path)], _env(committed_store), memory=GIB, timeout=60)
    assert not done.timed_out, f"still running after 60 s: {done.stderr[-500:]}"
    assert done.code == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    named = [line for line in done.stderr.splitlines() if line.startswith(str(path))]
    assert len(named) == 1 and LIMITS[name] in named[0], done.stderr[-2000:]
    with committed_store.sessions() as session:
        assert repository.record_ids(session) == set()


@pytest.mark.slow
def test_an_ordinary_import_of_50000_records_goes_in(
    committed_store: Store, tmp_path: Path
) -> None:
    rng = random.Random(5)
    path = tmp_path / "kb.jsonl"
    with path.open("w") as out:
        for number in range(50_000):
            out.write(json.dumps(synthetic_record(rng, number)) + "\n")
    done = run_capped(
        ["import", str(path), "--json"], _env(committed_store), memory=4 * GIB, timeout=600
    )
    assert done.code == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["added"] == 50_000
    with committed_store.sessions() as session:
        assert len(repository.record_ids(session)) == 50_000
