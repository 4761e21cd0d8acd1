"""What the load and fault benchmarks share: databases, the errkb command line, a served bot.

Everything here talks to loopback only and cleans up after itself: a fresh
database is dropped, a started server is stopped (killed if it ignores
SIGTERM), whatever happens in between.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

CORPUS = ROOT.parent / "shared" / "corpora" / "deadends" / "deadends-canons.jsonl.gz"


def require_corpus() -> Path:
    """The deadends corpus beside the checkout; without it, say so and stop (exit 2)."""
    if not CORPUS.exists():
        print(
            f"the deadends corpus is not at {CORPUS}: this benchmark imports it; nothing measured"
        )
        raise SystemExit(2)
    return CORPUS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux ``/proc``); 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident memory of a running process in bytes (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def machine_load() -> str:
    """The 1-minute load average and the processors, for the figures' context."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


@contextmanager
def fresh_database(postgres_url: str | None) -> Iterator[str]:
    """A new, empty database: a SQLite file in a temporary folder, or a database created on
    the PostgreSQL server of ``postgres_url`` (dropped afterwards)."""
    if postgres_url is None:
        with tempfile.TemporaryDirectory(prefix="errkb-bench-db-") as folder:
            yield f"sqlite:///{folder}/errkb.sqlite3"
        return
    base = make_url(postgres_url).set(drivername="postgresql+psycopg")
    name = f"errkb_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield base.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def errkb(
    root: Path, *args: str, env: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``errkb ARGS`` of the checkout at ``root``, run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**env, "PYTHONPATH": str(root)},
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def healthy(base: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=timeout) as response:
            return bool(json.loads(response.read())["ok"])
    except (OSError, ValueError, KeyError):
        return False


@contextmanager
def served(
    root: Path, env: dict[str, str], log: Path, *, limit: float = 600
) -> Iterator[tuple[str, int]]:
    """``errkb serve --http`` of the checkout at ``root`` on a free port, its stderr in ``log``:
    yields (base URL, pid) once ``/healthz`` says ok; stopped with SIGTERM afterwards."""
    port = free_port()
    with log.open("wb") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bot",
                "serve",
                "--http",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            env={**env, "PYTHONPATH": str(root)},
            cwd=root,
            stdout=out,
            stderr=out,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + limit
        while not healthy(base):
            if server.poll() is not None:
                raise SystemExit(f"errkb serve exited with {server.returncode}; see {log}")
            if time.monotonic() > deadline:
                raise SystemExit(f"errkb serve was not healthy within {limit:g} s; see {log}")
            time.sleep(0.2)
        yield base, server.pid
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def metric_sum(base: str, name: str) -> float | None:
    """The sum of the ``/metrics`` samples called ``name`` (any labels); None when there is none."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as response:
        lines = response.read().decode().splitlines()
    found = [
        float(line.rsplit(" ", 1)[1])
        for line in lines
        if not line.startswith("#") and line.split("{")[0].split(" ")[0] == name
    ]
    return sum(found) if found else None
