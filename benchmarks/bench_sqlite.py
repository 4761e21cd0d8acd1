"""SQLite as the embedded default: the bot serving while the command line imports.

Creates a SQLite file with the real ``errkb init`` and ``errkb import`` of the
deadends corpus (``../shared/corpora/deadends/deadends-canons.jsonl.gz``
beside the checkout; without it this says so and stops), starts the real
``errkb serve --http`` against the loopback Slack stand-in
(``tests/slack/fake_slack.py``), and for ``--seconds`` sends signed pastes at
``--rate`` per second: a mix of tracebacks and log excerpts of known errors,
errors nobody recorded, and chit-chat, each distinct. Meanwhile it runs a
one-record ``errkb import`` ten times. Then it clicks "This fixed it",
"Still valid" and "Snooze" a few times each, and reads how many index or
graph rebuilds that caused from ``/metrics`` (when the server counts them).

Prints each figure beside its target; exits 1 when one is missed.

    python benchmarks/bench_sqlite.py --seconds 60
    python benchmarks/bench_sqlite.py --seconds 60 --imports 0   # the same load without imports
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_slack import free_port, percentile
from bot.render.ids import ActionId, BlockId
from bot.render.state import DigestItemState
from tests.slack.conftest import sign
from tests.slack.fake_slack import FakeSlack

CORPUS = ROOT.parent / "shared" / "corpora" / "deadends" / "deadends-canons.jsonl.gz"
SECRET, TOKEN = "bench-secret", "xoxb-bench-token"
USER, MAINTAINER, CHANNEL = "UBENCH", "UMAINT", "CBENCH"
CLICKS = 5  # of each kind: vote, confirm, snooze
LOCKED = re.compile(r"database is locked", re.IGNORECASE)
MIX = (("traceback", 0.40), ("log", 0.25), ("unknown", 0.15), ("chat", 0.20))


def errkb(*args: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, check=False)  # fmt: skip


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
        f'  File "/srv/{rng.choice(FRAMES)}", line {rng.randint(10, 900)}, in step_{rng.randint(1, 99)}\n'
        f"    result = run_{rng.randint(1, 50)}(batch)\n"
        for _ in range(rng.randint(2, 6))
    )  # fmt: skip
    return f"Traceback (most recent call last):\n{frames}{signature}"


def _log(rng: random.Random, signature: str) -> str:
    lines = [f"2026-12-01 10:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d},{rng.randint(0, 999):03d} "
             f"INFO [worker-{rng.randint(1, 16)}] step {rng.randint(1, 10_000)} done in {rng.random():.3f}s"
             for _ in range(rng.randint(2, 8))]  # fmt: skip
    lines.insert(rng.randint(1, len(lines)), f"2026-12-01 10:31:07,{rng.randint(0, 999):03d} ERROR [main] {signature}")
    return "\n".join(lines)


def make_paste(rng: random.Random, kind: str, signatures: list[str], n: int) -> str:
    if kind == "traceback":
        return _traceback(rng, rng.choice(signatures))
    if kind == "log":
        return _log(rng, rng.choice(signatures).splitlines()[0])
    if kind == "unknown":
        name = rng.choice(UNKNOWN)
        return _traceback(rng, f"{name}{rng.choice(UNKNOWN)}Error: {name.lower()} {n} refused the handshake "
                               f"after {rng.randint(2, 90)} retries")  # fmt: skip
    return f"{rng.choice(CHAT)} ({n})" if rng.random() < 0.5 else rng.choice(CHAT)


# -- Slack side ----------------------------------------------------------------------


@dataclass
class Load:
    base: str
    fake: FakeSlack
    sent: dict[str, tuple[float, str]] = field(default_factory=dict)  # ts → (sent at, kind)
    acks: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def post(self, body: bytes, content_type: str) -> tuple[int, float]:
        ts = int(time.time())
        headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": str(ts),
                   "X-Slack-Signature": sign(body, ts, SECRET)}  # fmt: skip
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
        event = {"type": "message", "channel": CHANNEL, "user": USER, "ts": ts, "client_msg_id": f"b{n}",
                 "text": text, "channel_type": "channel"}  # fmt: skip
        body = json.dumps({"type": "event_callback", "event_id": f"EvS{n:08d}", "team_id": "T1",
                           "api_app_id": "A1", "event": event}).encode()  # fmt: skip
        with self.lock:
            self.sent[ts] = (time.monotonic(), kind)
        try:
            status, seconds = self.post(body, "application/json")
        except OSError as exc:
            with self.lock:
                self.failures.append(f"paste {n}: {exc}")
            return
        with self.lock:
            self.acks.append(seconds)
            if status != 200:
                self.failures.append(f"paste {n}: HTTP {status}")

    def click(self, action: str, value: str, user: str, block_id: str = "b") -> int:
        payload = {"type": "block_actions", "team": {"id": "T1"}, "user": {"id": user, "team_id": "T1"},
                   "api_app_id": "A1", "trigger_id": "trig", "channel": {"id": CHANNEL},
                   "container": {"type": "message", "message_ts": "1800000001.000001", "channel_id": CHANNEL},
                   "message": {"ts": "1800000001.000001", "blocks": []},
                   "response_url": self.fake.response_url("bench"),
                   "actions": [{"type": "button", "action_id": action, "block_id": block_id, "value": value,
                                "action_ts": str(time.time())}]}  # fmt: skip
        return self.post(urlencode({"payload": json.dumps(payload)}).encode(),
                         "application/x-www-form-urlencoded")[0]  # fmt: skip


def rebuilds(base: str) -> float | None:
    """The sum of every ``/metrics`` sample whose name speaks of rebuilds; None when there is none."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as response:
        text = response.read().decode()
    found = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
             if line and not line.startswith("#") and "rebuild" in line.split("{")[0].split(" ")[0]]  # fmt: skip
    return sum(found) if found else None


