"""A big ``errkb import`` (a real process) beside a live ``errkb serve``: signed pastes at a
steady rate for as long as the import runs, each acknowledgement timed. The fault tests and
``benchmarks/bench_faults.py`` both run it."""

from __future__ import annotations

import json
import random
import subprocess
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.synthetic_kb import synthetic_record
from tests.ops.conftest import errkb_command
from tests.ops.delivery import paste_event
from tests.slack.conftest import SECRET, sign


@dataclass
class BesideImport:
    import_code: int
    import_seconds: float
    import_output: str  # standard output
    import_errors: str  # standard error
    acks: list[tuple[int, float]] = field(
        default_factory=list
    )  # (status, seconds) of paste n at n - 1

    @property
    def slowest(self) -> float:
        return max((seconds for _, seconds in self.acks), default=float("nan"))

    @property
    def refused(self) -> int:
        return sum(status != 200 for status, _ in self.acks)


def write_records(path: Path, count: int, *, seed: int = 7) -> None:
    rng = random.Random(seed)
    with path.open("w") as out:
        for number in range(count):
            out.write(json.dumps(synthetic_record(rng, number)) + "\n")


def deliver(url: str, n: int, secret: str = SECRET, retry: int = 0) -> tuple[int, float]:
    """Paste number ``n`` (delivery ``retry`` of it, as Slack numbers them): (status, seconds)."""
    ts = f"1700000000.{n:06d}"
    body = json.dumps(
        {
            "token": "legacy",
            "team_id": "T1",
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": f"EvBIG{n:07d}",
            "event_time": int(time.time()),
            "event": paste_event(ts, n=n),
        }
    ).encode()
    now = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": str(now),
        "X-Slack-Signature": sign(body, now, secret),
    }
    if retry:
        headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_error"}
    request = urllib.request.Request(url + "/slack/events", body, headers, method="POST")
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status, time.monotonic() - started
    except urllib.error.HTTPError as exc:
        return exc.code, time.monotonic() - started
    except OSError:
        return 0, time.monotonic() - started


def import_beside_pastes(
    url: str,
    env: dict[str, str],
    path: Path,
    *,
    rate: float = 20.0,
    secret: str = SECRET,
    timeout: float = 900.0,
) -> BesideImport:
    """Run ``errkb import PATH`` while pasting to the server at ``url`` ``rate`` times a second."""
    started = time.monotonic()
    process = subprocess.Popen(
        errkb_command("import", str(path), "--json"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    output: list[tuple[str, str]] = []
    reader = threading.Thread(target=lambda: output.append(process.communicate()), daemon=True)
    reader.start()
    futures: list[Future[tuple[int, float]]] = []
    with ThreadPoolExecutor(64) as pool:
        n = 0
        while process.poll() is None and time.monotonic() - started < timeout:
            n += 1
            futures.append(pool.submit(deliver, url, n, secret))
            time.sleep(max(0.0, started + n / rate - time.monotonic()))
        if process.poll() is None:
            process.kill()
    reader.join(timeout=30)
    code = process.wait()
    out, err = output[0] if output else ("", "")
    return BesideImport(code, time.monotonic() - started, out, err, [f.result() for f in futures])
