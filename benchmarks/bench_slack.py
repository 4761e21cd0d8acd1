"""The load benchmark of the Slack bot: a real server, the deadends corpus, a realistic mix of
pastes.

Creates a fresh database (a SQLite file, or a new database on the PostgreSQL
server of ``--database``) with the real ``errkb init`` and ``errkb import`` of
the deadends corpus (``../shared/corpora/deadends/deadends-canons.jsonl.gz``
beside the checkout; without it this says so and stops), starts the real
``errkb serve --http`` against the loopback Slack stand-in
(``tests/slack/fake_slack/``), and for ``--seconds`` sends signed pastes at
``--rate`` per second: tracebacks and log excerpts of known errors, errors
nobody recorded, and chit-chat, each distinct (every tenth delivered twice,
as Slack's retry). Meanwhile ``errkb import`` writes one record ``--imports``
times. Then it clicks "This fixed it", "Still valid" and "Snooze" a few times
each and reads from ``/metrics`` how many index or graph rebuilds that caused.

Prints each figure beside its target, the server's CPU seconds per paste (the
figure to compare on a loaded machine) and the machine's load; exits 1 when a
target is missed.

    python benchmarks/bench_slack.py --seconds 60
    python benchmarks/bench_slack.py --seconds 60 \
        --database postgresql://postgres@127.0.0.1:5432/test
    python benchmarks/bench_slack.py --server-root ../other-checkout   # measure another errkb serve
    python benchmarks/bench_slack.py --https   # the stand-in serves HTTPS, as Slack does
    python benchmarks/bench_slack.py --vs ../base-checkout --pairs 2 --write docs/bench_slack.txt

``--vs`` runs that checkout's errkb and this one's in turn, ``--pairs`` times
(base, this, base, this …, so a machine whose speed drifts slows both alike),
and prints the server CPU per paste of each run, the medians and their ratio,
naming both commits; ``--write`` keeps everything printed in a file.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import random
import re
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.harness import (
    cpu_seconds,
    errkb,
    fresh_database,
    machine_load,
    metric_sum,
    require_corpus,
    served,
)
from bot.match.eval import percentile
from bot.render.ids import ActionId, BlockId
from bot.render.state import DigestItemState
from tests.slack.conftest import sign
from tests.slack.fake_slack import FakeSlack
from tests.slack.fake_slack.tls import self_signed

SECRET = "bench-secret"
TOKEN = "xoxb-bench-token"
USER = "UBENCH"
MAINTAINER = "UMAINT"
CHANNEL = "CBENCH"
CLICKS = 5  # of each kind: vote, confirm, snooze
LOCKED = re.compile(r"database is locked", re.IGNORECASE)
MIX = (("traceback", 0.40), ("log", 0.25), ("unknown", 0.15), ("chat", 0.20))
REBUILDS = "errkb_knowledge_rebuilds_total"

# -- pastes ------------------------------------------------------------------------

FRAMES = ("app/worker.py", "app/jobs/train.py", "lib/pipeline/runner.py", "service/handlers.py")
CHAT = (
    "anyone around to review my PR for the tokenizer cache?",
    "the standup moved to 10:30 today",
    "does someone know who owns the staging cluster?",
    "thanks, that fixed it! deploying now",
    "lunch at noon? the new place on the corner",
    "I'll be out Friday, ping me on the thread if it breaks",
    "what's the command to rotate the API keys again?",
)
UNKNOWN = ("Widget", "Flux", "Quota", "Shard", "Ledger", "Beacon", "Spindle", "Turbine")


def _traceback(rng: random.Random, signature: str) -> str:
    frames = "".join(
        f'  File "/srv/{rng.choice(FRAMES)}", line {rng.randint(10, 900)}, '
        f"in step_{rng.randint(1, 99)}\n"
        f"    result = run_{rng.randint(1, 50)}(batch)\n"
        for _ in range(rng.randint(2, 6))
    )
    return f"Traceback (most recent call last):\n{frames}{signature}"


def _log(rng: random.Random, signature: str) -> str:
    lines = [
        f"2026-12-01 10:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d},"
        f"{rng.randint(0, 999):03d} INFO [worker-{rng.randint(1, 16)}] "
        f"step {rng.randint(1, 10_000)} done in {rng.random():.3f}s"
        for _ in range(rng.randint(2, 8))
    ]
    lines.insert(
        rng.randint(1, len(lines)),
        f"2026-12-01 10:31:07,{rng.randint(0, 999):03d} ERROR [main] {signature}",
    )
    return "\n".join(lines)


def make_paste(rng: random.Random, kind: str, signatures: list[str], n: int) -> str:
    if kind == "traceback":
        return _traceback(rng, rng.choice(signatures))
    if kind == "log":
        return _log(rng, rng.choice(signatures).splitlines()[0])
    if kind == "unknown":
        name = rng.choice(UNKNOWN)
        return _traceback(
            rng,
            f"{name}{rng.choice(UNKNOWN)}Error: {name.lower()} {n} refused the handshake "
            f"after {rng.randint(2, 90)} retries",
        )
    return f"{rng.choice(CHAT)} ({n})" if rng.random() < 0.5 else rng.choice(CHAT)


def paste_mix(
    signatures: list[str], count: int, seed: int = 20261201
) -> list[tuple[int, str, str]]:
    """``count`` distinct pastes of the kinds of :data:`MIX`: (n, kind, text)."""
    rng = random.Random(seed)
    kinds = rng.choices([k for k, _ in MIX], weights=[w for _, w in MIX], k=count)
    return [(n, kind, make_paste(rng, kind, signatures, n)) for n, kind in enumerate(kinds)]


# -- Slack side ----------------------------------------------------------------------


@dataclass
class Load:
    base: str
    fake: FakeSlack
    sent: dict[str, tuple[float, str]] = field(default_factory=dict)  # ts → (sent at, kind)
    acks: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def post(self, body: bytes, content_type: str, retry: int | None = None) -> tuple[int, float]:
        ts = int(time.time())
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(ts),
            "X-Slack-Signature": sign(body, ts, SECRET),
        }
        if retry:
            headers["X-Slack-Retry-Num"] = str(retry)
        started = time.monotonic()
        request = urllib.request.Request(self.base + "/slack/events", body, headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
                return response.status, time.monotonic() - started
        except urllib.error.HTTPError as exc:
            return exc.code, time.monotonic() - started

    def paste(self, n: int, kind: str, text: str) -> None:
        ts = f"1800000000.{n:06d}"
        event = {
            "type": "message",
            "channel": CHANNEL,
            "user": USER,
            "ts": ts,
            "client_msg_id": f"b{n}",
            "text": text,
            "channel_type": "channel",
        }
        body = json.dumps(
            {
                "type": "event_callback",
                "event_id": f"EvS{n:08d}",
                "team_id": "T1",
                "api_app_id": "A1",
                "event": event,
            }
        ).encode()
        with self.lock:
            self.sent[ts] = (time.monotonic(), kind)
        try:
            status, seconds = self.post(body, "application/json")
            if n % 10 == 0:  # Slack's retry of the same delivery
                self.post(body, "application/json", retry=1)
        except OSError as exc:
            with self.lock:
                self.failures.append(f"paste {n}: {exc}")
            return
        with self.lock:
            self.acks.append(seconds)
            if status != 200:
                self.failures.append(f"paste {n}: HTTP {status}")

    def click(self, action: str, value: str, user: str, block_id: str = "b") -> int:
        payload = {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": user, "team_id": "T1"},
            "api_app_id": "A1",
            "trigger_id": "trig",
            "channel": {"id": CHANNEL},
            "container": {
                "type": "message",
                "message_ts": "1800000001.000001",
                "channel_id": CHANNEL,
            },
            "message": {"ts": "1800000001.000001", "blocks": []},
            "response_url": self.fake.response_url("bench"),
            "actions": [
                {
                    "type": "button",
                    "action_id": action,
                    "block_id": block_id,
                    "value": value,
                    "action_ts": str(time.time()),
                }
            ],
        }
        return self.post(
            urlencode({"payload": json.dumps(payload)}).encode(),
            "application/x-www-form-urlencoded",
        )[0]

    def answers(self) -> dict[str, list[float]]:
        """When each pasted message (by its ts) got an answer in its thread."""
        found: dict[str, list[float]] = {}
        for call in self.fake.of("chat.postMessage"):
            found.setdefault(str(call.params.get("thread_ts")), []).append(call.at)
        return found


def click_evidence(load: Load, canons: list[dict[str, Any]]) -> list[int]:
    """Votes on answers the bot gave, then maintainers' "Still valid" and "Snooze"."""
    statuses = []
    votes = [
        e["value"]
        for call in load.fake.of("chat.postMessage")
        for b in (call.params.get("blocks") or [])
        if b.get("type") == "actions"
        for e in b["elements"]
        if e.get("action_id") == ActionId.VOTE_FIXED
    ]
    for value in votes[:CLICKS]:
        statuses.append(load.click(ActionId.VOTE_FIXED, value, USER))
    for action in (ActionId.DIGEST_CONFIRM, ActionId.DIGEST_SNOOZE):
        for canon in canons[:CLICKS]:
            rid = canon["id"]
            domain = canon["error"]["domain"]
            value = DigestItemState(record=rid, domain=domain).dump()
            statuses.append(load.click(action, value, MAINTAINER, f"{BlockId.DIGEST_ITEM}:{rid}"))
    return statuses


