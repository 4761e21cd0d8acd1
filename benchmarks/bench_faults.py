"""Fault benchmark: what hostile clients, bad records and a bad day for Slack or the database
do to a running ``errkb serve --http``.

Starts the loopback Slack Web API stand-in and one ``errkb serve`` process on a
fresh SQLite file holding the starter knowledge base, the test records and one
record stored by an older errkb with a regex RE2 refuses (a lookahead plus
``(a+)+$``). Then runs each scenario (a hostile regex, malformed requests, big
bodies and slow connections, Slack down, one channel rate limited, SQLite's
write lock held by another process, pastes in 250-reply threads under slow posts
and a killed server, installation tokens at rest, snippet downloads pointing off
Slack, /healthz after a restart from an older snapshot) of :data:`SCENARIOS` in
turn and prints
one table: the figure, its target, and whether it was met. While a scenario
runs, a watcher sends a signed paste every 0.2 s and asks ``/healthz`` every
0.1 s, and samples the server's resident memory every 20 ms.

    python benchmarks/bench_faults.py
    python benchmarks/bench_faults.py --only "hostile regex"

A scenario is a function of a :class:`Bench` returning :class:`Figure` rows;
add one by writing it and listing it in :data:`SCENARIOS`. Every request loop
is bounded in count and time and talks to loopback only.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ingest import load_records
from bot.records import STORED, Record
from bot.store import repository
from bot.store.db import open_store
from tests.bombs import BOMBS, GIB, run_capped
from tests.mcp.conftest import MCP_SERVING
from tests.mcp.sessions import RawSession
from tests.ops.big_import import import_beside_pastes, write_records
from tests.ops.delivery import lost_and_doubled, wait_for_answers
from tests.slack.conftest import sign
from tests.slack.fake_slack import FakeSlack

SECRET = "bench-secret"
TOKEN = "xoxb-bench-token"
USER = "UBENCH"
CHANNEL = "CBENCH"
PASTE = """Traceback (most recent call last):
  File "/srv/app/worker{n}.py", line 88, in run
    frob.start()
