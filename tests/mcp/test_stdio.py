"""``errkb mcp`` over stdio: standard output carries nothing but the protocol, and the
knowledge base reloads while it serves, as the Slack bot's does."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot.records import Record
from bot.report import TriageReport
from bot.store import repository
from bot.store.db import Store
from tests.mcp.conftest import connect, load_starter, mcp_env, stdio
from tests.ops.conftest import errkb_command
from tests.slack.conftest import TODAY

REPLY_SECONDS = 60.0
FLUX = (
    'Traceback (most recent call last):\n  File "flux.py", line 3\n'
    "FluxCapacitorError: needs 1.21 gigawatts\n"
)


def _request(ident: int, method: str, params: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}) + "\n"


def _read(stream: Any, into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


@pytest.mark.slow
def test_stdout_carries_only_json_rpc_and_logs_go_to_stderr(
    starter_store: Store, tmp_path: Path
) -> None:
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()
    seen: dict[int, dict[str, Any]] = {}
    with subprocess.Popen(
        errkb_command("mcp"),
        env=mcp_env(starter_store, tmp_path),
        cwd=tmp_path,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdin is not None
        readers = [
            threading.Thread(target=_read, args=(proc.stdout, out), daemon=True),
            threading.Thread(target=_read, args=(proc.stderr, err), daemon=True),
        ]
        for reader in readers:
            reader.start()
        try:
            proc.stdin.write(
                _request(
                    1,
                    "initialize",
                    {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "1"},
                    },
                )
            )
            proc.stdin.write(
                json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
            )
            proc.stdin.write(
                _request(2, "tools/call", {"name": "triage", "arguments": {"paste": "x" * 300_000}})
            )
            proc.stdin.write(
                _request(3, "tools/call", {"name": "show", "arguments": {"id": "no/such-record"}})
            )
            proc.stdin.flush()
            deadline = time.monotonic() + REPLY_SECONDS
            while len(seen) < 3 and time.monotonic() < deadline:
                line = out.get(timeout=max(0.1, deadline - time.monotonic()))
                assert line is not None, "stdout closed before the replies"
                message = json.loads(line)  # every line on stdout is a protocol message
                assert message["jsonrpc"] == "2.0"
                if "id" in message:
                    seen[message["id"]] = message
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
            for reader in readers:
                reader.join(timeout=5)
    assert out.get_nowait() is None  # nothing more was written to stdout
    assert seen[1]["result"]["serverInfo"]["name"] == "errkb"
    triaged = seen[2]["result"]
    assert (
        not triaged.get("isError")
        and TriageReport.model_validate(triaged["structuredContent"]).skipped is not None
    )
    assert (
        seen[3]["result"]["isError"]
        and "no record with id" in seen[3]["result"]["content"][0]["text"]
    )
    logged = [
        json.loads(line) for line in iter(err.get_nowait, None) if line.strip()
    ]  # stderr: JSON log lines
    assert any(entry["msg"] == "knowledge base loaded" for entry in logged)


@pytest.mark.slow
def test_a_record_imported_while_serving_is_answered_without_a_restart(
    starter_store: Store, tmp_path: Path
) -> None:
    record = Record.model_validate(
        {
            "id": "test/flux-capacitor",
            "signature": "FluxCapacitorError: needs 1.21 gigawatts",
            "regex": r"FluxCapacitorError: needs [\d.]+ gigawatts",
            "domain": "test",
            "root_cause": "The capacitor is underpowered.",
            "workarounds": [{"action": "Wait for the lightning strike", "success_rate": 0.5}],
        }
    )
    try:
        with (
            (tmp_path / "stderr.log").open("w") as errlog,
            connect(stdio(mcp_env(starter_store, tmp_path), errlog)) as agent,
        ):
            assert not TriageReport.model_validate(
                agent.call("triage", paste=FLUX).structured_content
            ).answered
            with starter_store.transaction() as session:
                repository.import_records(
                    session, records=[record], on_conflict="fail", actor="test", now=TODAY
                )
            deadline = time.monotonic() + 30  # ERRKB_KB_REFRESH_SECONDS is 0.2 in these tests
            report = None
            while time.monotonic() < deadline:
                report = TriageReport.model_validate(
                    agent.call("triage", paste=FLUX).structured_content
                )
                if report.answered:
                    break
                time.sleep(0.1)
            assert (
                report is not None
                and report.best is not None
                and report.best.id == "test/flux-capacitor"
            )
    finally:
        load_starter(starter_store)
