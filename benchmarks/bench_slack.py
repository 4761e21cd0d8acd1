"""Load benchmark of the Slack bot on loopback: pasted tracebacks at a steady rate.

Starts the loopback Slack Web API stand-in (``tests/slack/fake_slack.py``) in
this process and one ``errkb serve --http`` process against a fresh SQLite
file or PostgreSQL database, sends signed ``event_callback`` pastes at
``--rate`` per second for ``--seconds`` (every tenth delivered twice, as
Slack's retry), then prints ack p50/p99 and paste-to-answer p50/p99 and checks
that every paste was answered exactly once.

    python benchmarks/bench_slack.py --seconds 60
    python benchmarks/bench_slack.py --seconds 60 --database postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bot.ingest import load_records
from bot.store import repository
from bot.store.db import open_store
from tests.slack.conftest import sign
from tests.slack.fake_slack import FakeSlack

SECRET, TOKEN = "bench-secret", "xoxb-bench-token"
SERVE = "import sys; from bot.cli import main; main(sys.argv[1:])"
PASTE = """Traceback (most recent call last):
  File "/srv/app/worker{n}.py", line {line}, in run
    frob.start()
  File "/usr/lib/python3.11/site-packages/frobnicate/core.py", line 12, in start
    raise FrobnicatorOverheatError(temp)
frobnicate.errors.FrobnicatorOverheatError: frobnicator core temperature {temp} exceeded limit 300"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def prepare_database(url: str | None) -> tuple[str, callable]:  # type: ignore[valid-type]
    if url is None:
        folder = tempfile.mkdtemp(prefix="errkb-bench-")
        return f"sqlite:///{folder}/bench.sqlite3", lambda: None
    base = make_url(url).set(drivername="postgresql+psycopg")
    name = f"errkb_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    return base.set(database=name).render_as_string(hide_password=False), drop


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(url: str, body: bytes, retry: int | None = None) -> tuple[int, float]:
    ts = int(time.time())
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": str(ts),
               "X-Slack-Signature": sign(body, ts, SECRET)}  # fmt: skip
    if retry:
        headers["X-Slack-Retry-Num"] = str(retry)
    started = time.monotonic()
    with urllib.request.urlopen(urllib.request.Request(url, body, headers), timeout=10) as response:
        response.read()
        return response.status, time.monotonic() - started


def run(seconds: float, rate: float, database: str | None) -> bool:
    db_url, drop = prepare_database(database)
    records = load_records(sorted((ROOT / "data").glob("*.json")) + [ROOT / "tests" / "slack" / "kb.json"])
    store = open_store(db_url, migrate=True)
    with store.transaction() as session:
        repository.import_records(session, records=records, on_conflict="upsert", actor="bench", now=datetime.now(UTC))
    store.dispose()
    fake = FakeSlack(users={"UBENCH": {"locale": "en-US"}}).start()
    port = free_port()
    env = {**os.environ, "ERRKB_DATABASE_URL": db_url, "SLACK_API_URL": fake.api_url, "SLACK_BOT_TOKEN": TOKEN,
           "SLACK_SIGNING_SECRET": SECRET, "ERRKB_LOG_LEVEL": "WARNING"}  # fmt: skip
    server = subprocess.Popen([sys.executable, "-c", SERVE, "serve", "--http", "--host", "127.0.0.1", "--port",
                               str(port)], env=env, cwd=ROOT)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
                    if json.loads(r.read())["ok"]:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("errkb serve did not become healthy")
            time.sleep(0.1)
        sent: dict[str, float] = {}
        acks: list[float] = []
        failures: list[str] = []
        lock = threading.Lock()

        def deliver(n: int) -> None:
            ts = f"1800000000.{n:06d}"
            event = {"type": "message", "channel": "CBENCH", "user": "UBENCH", "ts": ts, "client_msg_id": f"b{n}",
                     "text": PASTE.format(n=n, line=n % 500 + 1, temp=400 + n % 97)}  # fmt: skip
            body = json.dumps({"type": "event_callback", "event_id": f"EvB{n:08d}", "team_id": "T1",
                               "event": event}).encode()  # fmt: skip
            with lock:
                sent[ts] = time.monotonic()
            try:
                status, seconds_taken = post(base + "/slack/events", body)
                if n % 10 == 0:  # Slack's retry of the same delivery
                    post(base + "/slack/events", body, retry=1)
            except OSError as exc:
                failures.append(f"{n}: {exc}")
                return
            with lock:
                acks.append(seconds_taken)
                if status != 200:
                    failures.append(f"{n}: HTTP {status}")

        total = int(seconds * rate)
        start = time.monotonic()
        with ThreadPoolExecutor(64) as pool:
            for n in range(total):
                delay = start + n / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                pool.submit(deliver, n)
        fake.wait_for("chat.postMessage", total, timeout=30)
        time.sleep(1.0)  # let any duplicate answer surface before counting
        answers: dict[str, list[float]] = {}
        for call in fake.of("chat.postMessage"):
            answers.setdefault(str(call.params.get("thread_ts")), []).append(call.at)
        latencies = [min(at) - sent[ts] for ts, at in answers.items() if ts in sent]
        missing = [ts for ts in sent if ts not in answers]
        doubled = [ts for ts, at in answers.items() if len(at) > 1]
        label = "PostgreSQL" if database else "SQLite"
        print(f"{label}: {total} pastes in {seconds:g}s at {rate:g}/s (+{total // 10} retries), "
              f"{len(records)} records")  # fmt: skip
        print(f"  ack             p50 {percentile(acks, 0.5) * 1000:7.1f} ms   p99 {percentile(acks, 0.99) * 1000:7.1f} ms")
        print(f"  paste-to-answer p50 {percentile(latencies, 0.5) * 1000:7.1f} ms   "
              f"p99 {percentile(latencies, 0.99) * 1000:7.1f} ms")  # fmt: skip
        print(f"  answered {len(answers)}/{total}; missing {len(missing)}; answered twice {len(doubled)}; "
              f"request failures {len(failures)}")  # fmt: skip
        ok = not missing and not doubled and not failures
        ok = ok and percentile(acks, 0.99) < 0.100 and percentile(latencies, 0.99) < 0.500
        print("  PASS" if ok else "  FAIL (targets: ack p99 < 100 ms, answer p99 < 500 ms, each answered once)")
        return ok
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        fake.stop()
        drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to send (default 60)")
    parser.add_argument("--rate", type=float, default=50.0, help="pastes per second (default 50)")
    parser.add_argument("--database", default=None, help="PostgreSQL URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    raise SystemExit(0 if run(args.seconds, args.rate, args.database) else 1)


if __name__ == "__main__":
    main()