frobnicate.errors.FrobnicatorOverheatError: frobnicator core temperature {n} exceeded limit 300"""
HOSTILE_RECORD = {
    "id": "bench/lookahead-bomb",
    "signature": "BombError: aaaa",
    "domain": "bench",
    "regex": r"BombError: (?=a)(a+)+$",
}
HOSTILE_PASTES = {
    "lookahead + (a+)+$, 40 chars": "BombError: " + "a" * 40 + "!",
    "lookahead + (a+)+$, 10k chars": "BombError: " + "a" * 10_000 + "!",
    ".*-chained, 10k-char line": "RuntimeError: dataloader " + "batch not " * 1_000 + "x" * 2_000,
}
MB = 1 << 20
OTHER = "CBENCHOTHER"
OUTAGE = 20.0  # seconds the Slack Web API is down
LOCKED = 12.0  # seconds another process holds SQLite's write lock
SLACK_RETRIES = (
    0.0,
    1.2,
    6.0,
)  # Slack's redelivery waits (immediately, 1 min, 5 min), scaled 50× down


@dataclass
class Figure:
    scenario: str
    name: str
    value: float | str
    unit: str = ""
    target: str = ""
    ok: bool | None = None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")
    )


@dataclass
class Watch:
    """What the watcher saw during one scenario."""

    acks: list[float] = field(default_factory=list)
    ack_failures: int = 0
    health: list[float] = field(default_factory=list)
    health_failures: int = 0
    rss: list[int] = field(default_factory=list)


class Bench:
    """The running server and what scenarios need to talk to it."""

    def __init__(self, base: str, pid: int, fake: FakeSlack, log: Path, database: str = "") -> None:
        self.base = base
        self.pid = pid
        self.fake = fake
        self.log = log
        self.database = database
        self.port = int(base.rsplit(":", 1)[1])
        self._n = iter(range(1, 10**9))
        self._lock = threading.Lock()

    def rss(self) -> int:
        """The server's resident memory in bytes (0 once it is gone)."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def post(self, body: bytes, headers: dict[str, str], timeout: float = 5.0) -> tuple[int, float]:
        request = urllib.request.Request(self.base + "/slack/events", body, headers, method="POST")
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                response.read()
                return response.status, time.monotonic() - started
        except urllib.error.HTTPError as exc:
            return exc.code, time.monotonic() - started

    def paste(
        self,
        text: str | None = None,
        timeout: float = 5.0,
        *,
        channel: str = CHANNEL,
        retries: tuple[float, ...] = (),
    ) -> tuple[int, float, str]:
        """A signed paste: (status, seconds to the ack, its ts). ``retries``: when it is not
        acknowledged, deliver it again after each of these waits, as Slack does."""
        with self._lock:
            n = next(self._n)
        ts = f"1800000000.{n:06d}"
        event = {
            "type": "message",
            "channel": channel,
            "user": USER,
            "ts": ts,
            "client_msg_id": f"f{n}",
            "text": text if text is not None else PASTE.format(n=n),
        }
        body = json.dumps(
            {"type": "event_callback", "event_id": f"EvF{n:08d}", "team_id": "T1", "event": event}
        ).encode()
        status, seconds = self.signed(body, "application/json", timeout)
        for retry, wait in enumerate(retries, start=1):
            if 200 <= status < 300:
                break
            time.sleep(wait)
            status, _ = self.signed(body, "application/json", timeout, retry=retry)
        return status, seconds, ts

    def signed(
        self, body: bytes, content_type: str, timeout: float, retry: int = 0
    ) -> tuple[int, float]:
        """POST ``body`` signed as Slack signs it: (status or 0 when unanswered, seconds)."""
        now = int(time.time())
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(now),
            "X-Slack-Signature": sign(body, now, SECRET),
        }
        if retry:
            headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_error"}
        try:
            return self.post(body, headers, timeout)
        except OSError:
            return 0, timeout

    def command(self, text: str, timeout: float = 5.0) -> tuple[int, float, str]:
        """A signed ``/errkb <text>``: (status, seconds to the ack, the name of its
        response_url)."""
        with self._lock:
            n = next(self._n)
        name = f"cmd{n}"
        form = {
            "team_id": "T1",
            "channel_id": CHANNEL,
            "user_id": USER,
            "command": "/errkb",
            "text": text,
            "response_url": self.fake.response_url(name),
            "trigger_id": f"t{n}",
        }
        body = urllib.parse.urlencode(form).encode()
        return (*self.signed(body, "application/x-www-form-urlencoded", timeout), name)

    def responded_at(self, name: str, timeout: float) -> float | None:
        calls = self.fake.wait_for(
            "response_url", timeout=timeout, where=lambda c: c.params.get("name") == name
        )
        return calls[0].at if calls else None

    def healthz(self, timeout: float = 5.0) -> float | None:
        started = time.monotonic()
        try:
            with urllib.request.urlopen(self.base + "/healthz", timeout=timeout) as response:
                response.read()
                return time.monotonic() - started if response.status == 200 else None
        except OSError:
            return None

    def match_seconds(self) -> tuple[float, int]:
        """The server's ``errkb_match_seconds`` histogram: (sum, count)."""
        try:
            with urllib.request.urlopen(self.base + "/metrics", timeout=5) as response:
                text = response.read().decode()
        except OSError:  # a server that does not answer has no figure to give
            return 0.0, -1
        found = {
            k: float(v)
            for k, _, v in (line.rpartition(" ") for line in text.splitlines())
            if k in ("errkb_match_seconds_sum", "errkb_match_seconds_count")
        }
        return found.get("errkb_match_seconds_sum", 0.0), int(
            found.get("errkb_match_seconds_count", 0)
        )

    @contextmanager
    def watching(self, *, pastes: bool = True) -> Iterator[Watch]:
        """Signed pastes every 0.2 s (unless not ``pastes``), /healthz every 0.1 s, memory every
        20 ms, while the block runs."""
        watch = Watch()
        stop = threading.Event()

        def send_pastes() -> None:
            while not stop.wait(0.2):
                status, seconds, _ = self.paste()
                watch.acks.append(seconds) if status == 200 else None
                watch.ack_failures += status != 200

        def health() -> None:
            while not stop.wait(0.1):
                seconds = self.healthz()
                watch.health.append(seconds) if seconds is not None else None
                watch.health_failures += seconds is None

        def memory() -> None:
            while not stop.wait(0.02):
                watch.rss.append(self.rss())

        jobs = (send_pastes, health, memory) if pastes else (health, memory)
        threads = [threading.Thread(target=f, daemon=True) for f in jobs]
        for thread in threads:
            thread.start()
        try:
            yield watch
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=10)

    def watch_figures(self, scenario: str, watch: Watch, baseline: int) -> list[Figure]:
        growth = (max(watch.rss, default=baseline) - baseline) / MB
        acks = [s * 1000 for s in watch.acks]
        health = [s * 1000 for s in watch.health]
        return [
            Figure(scenario, "memory growth (peak)", round(growth, 1), "MB", "< 50", growth < 50),
            Figure(
                scenario,
                f"signed paste ack p50/p99/max ({len(acks)} sent)",
                f"{percentile(acks, 0.5):.1f} / {percentile(acks, 0.99):.1f} / "
                f"{max(acks, default=float('nan')):.1f}",
                "ms",
                "p99 < 100",
                bool(acks) and percentile(acks, 0.99) < 100,
            ),
            Figure(
                scenario,
                "signed pastes not acked 200",
                watch.ack_failures,
                "",
                "0",
                watch.ack_failures == 0,
            ),
            Figure(
                scenario,
                f"/healthz p99/max ({len(health)} asked)",
                f"{percentile(health, 0.99):.1f} / {max(health, default=float('nan')):.1f}",
                "ms",
                "answers throughout",
                watch.health_failures == 0 and bool(health),
            ),
        ]


# -- scenarios -------------------------------------------------------------------------------


