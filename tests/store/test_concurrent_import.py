"""Two imports of the same ids at once both succeed, or one fails saying why: never a
unique-violation traceback, never half an import."""

from __future__ import annotations

import json
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlalchemy import func, select

from bot.records import Record
from bot.store import repository
from bot.store.db import Store
from bot.store.models import AuditRow, RecordRow, WorkaroundRow
from tests.ops.conftest import clean_env, errkb_command
from tests.store.test_changes import record
from tests.store.test_repository import NOW

COUNT = 200


def batch(cause: str) -> list[Record]:
    return [record(f"ci/r{i:03d}", root_cause=cause) for i in range(COUNT)]


def _import(
    store: Store,
    records: list[Record],
    hold: threading.Event | None = None,
    held: threading.Event | None = None,
) -> repository.ImportSummary:
    with store.transaction() as session:
        summary = repository.import_records(
            session, records=records, on_conflict="upsert", actor="t", now=NOW
        )
        if held is not None and hold is not None:
            held.set()
            assert hold.wait(30)
    return summary


def test_a_second_import_of_the_same_ids_waits_for_the_first_then_updates(
    committed_store: Store,
) -> None:
    hold = threading.Event()
    held = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(_import, committed_store, batch("first"), hold, held)
        assert held.wait(30)  # the first import has written everything and not committed
        second = pool.submit(_import, committed_store, batch("second"))
        hold.set()
        a = first.result(timeout=60)
        b = second.result(timeout=60)
    assert len(a.added) == COUNT and len(b.updated) == COUNT and not b.added
    with committed_store.read() as session:
        assert session.scalar(select(func.count()).select_from(RecordRow)) == COUNT
        assert session.scalar(select(func.count()).select_from(WorkaroundRow)) == COUNT
        assert {r.root_cause for r in repository.load_records(session)} == {"second"}
        actions = dict(
            session.execute(select(AuditRow.action, func.count()).group_by(AuditRow.action)).all()
        )
    assert actions == {"add": COUNT, "update": COUNT}


def _write(path: Path, records: list[Record]) -> Path:
    path.write_text("\n".join(json.dumps(r.to_native()) for r in records) + "\n", encoding="utf-8")
    return path


def _run_both(tmp_path: Path, store: Store, *args: str) -> list[tuple[int, str]]:
    url = store.engine.url.render_as_string(hide_password=False)
    files = [
        _write(tmp_path / "a.jsonl", batch("from a")),
        _write(tmp_path / "b.jsonl", batch("from b")),
    ]
    procs = [
        subprocess.Popen(
            errkb_command("import", str(f), *args),
            env=clean_env(tmp_path, ERRKB_DATABASE_URL=url),
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for f in files
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    return [(p.returncode, err) for p, err in zip(procs, errors, strict=True)]


def test_two_import_processes_of_the_same_ids_both_succeed(
    committed_store: Store, tmp_path: Path
) -> None:
    results = _run_both(tmp_path, committed_store)
    assert [code for code, _ in results] == [0, 0], results
    assert not any("Traceback" in err or "locked" in err for _, err in results)
    with committed_store.read() as session:
        assert session.scalar(select(func.count()).select_from(RecordRow)) == COUNT
        causes = {r.root_cause for r in repository.load_records(session)}
    assert causes in ({"from a"}, {"from b"})  # the later import, whole: never a mix


def test_with_on_conflict_fail_the_later_import_fails_saying_why_and_writes_nothing(
    committed_store: Store, tmp_path: Path
) -> None:
    results = _run_both(tmp_path, committed_store, "--on-conflict", "fail")
    codes = sorted(code for code, _ in results)
    assert codes == [0, 1], results
    [err] = [err for code, err in results if code == 1]
    assert "Traceback" not in err
    assert (
        "already in the knowledge base with other content" in err and "nothing was imported" in err
    )
    with committed_store.read() as session:
        causes = {r.root_cause for r in repository.load_records(session)}
    assert causes in ({"from a"}, {"from b"})