# -- the run ---------------------------------------------------------------------------


def prepare(folder: Path, env: dict[str, str]) -> tuple[list[dict[str, Any]], float]:
    started = time.monotonic()
    for args in (("init", "--no-starter"), ("import", str(CORPUS), "--json")):
        done = errkb(*args, env=env)
        if done.returncode != 0:
            raise SystemExit(f"errkb {' '.join(args)} failed:\n{done.stderr}")
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        canons = [json.loads(line) for line in lines]
    return canons, time.monotonic() - started


def run_imports(folder: Path, env: dict[str, str], canons: list[dict[str, Any]], start: float, seconds: float,
                count: int, results: list[tuple[int, float, str]]) -> None:  # fmt: skip
    for i in range(count):
        delay = start + (i + 0.5) * seconds / count - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        canon = json.loads(json.dumps(canons[i * 97 % len(canons)]))
        canon["verdict"]["summary"] = f"{canon['verdict']['summary']} (edited by the benchmark, {i + 1})"
        path = folder / f"one-{i}.json"
        path.write_text(json.dumps(canon), encoding="utf-8")
        began = time.monotonic()
        done = errkb("import", str(path), "--json", env=env, timeout=300)
        results.append((done.returncode, time.monotonic() - began, done.stderr))


def wait_healthy(base: str, server: subprocess.Popen[bytes], limit: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if server.poll() is not None:
            raise SystemExit(f"errkb serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
                if json.loads(r.read())["ok"]:
                    return time.monotonic() - started
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    raise SystemExit(f"errkb serve did not become healthy within {limit:g}s")


def click_evidence(load: Load, canons: list[dict[str, Any]]) -> list[int]:
    """Votes on answers the bot gave, then maintainers' "Still valid" and "Snooze"."""
    statuses = []
    votes = [e["value"] for call in load.fake.of("chat.postMessage") for b in (call.params.get("blocks") or [])
             if b.get("type") == "actions" for e in b["elements"] if e.get("action_id") == ActionId.VOTE_FIXED]  # fmt: skip
    for value in votes[:CLICKS]:
        statuses.append(load.click(ActionId.VOTE_FIXED, value, USER))
    for action in (ActionId.DIGEST_CONFIRM, ActionId.DIGEST_SNOOZE):
        for canon in canons[:CLICKS]:
            rid, domain = canon["id"], canon["error"]["domain"]
            value = DigestItemState(record=rid, domain=domain).dump()
            statuses.append(load.click(action, value, MAINTAINER, f"{BlockId.DIGEST_ITEM}:{rid}"))
    return statuses


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(seconds: float, rate: float, count: int, refresh: float) -> bool:
    if not CORPUS.exists():
        print(f"the deadends corpus is not at {CORPUS}: this benchmark imports it; nothing measured")
        raise SystemExit(2)
    folder = Path(tempfile.mkdtemp(prefix="errkb-bench-sqlite-"))
    fake = FakeSlack(users={USER: {"locale": "en-US"}, MAINTAINER: {"locale": "en-US"}}).start()
    env = {**os.environ, "HOME": str(folder), "ERRKB_DATABASE_URL": f"sqlite:///{folder}/errkb.sqlite3",
           "SLACK_API_URL": fake.api_url, "SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": SECRET,
           "ERRKB_MAINTAINERS": MAINTAINER, "ERRKB_KB_REFRESH_SECONDS": str(refresh), "ERRKB_LOG_LEVEL": "WARNING"}  # fmt: skip
    canons, prepared = prepare(folder, env)
    port = free_port()
    log_path = folder / "serve.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "bot", "serve", "--http", "--host", "127.0.0.1",
                                   "--port", str(port)], env=env, cwd=ROOT, stdout=log, stderr=log)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    load = Load(base, fake)
    imports: list[tuple[int, float, str]] = []
    try:
        healthy = wait_healthy(base, server, 600)
        before_load = rebuilds(base)
        rng = random.Random(20261201)
        signatures = [c["error"]["signature"] for c in canons]
        kinds = rng.choices([k for k, _ in MIX], weights=[w for _, w in MIX], k=int(seconds * rate))
        pastes = [(n, kind, make_paste(rng, kind, signatures, n)) for n, kind in enumerate(kinds)]
        start, cpu_before = time.monotonic(), cpu_seconds(server.pid)
        importer = threading.Thread(target=run_imports, args=(folder, env, canons, start, seconds, count, imports))
        importer.start()
        with ThreadPoolExecutor(64) as pool:
            for n, kind, text in pastes:
                delay = start + n / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                pool.submit(load.paste, n, kind, text)
        importer.join(600)
        time.sleep(3.0)  # answers still in flight
        cpu = cpu_seconds(server.pid) - cpu_before
        busy = time.monotonic() - start
        after_load = rebuilds(base)
        clicks = click_evidence(load, canons)
        time.sleep(min(max(4.0, 3 * refresh), 30.0))  # several knowledge polls (when they come that often)
        after_clicks = rebuilds(base)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        fake.stop()
    return report(load, pastes, imports, clicks, (before_load, after_load, after_clicks), log_path,
                  {"seconds": seconds, "rate": rate, "records": len(canons), "prepared": prepared,
                   "healthy": healthy, "imports": count, "cpu": cpu, "busy": busy})  # fmt: skip