def _big_body(port: int, size: int, deadline: float) -> tuple[int | None, int]:
    """An unsigned POST announcing ``size`` bytes, sent as fast as the server takes it: (the status
    it got or None, bytes it managed to send)."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(
            f"POST /slack/events HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Content-Length: {size}\r\n\r\n".encode()
        )
        chunk = b"x" * (256 << 10)
        conn.settimeout(0.5)
        try:
            while sent < size and time.monotonic() < deadline:
                sent += conn.send(chunk[: size - sent])
        except OSError:
            pass  # cut off
        conn.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            head = conn.recv(64).decode("latin-1")
            return (int(head.split(" ", 2)[1]) if head.startswith("HTTP/") else None), sent
        except (OSError, ValueError, IndexError):
            return None, sent


def _slow_connection(port: int) -> socket.socket | None:
    try:
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        conn.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            b"Content-Length: 2000\r\n\r\n{"
        )
        return conn
    except OSError:
        return None


def _closed(conn: socket.socket) -> bool:
    conn.settimeout(0)
    try:
        return conn.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def big_bodies_and_slow_connections(bench: Bench) -> list[Figure]:
    """Four unsigned 50 MB bodies and 300 connections that send headers and one byte."""
    name = "4 × 50 MB unsigned + 300 slow"
    baseline = bench.rss()
    with bench.watching() as watch:
        slow = [c for c in (_slow_connection(bench.port) for _ in range(300)) if c is not None]
        deadline = time.monotonic() + 20
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: _big_body(bench.port, 50 * MB, deadline), range(4)))
        cut_by = time.monotonic() + 25  # the server's own limits must end them before this
        while time.monotonic() < cut_by and not all(_closed(c) for c in slow):
            time.sleep(0.25)
        closed = sum(_closed(c) for c in slow)
        for conn in slow:
            conn.close()
    statuses = sorted({str(status) for status, _ in results})
    read_mb = max(sent for _, sent in results) / MB
    return [
        Figure(
            name,
            "50 MB bodies: status",
            ", ".join(statuses),
            "",
            "413 (or 401)",
            all(s in (413, 401) for s, _ in results),
        ),
        Figure(
            name,
            "50 MB bodies: most accepted before the cut",
            round(read_mb, 1),
            "MB",
            "< 50",
            read_mb < 50,
        ),
        Figure(
            name,
            f"slow connections closed by the server ({len(slow)} opened)",
            closed,
            "",
            "all, within 25 s",
            closed == len(slow),
        ),
        *bench.watch_figures(name, watch, baseline),
    ]


def malformed_requests(bench: Bench) -> list[Figure]:
    """200 unsigned non-JSON bodies and 200 requests with a timestamp that is not a number."""
    name = "400 malformed/unsigned"
    log_before = bench.log.read_text(errors="replace").count("\n")
    bodies = [(b"\x00garbage{{{", {"Content-Type": "application/json"})] * 200
    bodies += [
        (
            b"{}",
            {
                "Content-Type": "application/json",
                "X-Slack-Request-Timestamp": "soon",
                "X-Slack-Signature": "v0=00",
            },
        )
    ] * 200
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda b: bench.post(*b)[0], bodies))
    time.sleep(0.5)
    lines = bench.log.read_text(errors="replace").splitlines()[log_before:]
    tracebacks = sum("Traceback" in line for line in lines)
    by_logger: dict[str, int] = {}
    for line in lines:
        try:
            logger = str(json.loads(line).get("logger"))
        except ValueError:
            logger = "(not JSON)"
        by_logger[logger] = by_logger.get(logger, 0) + 1
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    return [
        Figure(name, "statuses", json.dumps(counts), "", "only 400/401", set(counts) <= {400, 401}),
        Figure(
            name,
            "log lines for them",
            f"{len(lines)} {json.dumps(by_logger)}",
            "",
            "≤ 1 per 10 s",
            len(lines) <= 2,
        ),
        Figure(name, "tracebacks", tracebacks, "", "0", tracebacks == 0),
    ]


def hostile_regex(bench: Bench) -> list[Figure]:
    """The worst pastes for a stored record whose regex RE2 refuses (and for .*-chained regexes)."""
    name = "hostile regex"
    rows: list[Figure] = []
    baseline = bench.rss()
    with bench.watching(pastes=False) as watch:  # alone, so the match time is this paste's
        for label, text in HOSTILE_PASTES.items():
            status, seconds, _ = bench.paste(text)  # in a channel: acked, then answered or declined
            rows.append(
                Figure(
                    name,
                    f"{label}: channel paste ack",
                    round(seconds * 1000, 1),
                    "ms",
                    "< 100",
                    status == 200 and seconds < 0.1,
                )
            )
            time.sleep(0.3)  # let that paste's work finish before the next is measured
            before = bench.match_seconds()
            status, seconds, reply = bench.command(text)  # /errkb: always answered, privately
            sent = time.monotonic() - seconds
            answered = bench.responded_at(reply, timeout=5.0) if status == 200 else None
            took = "none in 5 s" if answered is None else round((answered - sent) * 1000, 1)
            after = bench.match_seconds()
            matched = round((after[0] - before[0]) * 1000, 1) if after[1] == before[1] + 1 else "?"
            rows += [
                Figure(
                    name,
                    f"{label}: /errkb ack",
                    round(seconds * 1000, 1),
                    "ms",
                    "< 100",
                    status == 200 and seconds < 0.1,
                ),
                Figure(
                    name,
                    f"{label}: matched or declined in",
                    matched,
                    "ms",
                    "≤ 100",
                    matched != "?" and float(matched) <= 100,
                ),
                Figure(
                    name,
                    f"{label}: /errkb paste to answer",
                    took,
                    "ms",
                    "< 500",
                    answered is not None and float(took) < 500,
                ),
            ]
    return rows + [f for f in bench.watch_figures(name, watch, baseline) if "healthz" in f.name]


def _answers(bench: Bench, threads: list[str], timeout: float) -> tuple[int, int, float | None]:
    """(lost, doubled, seconds until the last answer arrived) for the pastes of ``threads``."""
    counts = wait_for_answers(bench.fake, threads, timeout)
    lost, doubled = lost_and_doubled(counts, threads)
    times = [
        c.at for c in bench.fake.of("chat.postMessage") if c.params.get("thread_ts") in set(threads)
    ]
    return len(lost), len(doubled), max(times, default=None)


def _lost_doubled(name: str, what: str, lost: int, doubled: int, total: int) -> list[Figure]:
    return [
        Figure(name, f"{what}: lost of {total}", lost, "", "0", lost == 0),
        Figure(name, f"{what}: answered twice", doubled, "", "0", doubled == 0),
    ]


def slack_down(bench: Bench) -> list[Figure]:
    """The Slack Web API answering 503 for :data:`OUTAGE` seconds while people paste."""
    name = "slack down"
    bench.fake.outage(503)
    threads = []
    started = time.monotonic()
    while time.monotonic() - started < OUTAGE:
        status, _, ts = bench.paste(channel=OTHER)
        threads.append(ts) if status == 200 else None
        time.sleep(0.5)
    bench.fake.restore()
    back = time.monotonic()
    lost, doubled, last = _answers(bench, threads, timeout=60)
    after = "none" if last is None else round(last - back, 1)
    return [
        *_lost_doubled(name, f"{OUTAGE:.0f} s outage", lost, doubled, len(threads)),
        Figure(
            name,
            "last answer after Slack was back",
            after,
            "s",
            "< 35 (backoff ≤ 30 s)",
            last is not None and last - back < 35,
        ),
    ]


def rate_limited_channel(bench: Bench) -> list[Figure]:
    """One channel's posts get 429 with Retry-After 8: the others keep their latency."""
    name = "429 on one channel"
    bench.fake.rate_limit(CHANNEL, seconds=8, retry_after=8)
    held = [bench.paste(channel=CHANNEL)[2] for _ in range(3)]
    latencies = []
    for _ in range(20):
        status, _, ts = bench.paste(channel=OTHER)
        sent = time.monotonic()
        if status == 200 and wait_for_answers(bench.fake, [ts], timeout=5)[ts]:
            latencies.append((time.monotonic() - sent) * 1000)
        time.sleep(0.1)
    lost, doubled, _ = _answers(bench, held, timeout=40)
    p99 = percentile(latencies, 0.99)
    return [
        *_lost_doubled(name, "the limited channel's pastes", lost, doubled, len(held)),
        Figure(
            name,
            f"other channel paste to answer p99 ({len(latencies)} of 20)",
            round(p99, 1),
            "ms",
            "< 1000",
            len(latencies) == 20 and p99 < 1000,
        ),
    ]


