"""``errkb triage`` starts from the database's knowledge snapshot, and never from a stale one."""

from __future__ import annotations

import json
import logging
import os
import pickle
from pathlib import Path

import pytest

from bot import snapshot
from bot.store.db import Store
from tests.test_cli import EXAMPLES, run

UNKNOWN = "FluxCapacitorError: the flux capacitor of unit 7 overheated at 88 mph\n"
RECORD = {
    "id": "test/flux-capacitor-overheated",
    "signature": "FluxCapacitorError: the flux capacitor overheated",
    "regex": r"FluxCapacitorError: the flux capacitor of unit \d+ overheated",
    "domain": "test",
    "category": "runtime_error",
    "root_cause": "The flux capacitor runs hot above 88 mph without its cooling loop.",
    "workarounds": [
        {"action": "Keep below 88 mph until the cooling loop is fitted.", "success_rate": 0.9}
    ],
}


def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def snapshots(tmp_path: Path) -> list[Path]:
    return sorted(cache(tmp_path).glob("knowledge-*.pickle"))


def triage(capsys: pytest.CaptureFixture[str], paste: Path) -> dict[str, object]:
    code, out, err = run(capsys, "triage", str(paste), "--json")
    assert code == 0, err
    return json.loads(out)


def best(answer: dict[str, object]) -> str | None:
    found = answer.get("best")
    return found.get("id") if isinstance(found, dict) else None


def test_a_second_triage_answers_the_same_from_the_snapshot_the_first_left(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    paste = EXAMPLES / "nccl-shm-docker.txt"
    first = triage(capsys, paste)
    [path] = snapshots(tmp_path)
    written = path.stat().st_mtime_ns
    assert snapshot.load(path) is not None
    second = triage(capsys, paste)
    assert second == first and best(second) == "llm/nccl-shm-extend-failed"
    assert path.stat().st_mtime_ns == written  # used as it was, not built and written again


@pytest.mark.slow
def test_a_triage_after_an_import_sees_the_new_records(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    paste = tmp_path / "paste.txt"
    paste.write_text(UNKNOWN, encoding="utf-8")
    assert triage(capsys, paste)["answered"] is False  # and the snapshot is written
    assert snapshots(tmp_path)
    records = tmp_path / "flux.json"
    records.write_text(json.dumps([RECORD]), encoding="utf-8")
    code, _, err = run(capsys, "import", str(records))
    assert code == 0, err
    answer = triage(capsys, paste)
    assert answer["answered"] is True and best(answer) == RECORD["id"]
    again = triage(capsys, paste)  # from the snapshot written at the new version
    assert best(again) == RECORD["id"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign"])
def test_a_damaged_or_foreign_snapshot_is_ignored_and_rebuilt(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    run(capsys, "init")
    paste = EXAMPLES / "nccl-shm-docker.txt"
    expected = triage(capsys, paste)
    [path] = snapshots(tmp_path)
    whole = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"this is not a knowledge snapshot at all\n" * 50)
    elif damage == "truncated":
        path.write_bytes(whole[: len(whole) // 2])
    else:  # written by other code: same format, another key
        path.write_bytes(
            snapshot.MAGIC + pickle.dumps(("another errkb", 1, 0)) + whole[len(snapshot.MAGIC) :]
        )
    assert triage(capsys, paste) == expected
    assert snapshot.load(path) is not None  # written again, whole
    assert triage(capsys, paste) == expected


def test_a_snapshot_at_another_version_is_not_read_past_its_head(
    committed_store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A snapshot behind the database is rebuilt without unpickling its records first:
    its head says its version, and the rest (here not a snapshot at all) is never read."""
    run(capsys, "init")
    paste = EXAMPLES / "nccl-shm-docker.txt"
    expected = triage(capsys, paste)
    [path] = snapshots(tmp_path)
    version = snapshot.version_of(path)
    assert version is not None
    head = pickle.dumps((snapshot.code_key(), version + 1, 1, 1))
    path.write_bytes(snapshot.MAGIC + head + b"the rest is never read")
    with caplog.at_level(logging.INFO):
        assert triage(capsys, paste) == expected
    said = [record.getMessage() for record in caplog.records]
    assert any(f"snapshot at version {version + 1}: the database is at" in m for m in said)
    assert not [m for m in said if "unreadable" in m]
    assert snapshot.version_of(path) == version  # written again, at the database's


@pytest.mark.parametrize("how", ["read-only folder", "a file in its place"])
def test_a_cache_folder_that_cannot_be_written_still_answers(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    run(capsys, "init")
    folder = cache(tmp_path)
    if how == "read-only folder":
        if os.geteuid() == 0:
            pytest.skip("root writes into a read-only folder")
        folder.mkdir()
        folder.chmod(0o500)
    else:
        folder.write_text("not a folder", encoding="utf-8")
    try:
        for _ in range(2):
            answer = triage(capsys, EXAMPLES / "nccl-shm-docker.txt")
            assert best(answer) == "llm/nccl-shm-extend-failed"
    finally:
        if folder.is_dir():
            folder.chmod(0o700)
    assert (
        not snapshots(tmp_path)
        if folder.is_dir()
        else folder.read_text(encoding="utf-8") == "not a folder"
    )