# -- the command line meanwhile --------------------------------------------------------


def one_record_imports(
    root: Path, folder: Path, env: dict[str, str], canons: list[dict[str, Any]], times: list[float]
) -> list[tuple[int, float, str]]:
    """``errkb import`` of one edited record at each of ``times`` (monotonic): (exit code,
    seconds, stderr)."""
    results = []
    for i, at in enumerate(times):
        time.sleep(max(0.0, at - time.monotonic()))
        canon = json.loads(json.dumps(canons[i * 97 % len(canons)]))
        canon["verdict"]["summary"] = (
            f"{canon['verdict']['summary']} (edited by the benchmark, {i + 1})"
        )
        path = folder / f"one-{i}.json"
        path.write_text(json.dumps(canon), encoding="utf-8")
        began = time.monotonic()
        done = errkb(root, "import", str(path), "--json", env=env, timeout=300)
        results.append((done.returncode, time.monotonic() - began, done.stderr))
    return results


# -- the run ---------------------------------------------------------------------------


@dataclass
class Run:
    label: str
    records: int
    prepared: float
    seconds: float
    rate: float
    pastes: list[tuple[int, str, str]]
    imports: list[tuple[int, float, str]] = field(default_factory=list)
    clicks: list[int] = field(default_factory=list)
    rebuilds: tuple[float | None, float | None] = (None, None)  # after the load, after the clicks
    cpu: float = 0.0
    log: str = ""
    load_before: str = ""
    load_after: str = ""


