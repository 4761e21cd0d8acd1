"""Long pastes on every surface: is the error found, at its own line, and how long it takes.

Logs of each size (default 10 KB, 230 KB and 5 MB) hold the vLLM example's
traceback at their start, their middle or their end, in steady INFO noise.
Each is given, as a user would, to:

- **Slack**: a signed ``file_share`` event (the log as a snippet) to ``errkb serve
  --http`` against the Slack stand-in (``tests/slack/fake_slack/``); timed
  from the request to the answer's ``chat.postMessage``; found when the answer
  names the record;
- **/errkb**: a signed slash command with the log as its text, timed to the
  ``response_url`` post (a paste not answered is waited for 30 s, and counts
  as missed; Slack refuses request bodies over 1 MiB, so the 5 MB
  log has no /errkb row);
- **MCP**: ``triage`` over stdio with the MCP SDK's client;
- **CLI**: ``errkb triage FILE --json``, a process per paste (its start included).

MCP and the CLI report line numbers: a paste counts as found only when the
answer is the record *and* its error is reported at the log's own line.
``--baseline DIR`` runs the same against another checkout (today's ``main`` from
``git worktree add``) and prints both side by side.

    python benchmarks/bench_longpaste.py --baseline ../errkb-main
    python benchmarks/bench_longpaste.py --sizes 10000 --where end   (the smoke test)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from benchmarks.harness import errkb, served
from bot.starter import starter_dir
from tests.slack.conftest import sign
from tests.slack.fake_slack import FakeSlack

RECORD = "llm/vllm-no-available-memory-for-cache-blocks"
ERROR_LINE = "ValueError: No available memory for the cache blocks"
NOISE = (
    "2026-12-01 10:31:07,{ms:03d} INFO [worker-{w}] step {n} ok, loss 0.31, throughput 5012 tok/s"
)
SECRET = "bench-secret"
TOKEN = "xoxb-bench-token"
USER = "UBENCH"
CHANNEL = "CBENCH"
WHERE = ("start", "middle", "end")
BODY_LIMIT = 1 << 20  # Slack's (and errkb's gate's) largest request body


@dataclass(frozen=True)
class Log:
    size: int
    where: str
    text: str
    line: int  # the line of ERROR_LINE in the log


def make_log(size: int, where: str) -> Log:
    error = (
        (starter_dir() / "examples" / "vllm-oom.txt")
        .read_text(encoding="utf-8")
        .strip("\n")
        .split("\n")
    )
    noise: list[str] = []
    total = sum(map(len, error))
    while total < size:
        noise.append(NOISE.format(ms=len(noise) % 1000, w=len(noise) % 8, n=len(noise)))
        total += len(noise[-1]) + 1
    at = {"start": 0, "middle": len(noise) // 2, "end": len(noise)}[where]
    lines = noise[:at] + error + noise[at:]
    line = at + 1 + next(i for i, text in enumerate(error) if text.startswith(ERROR_LINE))
    return Log(size, where, "\n".join(lines) + "\n", line)


def found_in(report: dict[str, Any], log: Log) -> bool:
    best = report.get("best") or {}
    return best.get("id") == RECORD and log.line in [e["line_no"] for e in report.get("errors", [])]


# -- the surfaces --------------------------------------------------------------------


def cli(root: Path, env: dict[str, str], log: Log, folder: Path) -> tuple[bool, float]:
    path = folder / f"log-{log.size}-{log.where}.txt"
    path.write_text(log.text, encoding="utf-8")
    started = time.perf_counter()
    done = errkb(root, "triage", str(path), "--json", env=env)
    took = time.perf_counter() - started
    return done.returncode == 0 and found_in(json.loads(done.stdout), log), took


async def _mcp(root: Path, env: dict[str, str], logs: list[Log]) -> list[tuple[bool, float]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bot", "mcp"],
        env={**env, "PYTHONPATH": str(root)},
        cwd=str(root),
    )
    out = []
    with open(os.devnull, "w") as quiet:
        async with Client(stdio_client(params, errlog=quiet), mode="legacy") as client:
            await client.call_tool("triage", {"paste": "warm-up: ValueError: x"})
            for log in logs:
                started = time.perf_counter()
                result = await client.call_tool("triage", {"paste": log.text})
                took = time.perf_counter() - started
                out.append(
                    (not result.is_error and found_in(result.structured_content or {}, log), took)
                )
    return out


def mcp(root: Path, env: dict[str, str], logs: list[Log]) -> list[tuple[bool, float]]:
    return anyio.run(_mcp, root, env, logs)


class Slack:
    """Signed requests to a served errkb, and what it sent the stand-in."""

    def __init__(self, base: str, fake: FakeSlack) -> None:
        self.base = base
        self.fake = fake
        self.n = 0

    def post(self, body: bytes, content_type: str) -> int:
        ts = int(time.time())
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(ts),
            "X-Slack-Signature": sign(body, ts, SECRET),
        }
        request = urllib.request.Request(self.base + "/slack/events", body, headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return exc.code

    def wait(self, method: str, seen: int, timeout: float = 30) -> list[Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            calls = self.fake.of(method)
            if len(calls) > seen:
                return calls[seen:]
            time.sleep(0.005)
        return []

    def snippet(self, log: Log) -> tuple[bool, float]:
        self.n += 1
        name = f"train-{self.n}.log"
        self.fake.files[name] = log.text
        ts = f"1800000000.{self.n:06d}"
        event = {
            "type": "message",
            "subtype": "file_share",
            "channel": CHANNEL,
            "user": USER,
            "text": "",
            "ts": ts,
            "client_msg_id": f"lp{self.n}",
            "channel_type": "channel",
            "files": [
                {
                    "id": f"F{self.n}",
                    "name": name,
                    "mimetype": "text/plain",
                    "filetype": "text",
                    "size": len(log.text),
                    "url_private_download": f"{self.fake.url}/files/{name}",
                }
            ],
        }
        body = {
            "type": "event_callback",
            "event_id": f"EvLP{self.n:06d}",
            "team_id": "T1",
            "api_app_id": "A1",
            "event": event,
        }
        seen = len(self.fake.of("chat.postMessage"))
        started = time.perf_counter()
        status = self.post(json.dumps(body).encode(), "application/json")
        posts = self.wait("chat.postMessage", seen) if status == 200 else []
        took = time.perf_counter() - started
        return bool(posts) and RECORD in json.dumps(posts[0].params.get("blocks")), took

    def command(self, log: Log) -> tuple[bool, float] | None:
        self.n += 1
        form = {
            "token": "legacy",
            "team_id": "T1",
            "channel_id": CHANNEL,
            "channel_name": "errors",
            "user_id": USER,
            "user_name": "bench",
            "command": "/errkb",
            "text": log.text,
            "api_app_id": "A1",
            "response_url": self.fake.response_url(f"lp{self.n}"),
            "trigger_id": f"trig{self.n}",
        }
        body = urlencode(form).encode()
        if len(body) > BODY_LIMIT:
            return None
        seen = len(self.fake.of("response_url"))
        started = time.perf_counter()
        status = self.post(body, "application/x-www-form-urlencoded")
        calls = self.wait("response_url", seen) if status == 200 else []
        took = time.perf_counter() - started
        return bool(calls) and RECORD in json.dumps(calls[0].params.get("blocks")), took


@contextmanager
def slack(root: Path, env: dict[str, str], folder: Path) -> Iterator[Slack]:
    fake = FakeSlack(users={USER: {"locale": "en-US"}}).start()
    try:
        with served(root, {**env, "SLACK_API_URL": fake.api_url}, folder / "serve.log") as (
            base,
            _,
        ):
            yield Slack(base, fake)
    finally:
        fake.stop()


# -- one checkout ----------------------------------------------------------------------

Row = dict[str, tuple[bool, float] | None]


def best_of(run: Callable[[], tuple[bool, float] | None], runs: int) -> tuple[bool, float] | None:
    """Found every time, and the median time; a miss is not tried again (a paste errkb
    does not answer unasked waits out the whole timeout)."""
    results = []
    for _ in range(runs):
        result = run()
        if result is None or not result[0]:
            return result
        results.append(result[1])
    return True, sorted(results)[len(results) // 2]


def measure(root: Path, logs: list[Log], runs: int) -> dict[tuple[int, str], Row]:
    rows: dict[tuple[int, str], Row] = {(log.size, log.where): {} for log in logs}
    with tempfile.TemporaryDirectory(prefix="errkb-bench-longpaste-") as tmp:
        folder = Path(tmp)
        env = {
            **os.environ,
            "HOME": str(folder),
            "ERRKB_DATABASE_URL": f"sqlite:///{folder / 'kb.sqlite'}",
            "SLACK_BOT_TOKEN": TOKEN,
            "SLACK_SIGNING_SECRET": SECRET,
            "ERRKB_LOG_LEVEL": "WARNING",
            "ERRKB_CACHE_DIR": str(folder / "cache"),
        }
        done = errkb(root, "init", env=env)
        if done.returncode != 0:
            raise SystemExit(f"errkb init failed in {root}:\n{done.stderr}")
        for log in logs:
            rows[(log.size, log.where)]["CLI"] = cli(root, env, log, folder)
        timed = mcp(root, env, [log for log in logs for _ in range(runs)])
        for i, log in enumerate(logs):
            found = timed[i * runs : (i + 1) * runs]
            rows[(log.size, log.where)]["MCP"] = (
                all(ok for ok, _ in found),
                sorted(t for _, t in found)[runs // 2],
            )
        with slack(root, env, folder) as bot:
            bot.snippet(logs[0])  # the first answer also loads what answering needs
            for log in logs:
                key = (log.size, log.where)
                rows[key]["Slack snippet"] = best_of(lambda: bot.snippet(log), runs)  # noqa: B023
                rows[key]["/errkb"] = best_of(lambda: bot.command(log), runs)  # noqa: B023
    return rows


def cell(result: tuple[bool, float] | None) -> str:
    if result is None:
        return "n/a"
    ok, took = result
    return f"{'found' if ok else 'MISSED'} {took * 1000:8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default="10000,230000,5000000", help="log sizes in characters, comma separated"
    )
    parser.add_argument(
        "--where", default=",".join(WHERE), help="where the error is: start, middle, end"
    )
    parser.add_argument("--baseline", type=Path, help="another checkout to measure the same way")
    parser.add_argument(
        "--runs", type=int, default=3, help="Slack, /errkb and MCP runs per paste (median)"
    )
    args = parser.parse_args()
    logs = [
        make_log(int(size), where)
        for size in args.sizes.split(",")
        for where in args.where.split(",")
    ]
    trees = [("this checkout", ROOT)] + (
        [("baseline", args.baseline.resolve())] if args.baseline else []
    )
    results = {name: measure(root, logs, args.runs) for name, root in trees}
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    print(
        f"# long pastes through every surface; this checkout {commit.stdout.strip() or '?'}"
        + (f", baseline {args.baseline.name}" if args.baseline else "")
    )
    print(
        "# found: the answer is the record (and, for MCP "
        "and the CLI, at the log's own line) in every run;"
    )
    print(
        f"# time per paste: the median of {args.runs} for "
        "Slack, /errkb and MCP, one process run for the CLI"
    )
    surfaces = ("Slack snippet", "/errkb", "MCP", "CLI")
    missed = 0
    for log in logs:
        print(
            f"\n{log.size:>9,} chars, error at the {log.where} (line {log.line:,} of "
            f"{log.text.count(chr(10)):,})"
        )
        for surface in surfaces:
            cells = [cell(results[name][(log.size, log.where)].get(surface)) for name, _ in trees]
            missed += "MISSED" in cells[0]
            print(
                f"  {surface:14s} "
                + "   ".join(f"{name}: {c}" for (name, _), c in zip(trees, cells, strict=True))
            )
    print(f"\n{'every paste found' if not missed else f'{missed} missed'} by this checkout")
    raise SystemExit(1 if missed else 0)


if __name__ == "__main__":
    main()
