"""``errkb triage`` on a long log: read where its error is, with the log's own line numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.store.db import Store
from tests.test_cli import EXAMPLES, run

NOISE = "2024-05-01 12:00:01 INFO worker step {n} ok, loss=0.31 throughput=5012 tok/s"


def long_log(tmp_path: Path, lines: int, at: int) -> tuple[Path, int]:
    """A log of ``lines`` lines with the vLLM example's traceback starting at line ``at``;
    returns its path and the line number of the exception."""
    error = (EXAMPLES / "vllm-oom.txt").read_text(encoding="utf-8").strip("\n").split("\n")
    log = [NOISE.format(n=n) for n in range(lines)]
    log[at - 1 : at - 1] = error
    path = tmp_path / "train.log"
    path.write_text("\n".join(log) + "\n", encoding="utf-8")
    return path, at + next(
        i for i, line in enumerate(error) if line.startswith("ValueError: No available")
    )


def test_a_five_megabyte_log_is_answered_at_its_own_line_number(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    path, line = long_log(tmp_path, 66_000, 30_548)
    assert path.stat().st_size > 5_000_000
    code, out, _ = run(capsys, "triage", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert (
        data["answered"] and data["best"]["id"] == "llm/vllm-no-available-memory-for-cache-blocks"
    )
    assert data["skipped"]["lines"] == 66_000 + 37 + 1 and data["skipped"]["read"] < 3_000
    assert line in [e["line_no"] for e in data["errors"]]
    code, out, _ = run(capsys, "triage", str(path))
    assert f"matched line {line}:" in out
    assert "skipped the rest" in out and "66,038 lines" in out  # text mode says the log was cut


def test_the_note_on_what_was_skipped_follows_lang(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    path, _ = long_log(tmp_path, 5_000, 4_990)
    code, out, _ = run(capsys, "triage", str(path), "--lang", "zh")
    assert code == 0 and "其余部分已跳过" in out


def test_a_log_within_the_read_limit_says_nothing_about_skipping(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    path, line = long_log(tmp_path, 200, 100)
    code, out, _ = run(capsys, "triage", str(path), "--json")
    assert json.loads(out)["skipped"] is None and line in [
        e["line_no"] for e in json.loads(out)["errors"]
    ]