def send_pastes(load: Load, pastes: list[tuple[int, str, str]], rate: float, start: float) -> None:
    with ThreadPoolExecutor(64) as pool:
        for n, kind, text in pastes:
            time.sleep(max(0.0, start + n / rate - time.monotonic()))
            pool.submit(load.paste, n, kind, text)


@dataclass(frozen=True)
class Setup:
    """What a run is asked to do (the command line's options)."""

    postgres: str | None
    seconds: float
    rate: float
    imports: int
    refresh: float
    https: bool = False

    @classmethod
    def of(cls, args: argparse.Namespace) -> Setup:
        return cls(
            args.database, args.seconds, args.rate, args.imports, args.refresh_seconds, args.https
        )


def run(root: Path, setup: Setup) -> tuple[bool, float]:
    """One run against ``root``'s errkb: whether every target was met, and the server's CPU
    milliseconds per paste. With ``https`` the stand-in serves HTTPS, as Slack does, and
    the server trusts its certificate beside the system's CA certificates."""
    corpus = require_corpus()
    with tempfile.TemporaryDirectory(prefix="errkb-bench-tls-") as tls_dir:
        trust, tls = _tls(Path(tls_dir)) if setup.https else ({}, None)
        users = {USER: {"locale": "en-US"}, MAINTAINER: {"locale": "en-US"}}
        fake = FakeSlack(users=users, tls=tls).start()
        try:
            return _run(root, setup, fake, trust, corpus)
        finally:
            fake.stop()