def report(load: Load, pastes: list[tuple[int, str, str]], imports: list[tuple[int, float, str]],
           clicks: list[int], counts: tuple[float | None, ...], log_path: Path, run: dict[str, Any]) -> bool:  # fmt: skip
    answers: dict[str, list[float]] = {}
    for call in load.fake.of("chat.postMessage"):
        answers.setdefault(str(call.params.get("thread_ts")), []).append(call.at)
    latencies = [min(at) - load.sent[ts][0] for ts, at in answers.items() if ts in load.sent]
    by_kind = {kind: sum(1 for _, k, _ in pastes if k == kind) for kind, _ in MIX}
    answered = {kind: sum(1 for ts, (_, k) in load.sent.items() if k == kind and ts in answers) for kind, _ in MIX}
    doubled = sum(1 for ts, at in answers.items() if len(at) > 1)
    log_text = log_path.read_text(encoding="utf-8", errors="replace")
    locked = len(LOCKED.findall(log_text)) + sum(len(LOCKED.findall(err)) for _, _, err in imports)
    succeeded, count = sum(1 for code, _, _ in imports if code == 0), run["imports"]
    ack99, answer99 = percentile(load.acks, 0.99), percentile(latencies, 0.99)
    checks = [
        ("one-record imports succeeded", f"{succeeded} of {count}", f"{count} of {count}", succeeded == count),
        ('"database is locked" lines', f"{locked}", "0", locked == 0),
        ("paste-to-answer p50 / p99", f"{percentile(latencies, 0.5) * 1000:.0f} / {answer99 * 1000:.0f} ms",
         "p99 < 500 ms", answer99 < 0.5),
        ("ack p50 / p99", f"{percentile(load.acks, 0.5) * 1000:.0f} / {ack99 * 1000:.0f} ms", "p99 < 100 ms",
         ack99 < 0.1),
        ("pastes answered twice", f"{doubled}", "0", doubled == 0),
        ("request failures", f"{len(load.failures)}", "0", not load.failures),
    ]  # fmt: skip
    before, after_load, after_clicks = counts
    if after_clicks is not None and after_load is not None:
        caused = after_clicks - after_load
        checks.append((f"rebuilds from {len(clicks)} votes/confirms/snoozes", f"{caused:g}", "0", caused == 0))
    print(f"SQLite, {run['records']} records (deadends corpus): {len(pastes)} pastes in {run['seconds']:g}s at "
          f"{run['rate']:g}/s; {count} one-record imports meanwhile")  # fmt: skip
    print("  mix: " + ", ".join(f"{k} {by_kind[k]} (answered {answered[k]})" for k, _ in MIX))
    print(f"  init + corpus import {run['prepared']:.1f}s; serve healthy after {run['healthy']:.1f}s; "
          f"the server used {run['cpu']:.1f} CPU-s in the {run['busy']:.0f}s of load")  # fmt: skip
    for name, value, target, ok in checks:
        print(f"  {name:<40} {value:>18}   target {target:<14} {'PASS' if ok else 'FAIL'}")
    walls = [wall for _, wall, _ in imports]
    print(f"  import wall time p50 {percentile(walls, 0.5):.1f}s, max {max(walls, default=float('nan')):.1f}s")
    if after_clicks is None:
        print("  index/graph rebuilds: not counted by this server's /metrics")
    elif before is not None and after_load is not None:
        print(f"  index/graph rebuilds during the load (the imports): {after_load - before:g}")
    print(f"  clicks answered HTTP {sorted(set(clicks))}; server log: {log_path}")
    for code, _, err in imports:
        if code != 0:
            print("  a failed import said: " + (err.strip().splitlines() or ["(nothing)"])[-1])
    return all(ok for _, _, _, ok in checks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to send pastes (default 60)")
    parser.add_argument("--rate", type=float, default=50.0, help="pastes per second (default 50)")
    parser.add_argument("--imports", type=int, default=10, help="one-record imports meanwhile (default 10)")
    parser.add_argument("--refresh-seconds", type=float, default=1.0,
                        help="ERRKB_KB_REFRESH_SECONDS of the server (default 1)")  # fmt: skip
    args = parser.parse_args()
    raise SystemExit(0 if run(args.seconds, args.rate, args.imports, args.refresh_seconds) else 1)


if __name__ == "__main__":
    main()
