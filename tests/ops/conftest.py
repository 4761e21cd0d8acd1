"""Operations tests: real ``errkb serve --http`` processes against a loopback Slack.

Each :class:`ServeProcess` is the console command run as a subprocess with a
clean environment (only what the test sets), on the suite's database, with
``--port 0``; its stderr (JSON log lines, since it is not a terminal) is read
on a thread, and the bound port is taken from the "serving" line.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.store import repository
from bot.store.db import Store
from tests.conftest import wipe
from tests.slack.conftest import EN_USER, SECRET, TODAY, TOKEN, SlackSender, kb_records
from tests.slack.fake_slack import FakeSlack

SERVING = re.compile(r"errkb serving Slack at http://[^:]+:(\d+)/slack/events")
START_SECONDS = 60.0


def clean_env(tmp: Path, **settings: str) -> dict[str, str]:
    """A minimal environment: no inherited settings, a private HOME, then ``settings``."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp),
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
    }
    env.update(settings)
    return env


def errkb_command(*args: str) -> list[str]:
    """The ``errkb`` console script of this interpreter (``python -m bot`` where it is absent)."""
    script = Path(sys.executable).with_name("errkb")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "bot", *args]


class ServeProcess:
    """One ``errkb serve --http --port 0`` process (or another errkb command given as ``args``)."""

    def __init__(
        self,
        env: dict[str, str],
        cwd: Path,
        args: tuple[str, ...] = ("serve", "--http", "--port", "0", "--host", "127.0.0.1"),
    ) -> None:
        self.proc = subprocess.Popen(
            errkb_command(*args),
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._new: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.port: int | None = None
        self.url = ""

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            self._new.put(line)
        self._new.put(None)

    def wait_for_line(
        self, pattern: str | re.Pattern[str], timeout: float = START_SECONDS
    ) -> re.Match[str]:
        """The first stderr line matching ``pattern`` (seen already or still to come)."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for line in self.lines[seen:]:
                found = regex.search(line)
                if found:
                    return found
            seen = len(self.lines)
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no line matching {regex.pattern!r}; stderr:\n" + "\n".join(self.lines)
                )
            try:
                ended = self._new.get(timeout=left) is None
                if ended and not any(regex.search(line) for line in self.lines[seen:]):
                    raise AssertionError(
                        f"process ended ({self.proc.wait()}); stderr:\n" + "\n".join(self.lines)
                    )
            except queue.Empty:
                pass

    def tracebacks(self) -> str:
        """Every traceback the process wrote to stderr, each with the 40 lines after it (for
        an assertion's message; empty: none)."""
        lines = list(self.lines)
        found = [i for i, line in enumerate(lines) if "Traceback" in line]
        return "\n---\n".join("\n".join(lines[max(0, i - 2) : i + 40]) for i in found)

    def listening(self) -> ServeProcess:
        """Once the server accepts requests (its knowledge base may still be loading)."""
        self.port = int(self.wait_for_line(SERVING).group(1))
        self.url = f"http://127.0.0.1:{self.port}"
        return self

    def ready(self, timeout: float = START_SECONDS) -> ServeProcess:
        """Once ``/healthz`` says ok: listening, and the knowledge base loaded."""
        self.listening()
        deadline = time.monotonic() + timeout
        while True:
            status, body = self.health()
            if status == 200 and body.get("ok"):
                return self
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(
                    f"/healthz never said ok: {body}; stderr:\n" + "\n".join(self.lines)
                )
            time.sleep(0.05)

    def health(self) -> tuple[int, dict[str, Any]]:
        """``/healthz``: the HTTP status and the JSON body (whatever the status)."""
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def sender(self, fake: FakeSlack) -> SlackSender:
        return SlackSender(self.url, fake)

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return str(response.read().decode())

    def metric(self, name: str, **labels: str) -> float:
        wanted = name + (
            "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}" if labels else ""
        )
        for line in self.get("/metrics").splitlines():
            key, _, value = line.rpartition(" ")
            if key == wanted:
                return float(value)
        return 0.0

    def terminate(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout: float = 30) -> int:
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code

    def kill(self) -> None:
        """Stop the process if still running and close its pipe."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._reader.join(timeout=5)
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    def records(self) -> list[dict[str, Any]]:
        """Stderr lines as JSON objects (every line must be one)."""
        return [json.loads(line) for line in self.lines if line.strip()]


@pytest.fixture(scope="module")
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack(users={EN_USER: {"locale": "en-US"}}).start()
    yield fake
    fake.stop()


@pytest.fixture
def kb_store(store: Store, fake_slack: FakeSlack) -> Iterator[Store]:
    """The suite's database holding the test knowledge base, emptied after the test."""
    fake_slack.reset()
    wipe(store)
    with store.transaction() as session:
        repository.import_records(
            session, records=kb_records(), on_conflict="fail", actor="test", now=TODAY
        )
    yield store
    wipe(store)


@pytest.fixture
def serve_env(kb_store: Store, fake_slack: FakeSlack, tmp_path: Path) -> dict[str, str]:
    """Settings of a single-workspace bot on the test database and the fake Slack."""
    return clean_env(
        tmp_path,
        ERRKB_DATABASE_URL=kb_store.engine.url.render_as_string(hide_password=False),
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake_slack.api_url,
        ERRKB_KB_REFRESH_SECONDS="0.2",
        ERRKB_WORKERS="4",
        ERRKB_LOG_LEVEL="INFO",
    )


@pytest.fixture
def serve(serve_env: dict[str, str], tmp_path: Path) -> Iterator[Any]:
    """Start ``errkb serve`` processes: ``serve(**env_overrides)``; all are stopped after the
    test."""
    started: list[ServeProcess] = []

    def start(**overrides: str) -> ServeProcess:
        process = ServeProcess({**serve_env, **overrides}, tmp_path)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


# -- a PostgreSQL of the test's own, to stop and start ---------------------------------


def postgres_bin() -> Path | None:
    """The folder of ``initdb``/``pg_ctl``: ERRKB_POSTGRES_BIN, PATH, or Debian's versioned
    folders."""
    named = os.environ.get("ERRKB_POSTGRES_BIN")
    if named:
        return Path(named)
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return versions[-1].parent if versions else None


class PrivatePostgres:
    """A PostgreSQL server in a temporary folder on a free port, run as ``postgres`` when root."""

    def __init__(self, bin_dir: Path, folder: Path) -> None:
        self.bin = bin_dir
        self.folder = folder
        self.data = folder / "data"
        self.port = _free_port()
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.start()

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self.bin / tool), *args], check=True, capture_output=True, timeout=120
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def close(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.folder, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A PostgreSQL server this test may stop and start (CI must have one:
    ERRKB_FAULTS=required)."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        if os.environ.get("ERRKB_FAULTS") == "required":
            pytest.fail(
                "initdb and pg_ctl are needed for the database fault tests and were not found"
            )
        pytest.skip("initdb/pg_ctl not found: set ERRKB_POSTGRES_BIN to PostgreSQL's bin folder")
    folder = Path(tempfile.mkdtemp(prefix="errkb-pg-"))
    folder.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    server = PrivatePostgres(bin_dir, folder)
    try:
        yield server
    finally:
        server.close()