def sqlite_locked(bench: Bench) -> list[Figure]:
    """Another process holds SQLite's write lock for :data:`LOCKED` seconds at 20 pastes a second;
    pastes not acknowledged are delivered again as Slack does (waits scaled down 50×)."""
    name = "sqlite locked"
    path = bench.database.removeprefix("sqlite:///")
    holder = sqlite3.connect(path, timeout=30, isolation_level=None)
    threads: list[str] = []
    refused = 0

    def one() -> None:
        nonlocal refused
        status, _, ts = bench.paste(retries=SLACK_RETRIES)
        threads.append(ts)
        refused += status == 0 or not 200 <= status < 300

    with ThreadPoolExecutor(32) as pool:
        holder.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        futures = []
        while time.monotonic() - started < LOCKED:
            futures.append(pool.submit(one))
            time.sleep(0.05)
        holder.execute("ROLLBACK")
        for _ in range(40):  # and two seconds after
            futures.append(pool.submit(one))
            time.sleep(0.05)
        for future in futures:
            future.result(timeout=60)
    holder.close()
    lost, doubled, _ = _answers(bench, threads, timeout=60)
    return [
        *_lost_doubled(name, f"{LOCKED:.0f} s lock at 20 pastes/s", lost, doubled, len(threads)),
        Figure(
            name, "pastes never acknowledged after Slack's retries", refused, "", "0", refused == 0
        ),
    ]


# -- one answer per message in long threads, tokens kept and sent only to Slack, readiness --


THREAD_REPLIES = 250  # replies around each paste: 250 before it, 250 after
LONG_THREAD_PASTES = 10


def _long_thread_paste(bench: Bench, n: int, base: str | None = None) -> tuple[str, str]:
    """A thread of 250 replies, a paste among them (sent signed to ``base``), 250 more
    after it: (root ts, paste ts)."""
    second = 1725000000 + 10 * n  # in the past: Slack gives the answer a later ts than the paste
    root = f"{second}.000000"
    paste = f"{second + 1}.000000"
    bench.fake.add_message(CHANNEL, root, "incident thread")
    for i in range(THREAD_REPLIES):
        bench.fake.add_message(CHANNEL, f"{second}.{i + 1:06d}", f"looking ({i})", thread_ts=root)
        bench.fake.add_message(CHANNEL, f"{second + 2}.{i:06d}", f"same here ({i})", thread_ts=root)
    bench.fake.add_message(CHANNEL, paste, PASTE.format(n=n), thread_ts=root)
    event = {
        "type": "message",
        "channel": CHANNEL,
        "user": USER,
        "ts": paste,
        "thread_ts": root,
        "client_msg_id": f"lt{paste}",
        "text": PASTE.format(n=n),
    }
    body = json.dumps(
        {"type": "event_callback", "event_id": f"EvLT{second}", "team_id": "T1", "event": event}
    ).encode()
    target = bench.base
    bench.base = base or bench.base
    try:
        bench.signed(body, "application/json", 5.0)
    finally:
        bench.base = target
    return root, paste