def _tls(folder: Path) -> tuple[dict[str, str], ssl.SSLContext]:
    """The stand-in's server context, and the environment that makes a client trust it:
    ``SSL_CERT_FILE`` naming the system's CA certificates and the stand-in's, so a client
    loads as many as it does in production."""
    cert, server = self_signed(folder)
    bundle = folder / "ca-certificates.pem"
    system = ssl.get_default_verify_paths()
    found = [Path(p) for p in (system.cafile, system.openssl_cafile) if p and Path(p).is_file()]
    bundle.write_bytes((found[0].read_bytes() if found else b"") + cert.read_bytes())
    return {"SSL_CERT_FILE": str(bundle)}, server


def _run(
    root: Path, setup: Setup, fake: FakeSlack, trust: dict[str, str], corpus: Path
) -> tuple[bool, float]:
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        canons = [json.loads(line) for line in lines]
    signatures = [c["error"]["signature"] for c in canons]
    with (
        tempfile.TemporaryDirectory(prefix="errkb-bench-slack-") as tmp,
        fresh_database(setup.postgres) as url,
    ):
        folder = Path(tmp)
        env = {
            **os.environ,
            **trust,
            "HOME": str(folder),
            "ERRKB_DATABASE_URL": url,
            "SLACK_API_URL": fake.api_url,
            "SLACK_BOT_TOKEN": TOKEN,
            "SLACK_SIGNING_SECRET": SECRET,
            "ERRKB_MAINTAINERS": MAINTAINER,
            "ERRKB_KB_REFRESH_SECONDS": str(setup.refresh),
            "ERRKB_LOG_LEVEL": "WARNING",
        }
        began = time.monotonic()
        for args in (("init", "--no-starter"), ("import", str(corpus), "--json")):
            done = errkb(root, *args, env=env)
            if done.returncode != 0:
                raise SystemExit(f"errkb {' '.join(args)} failed:\n{done.stderr}")
        result = Run(
            "PostgreSQL" if setup.postgres else "SQLite",
            len(canons),
            time.monotonic() - began,
            setup.seconds,
            setup.rate,
            paste_mix(signatures, int(setup.seconds * setup.rate)),
        )
        with served(root, env, folder / "serve.log") as (base, pid):
            load = Load(base, fake)
            measure(result, load, root, folder, env, canons, pid, setup.imports)
        result.log = (folder / "serve.log").read_text(encoding="utf-8", errors="replace")
        return report(result, load), result.cpu / max(1, len(result.pastes)) * 1000


def measure(
    result: Run,
    load: Load,
    root: Path,
    folder: Path,
    env: dict[str, str],
    canons: list[dict[str, Any]],
    pid: int,
    imports: int,
) -> None:
    rebuilt: Callable[[], float | None] = lambda: metric_sum(load.base, REBUILDS)  # noqa: E731
    result.load_before = machine_load()
    start = time.monotonic() + 0.5
    cpu_before = cpu_seconds(pid)
    at = [start + (i + 0.5) * result.seconds / imports for i in range(imports)]
    with ThreadPoolExecutor(1) as importer:
        done = importer.submit(one_record_imports, root, folder, env, canons, at)
        send_pastes(load, result.pastes, result.rate, start)
        result.imports = done.result(timeout=900)
    settle = time.monotonic() + 30
    while time.monotonic() < settle and len(load.answers()) < _answerable(load):
        time.sleep(0.1)
    time.sleep(1.0)  # let a doubled answer surface
    result.cpu, result.load_after = cpu_seconds(pid) - cpu_before, machine_load()
    after_load = rebuilt()
    result.clicks = click_evidence(load, canons)
    time.sleep(
        min(max(4.0, 3 * float(env["ERRKB_KB_REFRESH_SECONDS"])), 30.0)
    )  # several knowledge polls
    result.rebuilds = (after_load, rebuilt())


