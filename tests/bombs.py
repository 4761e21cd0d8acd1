"""Small files that unpack to huge imports, and a way to run the CLI on them under a memory cap.

Each bomb is a few hundred kilobytes on disk: tens of millions of ``{}`` lines
or zeros behind gzip, or YAML records that all name one big list by alias. The
fault tests and ``benchmarks/bench_faults.py`` both use them.
"""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30


def _gzip_repeat(path: Path, head: bytes, block: bytes, times: int, tail: bytes) -> None:
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(head)
        for _ in range(times):
            out.write(block)
        out.write(tail)


def jsonl_of_empty_objects(path: Path) -> None:
    """89 million ``{}`` lines (255 MiB unpacked, under the byte limit): ``bombs.jsonl.gz``."""
    _gzip_repeat(path, b"", b"{}\n" * 1_000_000, 89, b"")


def json_array_of_zeros(path: Path) -> None:
    """One JSON array of 127 million zeros (255 MiB unpacked)."""
    _gzip_repeat(path, b"[0", b",0" * 1_000_000, 127, b"]")


def yaml_aliases(path: Path) -> None:
    """3,000 records that each name, by alias, one list of 90,000 items."""
    items = ", ".join(["0"] * 90_000)
    lines = [f"- id: bomb/r0\n  signature: 'Error: 0'\n  domain: bomb\n  tags: &big [{items}]"]
    lines += [
        f"- id: bomb/r{n}\n  signature: 'Error: {n}'\n  domain: bomb\n  tags: *big"
        for n in range(1, 3_000)
    ]
    path.write_text("\n".join(lines) + "\n")


#: file name → writer
BOMBS: dict[str, Callable[[Path], None]] = {
    "zeros.json.gz": json_array_of_zeros,
    "empty.jsonl.gz": jsonl_of_empty_objects,
    "aliases.yaml": yaml_aliases,
}


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float
    peak_bytes: int  # the process's peak resident memory
    timed_out: bool


def run_capped(
    argv: list[str], env: dict[str, str], *, memory: int = GIB, timeout: float = 60.0
) -> Run:
    """``python -m bot ARGV`` in a process whose address space is capped at ``memory``; killed
    after ``timeout`` seconds."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", *argv], stdout=out, stderr=err, env=env, preexec_fn=cap
        )
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            process.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return Run(
            process.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            seconds,
            usage.ru_maxrss * 1024,
            killed.is_set(),
        )