def _settled_answers(bench: Bench, roots: list[str], seconds: float) -> tuple[int, int]:
    """(lost, doubled) once no new answer has come for ``seconds``."""
    quiet_since = time.monotonic()
    seen = -1
    deadline = time.monotonic() + 120
    while time.monotonic() - quiet_since < seconds and time.monotonic() < deadline:
        now = len(bench.fake.of("chat.postMessage"))
        if now != seen:
            seen = now
            quiet_since = time.monotonic()
        time.sleep(0.2)
    lost, doubled = lost_and_doubled(wait_for_answers(bench.fake, roots, timeout=1), roots)
    return len(lost), len(doubled)


def long_threads_slow_posts(bench: Bench) -> list[Figure]:
    """Pastes in 250-reply threads whose posts reach Slack but are answered after the client's
    10 s timeout: the retry looks for its answer, from the paste on, page after page."""
    name = "250-reply threads, slow posts"
    bench.fake.slow_next("chat.postMessage", 11.0, times=LONG_THREAD_PASTES)
    threads = [_long_thread_paste(bench, n) for n in range(LONG_THREAD_PASTES)]
    lost, doubled = _settled_answers(bench, [r for r, _ in threads], seconds=15)
    pastes = {paste for _, paste in threads}
    pages = [c for c in bench.fake.of("conversations.replies") if c.params.get("oldest") in pastes]
    return [
        *_lost_doubled(
            name,
            f"{LONG_THREAD_PASTES} pastes, posts slower than 10 s",
            lost,
            doubled,
            LONG_THREAD_PASTES,
        ),
        Figure(name, "conversations.replies pages read for them", len(pages), "", ""),
    ]


def _spawn(bench: Bench, folder: Path, **env: str) -> tuple[subprocess.Popen[bytes], str]:
    """Another ``errkb serve`` on the bench's database: (process, base URL once healthy)."""
    port = free_port()
    settings = {
        **os.environ,
        "ERRKB_DATABASE_URL": bench.database,
        "SLACK_API_URL": bench.fake.api_url,
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "ERRKB_LOG_LEVEL": "WARNING",
        "ERRKB_LOG_FORMAT": "json",
        "ERRKB_CACHE_DIR": str(folder / "cache"),
        **env,
    }
    log = (folder / f"serve-{port}.log").open("w")
    proc = subprocess.Popen(
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
        env=settings,
        cwd=ROOT,
        stderr=log,
    )
    return proc, f"http://127.0.0.1:{port}"