def _answerable(load: Load) -> int:
    """Pastes that may get an answer: those naming an error someone recorded."""
    return sum(1 for _, kind in load.sent.values() if kind in ("traceback", "log"))


def report(run: Run, load: Load) -> bool:
    answers = load.answers()
    latencies = [min(at) - load.sent[ts][0] for ts, at in answers.items() if ts in load.sent]
    by_kind = {kind: sum(1 for _, k, _ in run.pastes if k == kind) for kind, _ in MIX}
    answered = {
        kind: sum(1 for ts, (_, k) in load.sent.items() if k == kind and ts in answers)
        for kind, _ in MIX
    }
    doubled = sum(1 for at in answers.values() if len(at) > 1)
    locked = len(LOCKED.findall(run.log)) + sum(
        len(LOCKED.findall(err)) for _, _, err in run.imports
    )
    succeeded = sum(1 for code, _, _ in run.imports if code == 0)
    count = len(run.imports)
    ack50 = percentile(load.acks, 50)
    ack99 = percentile(load.acks, 99)
    answer50 = percentile(latencies, 50)
    answer99 = percentile(latencies, 99)
    checks = [
        (
            "ack p50 / p99",
            f"{ack50 * 1000:.0f} / {ack99 * 1000:.0f} ms",
            "p99 < 100 ms",
            ack99 < 0.1,
        ),
        (
            "paste-to-answer p50 / p99",
            f"{answer50 * 1000:.0f} / {answer99 * 1000:.0f} ms",
            "p99 < 500 ms",
            bool(latencies) and answer99 < 0.5,
        ),
        ("pastes answered twice", f"{doubled}", "0", doubled == 0),
        ("request failures", f"{len(load.failures)}", "0", not load.failures),
        (
            "one-record imports succeeded",
            f"{succeeded} of {count}",
            f"{count} of {count}",
            succeeded == count,
        ),
        ('"database is locked" lines', f"{locked}", "0", locked == 0),
    ]
    after_load, after_clicks = run.rebuilds
    if after_load is not None and after_clicks is not None:
        caused = after_clicks - after_load
        checks.append(
            (
                f"rebuilds from {len(run.clicks)} votes/confirms/snoozes",
                f"{caused:g}",
                "0",
                caused == 0,
            )
        )
    total = len(run.pastes)
    print(
        f"{run.label}, {run.records} records (deadends corpus): {total} pastes in "
        f"{run.seconds:g}s at {run.rate:g}/s (+{(total + 9) // 10} retries); "
        f"{count} one-record imports meanwhile"
    )
    print("  mix: " + ", ".join(f"{k} {by_kind[k]} (answered {answered[k]})" for k, _ in MIX))
    print(
        f"  init + corpus import {run.prepared:.1f}s; "
        f"machine {run.load_before} before, {run.load_after} after"
    )
    print(f"  the server used {run.cpu:.1f} CPU-s: {run.cpu / max(1, total) * 1000:.1f} ms a paste")
    for name, value, target, ok in checks:
        print(f"  {name:<40} {value:>18}   target {target:<14} {'PASS' if ok else 'FAIL'}")
    walls = [wall for _, wall, _ in run.imports]
    if walls:
        print(f"  import wall time p50 {percentile(walls, 50):.1f}s, max {max(walls):.1f}s")
    print(f"  clicks answered HTTP {sorted(set(run.clicks))}")
    for code, _, err in run.imports:
        if code != 0:
            print("  a failed import said: " + (err.strip().splitlines() or ["(nothing)"])[-1])
    for failure in load.failures[:3]:
        print(f"  a request failed: {failure}")
    for line in [line for line in run.log.splitlines() if LOCKED.search(line)][:3]:
        print(f"  the server said: {line[:300]}")
    return all(ok for _, _, _, ok in checks)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--seconds", type=float, default=60.0, help="how long to send pastes (default 60)"
    )
    parser.add_argument("--rate", type=float, default=50.0, help="pastes per second (default 50)")
    parser.add_argument(
        "--database",
        default=None,
        help="a PostgreSQL server URL to create the database on (default: a SQLite file)",
    )
    parser.add_argument(
        "--imports", type=int, default=10, help="one-record imports meanwhile (default 10)"
    )
    parser.add_argument(
        "--refresh-seconds",
        type=float,
        default=1.0,
        help="ERRKB_KB_REFRESH_SECONDS of the server (default 1)",
    )
    parser.add_argument(
        "--server-root",
        type=Path,
        default=ROOT,
        help="checkout whose errkb is measured (default: this one)",
    )
    parser.add_argument(
        "--vs",
        type=Path,
        default=None,
        help="another checkout to run in turn with this one, for a before/after comparison",
    )
    parser.add_argument(
        "--pairs", type=int, default=2, help="runs of each checkout with --vs (default 2)"
    )
    parser.add_argument(
        "--https",
        action="store_true",
        help="the Slack stand-in serves HTTPS, as Slack does (the server trusts its certificate)",
    )
    parser.add_argument(
        "--write", type=Path, default=None, help="also write everything printed to this file"
    )
    args = parser.parse_args()
    printed = io.StringIO()
    with contextlib.redirect_stdout(Tee(sys.stdout, printed)):
        if args.vs is None:
            ok, _ = run(args.server_root.resolve(), Setup.of(args))
        else:
            ok = compare(args.vs.resolve(), args.server_root.resolve(), args)
    if args.write is not None:
        args.write.write_text(printed.getvalue(), encoding="utf-8")
    raise SystemExit(0 if ok else 1)