def _status(base: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    except OSError:
        return 0, {}


def _healthy(proc: subprocess.Popen[bytes], base: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while _status(base)[0] != 200:
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit(f"a second errkb serve did not become healthy at {base}")
        time.sleep(0.05)


def long_threads_killed_server(bench: Bench) -> list[Figure]:
    """Pastes in 250-reply threads sent to a second server that is killed (SIGKILL) with every
    post on its way to Slack, then started again: it finds the posts instead of repeating them."""
    name = "250-reply threads, kill -9"
    pastes = 20
    with tempfile.TemporaryDirectory(prefix="errkb-kill-") as tmp:
        env = {"ERRKB_JOB_LEASE_SECONDS": "5", "ERRKB_WORKERS": str(pastes)}
        proc, base = _spawn(bench, Path(tmp), **env)
        _healthy(proc, base)
        bench.fake.hold("chat.postMessage")
        before = len(bench.fake.of("chat.postMessage"))
        threads = [_long_thread_paste(bench, 100 + n, base) for n in range(pastes)]
        bench.fake.wait_for("chat.postMessage", before + pastes, timeout=30)
        proc.kill()
        proc.wait(timeout=10)
        bench.fake.release("chat.postMessage")
        again, base = _spawn(bench, Path(tmp), **env)
        try:
            _healthy(again, base)
            lost, doubled = _settled_answers(bench, [r for r, _ in threads], seconds=12)
        finally:
            again.terminate()
            again.wait(timeout=30)
    return _lost_doubled(
        name, f"{pastes} pastes in flight, server killed and restarted", lost, doubled, pastes
    )


def tokens_at_rest(bench: Bench) -> list[Figure]:
    """Installation tokens saved through errkb's installation store, then the database file read
    as bytes: no token in it; the right key reads them back, another key does not."""
    from cryptography.fernet import Fernet
    from slack_sdk.oauth.installation_store import Installation
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore

    from bot.store.oauth import BOTS, INSTALLATIONS
    from bot.store.secrets import EncryptedInstallationStore, TokenCipher

    name = "tokens at rest"
    key = Fernet.generate_key().decode()
    other = Fernet.generate_key().decode()
    tokens = {
        f"T{n}": (f"xoxb-{n}-bench-bot-token-{n:04d}", f"xoxe-1-bench-refresh-{n:04d}")
        for n in range(20)
    }
    with tempfile.TemporaryDirectory(prefix="errkb-tokens-") as tmp:
        url = f"sqlite:///{tmp}/tokens.sqlite3"
        store = open_store(url, migrate=True)
        try:

            def installations(k: str) -> EncryptedInstallationStore:
                inner = SQLAlchemyInstallationStore(
                    client_id="1.2",
                    engine=store.engine,
                    bots_table_name=BOTS,
                    installations_table_name=INSTALLATIONS,
                )
                return EncryptedInstallationStore(inner, TokenCipher(k))

            for team, (bot, refresh) in tokens.items():
                installations(key).save(
                    Installation(
                        app_id="A1",
                        team_id=team,
                        user_id="U1",
                        bot_token=bot,
                        bot_refresh_token=refresh,
                        bot_id="B1",
                        bot_user_id="UB",
                    )
                )
            with store.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            raw = b"".join(
                p.read_bytes() for p in Path(tmp).iterdir() if p.name.startswith("tokens.sqlite3")
            )
            plain = sum(raw.count(t.encode()) for pair in tokens.values() for t in pair)
            read = sum(
                (b := installations(key).find_bot(enterprise_id=None, team_id=team)) is not None
                and b.bot_token == pair[0]
                for team, pair in tokens.items()
            )
            quiet = logging.getLogger("bot.store.secrets")
            quiet.disabled = (
                True  # its one line per unreadable installation is the expected outcome here
            )
            try:
                wrong = sum(
                    installations(other).find_bot(enterprise_id=None, team_id=team) is not None
                    for team in tokens
                )
            finally:
                quiet.disabled = False
        finally:
            store.dispose()
    total = 2 * len(tokens)
    return [
        Figure(
            name,
            f"tokens readable in the database file ({total} stored)",
            plain,
            "",
            "0",
            plain == 0,
        ),
        Figure(
            name,
            "read back with ERRKB_SECRET_KEY",
            f"{read} of {len(tokens)}",
            "",
            "all",
            read == len(tokens),
        ),
        Figure(name, "read with another key", wrong, "", "0", wrong == 0),
    ]


def snippet_credentials(bench: Bench) -> list[Figure]:
    """Signed file-share events naming another host, and a Slack URL redirecting to it: the
    other host (a second loopback server keeping each request's headers) never gets the token."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    name = "snippet downloads"
    seen: list[dict[str, str]] = []

    class Foreign(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            seen.append(dict(self.headers))
            body = PASTE.format(n=1).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    foreign = ThreadingHTTPServer(("127.0.0.1", 0), Foreign)
    threading.Thread(
        target=foreign.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    other = f"http://127.0.0.1:{foreign.server_address[1]}"
    bench.fake.moved["moved.log"] = other + "/moved.log"
    urls = {
        "another host": other + "/files-pri/T1-F1/crash.log",
        "redirect off Slack": bench.fake.url + "/files/moved.log",
    }
    slack_before = len(bench.fake.of("files.download"))
    try:
        for n, url in enumerate(urls.values()):
            file = {
                "id": f"FB{n}",
                "name": "crash.log",
                "mimetype": "text/plain",
                "filetype": "text",
                "size": 100,
                "url_private_download": url,
            }
            event = {
                "type": "message",
                "subtype": "file_share",
                "channel": CHANNEL,
                "user": USER,
                "text": "",
                "ts": f"1820000000.{n + 1:06d}",
                "client_msg_id": f"fs{n}",
                "files": [file],
            }
            body = json.dumps(
                {
                    "type": "event_callback",
                    "event_id": f"EvFS{n:06d}",
                    "team_id": "T1",
                    "event": event,
                }
            ).encode()
            bench.signed(body, "application/json", 5.0)
        bench.fake.wait_for("files.download", slack_before + 1, timeout=10)
        time.sleep(1.0)
    finally:
        foreign.shutdown()
        foreign.server_close()
    leaked = sum("Authorization" in h for h in seen)
    slack = [
        c for c in bench.fake.of("files.download")[slack_before:] if "Authorization" in c.headers
    ]
    return [
        Figure(
            name,
            "Authorization sent to another host or across a redirect",
            leaked,
            "",
            "0",
            leaked == 0,
        ),
        Figure(name, "requests the other host got", len(seen), "", ""),
        Figure(name, "Slack-origin download sent the token", len(slack), "", "1", len(slack) == 1),
    ]


def readiness_after_restart(bench: Bench) -> list[Figure]:
    """A server stopped (its snapshot written), 2,500 records imported, the server started
    again from the snapshot: /healthz is 503 until the changes are applied, never ok early."""
    from benchmarks.synthetic_kb import synthetic_records

    name = "/healthz after a restart"
    with tempfile.TemporaryDirectory(prefix="errkb-ready-") as tmp:
        proc, base = _spawn(bench, Path(tmp))
        _healthy(proc, base)
        proc.terminate()
        proc.wait(timeout=30)
        store = open_store(bench.database)
        try:
            with store.transaction() as session:
                repository.import_records(
                    session,
                    records=synthetic_records(2_500, seed=29),
                    on_conflict="upsert",
                    actor="bench",
                    now=datetime.now(UTC),
                )
            with store.read() as session:
                total = len(repository.record_ids(session))
        finally:
            store.dispose()
        again, base = _spawn(bench, Path(tmp))
        started = time.monotonic()
        early = 0
        starting = 0.0
        try:
            while time.monotonic() - started < 120:
                status, body = _status(base)
                records = (body.get("knowledge_base") or {}).get("records", 0)  # type: ignore[union-attr]
                if status == 200:
                    early += records != total  # ok while behind the database
                    if records == total:
                        break
                elif body.get("status") == "starting":
                    starting = time.monotonic() - started
                time.sleep(0.02)
        finally:
            again.terminate()
            again.wait(timeout=30)
    return [
        Figure(name, f"200 ok before all {total:,} records were in", early, "", "0", early == 0),
        Figure(name, "503 starting meanwhile, for", round(starting, 1), "s", ""),
    ]


# -- imports, text and agent votes -------------------------------------------------------------

UNFIT_PASTES = {"NUL": "\x00", "lone surrogate": "\ud800"}
VOTED = "llm/vllm-no-available-memory-for-cache-blocks"
MCP_TOKEN = "bench-mcp-token-7f3a9c1e5b2d4086"
BIG_IMPORT = 50_000


def _errkb_env(bench: Bench, **settings: str) -> dict[str, str]:
    return {
        **os.environ,
        "ERRKB_DATABASE_URL": bench.database,
        "ERRKB_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
        **settings,
    }


def import_bombs(bench: Bench) -> list[Figure]:
    """``errkb import`` of each bomb of :data:`tests.bombs.BOMBS`, its address space capped at
    1 GiB: refused in one line naming the file, within a minute."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="errkb-bombs-") as tmp:
        for name, write in BOMBS.items():
            path = Path(tmp) / name
            write(path)
            done = run_capped(["import", str(path)], _errkb_env(bench), memory=GIB, timeout=60)
            lines = [line for line in done.stderr.splitlines() if line.startswith(str(path))]
            refused = done.code == 1 and len(lines) == 1 and "Traceback" not in done.stderr
            label = f"{name} ({path.stat().st_size >> 10} KiB)"
            rows += [
                Figure(
                    "import bombs",
                    f"{label}: refused in one line, exit 1",
                    "yes" if refused else "no",
                    "",
                    "yes",
                    refused,
                ),
                Figure(
                    "import bombs",
                    f"{label}: time",
                    round(done.seconds, 1),
                    "s",
                    "< 60",
                    done.seconds < 60 and not done.timed_out,
                ),
                Figure(
                    "import bombs",
                    f"{label}: peak memory",
                    round(done.peak_bytes / MB),
                    "MB",
                    "< 1024",
                    done.peak_bytes < GIB,
                ),
            ]
    return rows


def unfit_text(bench: Bench) -> list[Figure]:
    """A paste holding a NUL or a lone surrogate, on this server's database: answered in its
    thread. (The same on PostgreSQL is held by ``tests/slack/test_unfit_text.py``.)"""
    rows = []
    for name, bad in UNFIT_PASTES.items():
        status, _, ts = bench.paste(PASTE.format(n=7).replace("core", f"core{bad}") + bad)
        counts = wait_for_answers(bench.fake, [ts], timeout=30)
        answered = status == 200 and counts[ts] == 1
        kind = bench.database.split(":", 1)[0].split("+", 1)[0]
        rows.append(
            Figure(
                f"unfit text ({kind})",
                f"paste with a {name}: acknowledged 200 and answered",
                "yes" if answered else f"no (status {status})",
                "",
                "yes",
                answered,
            )
        )
    return rows


def _mcp_server(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "mcp", "--http", "--port", "0"],
        env=env,
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        found = MCP_SERVING.search(line)
        if found:
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep the pipe drained
            return proc, f"http://127.0.0.1:{found.group(1)}/mcp"
    raise SystemExit("errkb mcp --http did not start")


def stuffed_votes(bench: Bench) -> list[Figure]:
    """``errkb mcp --http`` with a token: 100 sessions under 100 client names report the same
    workaround as worked; then 1,500 sessions are opened and left idle."""
    env = _errkb_env(
        bench, ERRKB_MCP_TOKEN=MCP_TOKEN, ERRKB_MCP_OUTCOMES="true", ERRKB_LOG_LEVEL="INFO"
    )
    proc, url = _mcp_server(env)
    try:
        said = []
        for n in range(100):
            agent = RawSession(url, token=MCP_TOKEN, client=f"agent-{n}")
            agent.open()
            said.append(agent.call("report_outcome", record_id=VOTED, workaround=0, worked=True)[1])
        counted = sum(bool(s and s["structuredContent"]["changed"]) for s in said)
        watched = Bench(url.removesuffix("/mcp"), proc.pid, bench.fake, bench.log)
        base = watched.rss()
        opened = [RawSession(url, token=MCP_TOKEN).open() for _ in range(1_500)]
        grown = (watched.rss() - base) / MB
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    refused = sum(status == 503 for status in opened)
    return [
        Figure(
            "agent votes",
            "100 sessions of one token report one workaround: votes counted",
            counted,
            "",
            "1",
            counted == 1,
        ),
        Figure(
            "agent votes",
            "1,500 idle sessions: opened / refused (503)",
            f"{len(opened) - refused} / {refused}",
            "",
            "capped",
        ),
        Figure(
            "agent votes",
            "1,500 idle sessions: server memory growth",
            round(grown, 1),
            "MB",
            "< 30",
            grown < 30,
        ),
    ]


def big_import(bench: Bench) -> list[Figure]:
    """``errkb import`` of :data:`BIG_IMPORT` synthetic records (a real process) while the server
    is sent 20 pastes a second: every acknowledgement within Slack's 3 s."""
    name = f"{BIG_IMPORT // 1000}k import beside 20 pastes/s"
    with tempfile.TemporaryDirectory(prefix="errkb-big-") as tmp:
        path = Path(tmp) / "big.jsonl"
        write_records(path, BIG_IMPORT)
        done = import_beside_pastes(bench.base, _errkb_env(bench), path, rate=20.0, secret=SECRET)
    acks = [seconds * 1000 for _, seconds in done.acks]
    return [
        Figure(
            name,
            "import",
            f"exit {done.import_code}, {done.import_seconds:.0f} s",
            "",
            "exit 0",
            done.import_code == 0,
        ),
        Figure(
            name,
            f"paste ack p50/p99/max ({len(acks)} sent)",
            f"{percentile(acks, 0.5):.0f} / {percentile(acks, 0.99):.0f} / "
            f"{max(acks, default=float('nan')):.0f}",
            "ms",
            "max < 3000",
            bool(acks) and max(acks) < 3000,
        ),
        Figure(name, "pastes not acknowledged 200", done.refused, "", "0", done.refused == 0),
    ]


#: Every scenario, run in this order: (name, function).
SCENARIOS: list[tuple[str, Callable[[Bench], list[Figure]]]] = [
    ("hostile regex", hostile_regex),
    ("malformed", malformed_requests),
    ("big bodies and slow connections", big_bodies_and_slow_connections),
    ("slack down", slack_down),
    ("429 on one channel", rate_limited_channel),
    ("sqlite locked", sqlite_locked),
    ("long threads, slow posts", long_threads_slow_posts),
    ("long threads, kill -9", long_threads_killed_server),
    ("tokens at rest", tokens_at_rest),
    ("snippet downloads", snippet_credentials),
    ("readiness after a restart", readiness_after_restart),
    ("import bombs", import_bombs),
    ("unfit text", unfit_text),
    ("agent votes", stuffed_votes),
    ("big import", big_import),
]


# -- the run ---------------------------------------------------------------------------------


def prepare(folder: Path) -> str:
    url = f"sqlite:///{folder}/bench.sqlite3"
    records = load_records(
        sorted((ROOT / "data").glob("*.json")) + [ROOT / "tests" / "slack" / "kb.json"]
    )
    records.append(
        Record.model_validate(HOSTILE_RECORD, context=STORED)
    )  # as an older errkb stored it
    store = open_store(url, migrate=True)
    with store.transaction() as session:
        repository.import_records(
            session, records=records, on_conflict="upsert", actor="bench", now=datetime.now(UTC)
        )
    store.dispose()
    return url


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(server_root: Path, folder: Path, fake: FakeSlack) -> Iterator[Bench]:
    port = free_port()
    log = folder / "serve.log"
    database = prepare(folder)
    env = {
        **os.environ,
        "ERRKB_DATABASE_URL": database,
        "SLACK_API_URL": fake.api_url,
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "ERRKB_LOG_LEVEL": "WARNING",
        "ERRKB_LOG_FORMAT": "json",
        "PYTHONPATH": str(server_root),
    }
    with log.open("w") as err:
        proc = subprocess.Popen(
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
            env=env,
            cwd=server_root,
            stderr=err,
        )
        bench = Bench(f"http://127.0.0.1:{port}", proc.pid, fake, log, database)
        try:
            deadline = time.monotonic() + 60
            while bench.healthz(timeout=2) is None:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit(
                        "errkb serve did not become healthy:\n" + log.read_text()[-3000:]
                    )
                time.sleep(0.1)
            for _ in range(5):  # warm: first answers build caches
                bench.paste()
            fake.wait_for("chat.postMessage", 5, timeout=10)
            yield bench
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                print("  (errkb serve ignored SIGTERM for 20 s: killed)")
                proc.kill()
                proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", action="append", help="run only the scenarios with these names")
    parser.add_argument(
        "--server-root",
        type=Path,
        default=ROOT,
        help="checkout whose errkb serve is measured (default: this one)",
    )
    args = parser.parse_args()
    chosen = [(n, f) for n, f in SCENARIOS if not args.only or n in args.only]
    fake = FakeSlack(users={USER: {"locale": "en-US"}}).start()
    rows: list[Figure] = []
    try:
        with (
            tempfile.TemporaryDirectory(prefix="errkb-faults-") as tmp,
            serving(args.server_root.resolve(), Path(tmp), fake) as bench,
        ):
            for name, scenario in chosen:
                print(f"running: {name}", file=sys.stderr)
                rows += scenario(bench)
    finally:
        fake.stop()
    width = max(len(f"{r.scenario}  {r.name}") for r in rows)
    for row in rows:
        verdict = {True: "ok", False: "MISSED", None: ""}[row.ok]
        label = f"{row.scenario}  {row.name}".ljust(width)
        print(
            f"{label}  {str(row.value) + (' ' + row.unit if row.unit else ''):>26}  "
            f"{row.target:>20}  {verdict}"
        )
    missed = [r for r in rows if r.ok is False]
    print("PASS" if not missed else f"FAIL: {len(missed)} target(s) missed")
    raise SystemExit(1 if missed else 0)


if __name__ == "__main__":
    main()