class Tee(io.TextIOBase):
    """Writes to every stream it is given."""

    def __init__(self, *streams: Any) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def commit_of(root: Path) -> str:
    found = subprocess.run(
        ["git", "-C", str(root), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
        check=False,
    )
    line = found.stdout.strip() or "(not a git checkout)"
    return line if len(line) <= 90 else line[:87] + "..."


def compare(base: Path, after: Path, args: argparse.Namespace) -> bool:
    """``base`` and ``after`` in turn, ``args.pairs`` times each: server CPU per paste."""
    names = {"before": base, "after": after}
    print(f"before: {commit_of(base)}")
    print(f"after:  {commit_of(after)}")
    over = "HTTPS" if args.https else "HTTP"
    print(
        f"{args.pairs} runs of each, in turn, {args.seconds:g} s at {args.rate:g} pastes/s, "
        f"Slack over {over}"
    )
    figures: dict[str, list[float]] = {"before": [], "after": []}
    ok = True
    for turn in range(args.pairs):
        for name, root in names.items():
            print(f"\n== {name}, run {turn + 1}")
            passed, per_paste = run(root, Setup.of(args))
            figures[name].append(per_paste)
            ok = ok and (passed or name == "before")
    print("\nserver CPU per paste (ms), each run and the median:")
    for name, values in figures.items():
        runs = ", ".join(f"{v:.1f}" for v in values)
        print(f"  {name:<7} {runs}   median {statistics.median(values):.1f}")
    ratio = statistics.median(figures["after"]) / max(1e-9, statistics.median(figures["before"]))
    print(f"  after / before: {ratio:.2f}")
    return ok


if __name__ == "__main__":
    main()
