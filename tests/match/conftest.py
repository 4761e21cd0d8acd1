"""Fixtures for the matcher: small hand-made records and, when present, the deadends corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.match.extract import extract
from bot.match.index import MatchIndex
from bot.records import Record

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
DEADENDS = SHARED / "corpora" / "deadends" / "deadends-canons.jsonl.gz"
DEV_CASES = SHARED / "eval" / "dev.jsonl"


def make(id: str, signature: str, regex: str, domain: str, **extra: Any) -> Record:
    return Record.model_validate(
        {
            "id": id,
            "signature": signature,
            "regex": regex,
            "domain": domain,
            "confidence": 0.9,
            **extra,
        }
    )


SMALL = [
    make(
        "python/cuda-oom/torch2",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        r"CUDA out of memory|OutOfMemoryError.*CUDA",
        "cuda",
        signature_zh="torch.cuda.OutOfMemoryError：CUDA 显存不足",
    ),
    make("python/assertionerror/py3", "AssertionError", "AssertionError", "python"),
    make(
        "java/npe/jdk17",
        "java.lang.NullPointerException",
        r"java\.lang\.NullPointerException",
        "java",
    ),
    make(
        "go/nil-pointer/go1",
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "invalid memory address or nil pointer dereference",
        "go",
    ),
    make(
        "rust/e0425/rust1",
        "error[E0425]: cannot find value `x` in this scope",
        r"E0425|cannot find value",
        "rust",
    ),
    make(
        "node/eaddrinuse/node20",
        "Error: listen EADDRINUSE: address already in use :::3000",
        r"EADDRINUSE|address already in use",
        "node",
    ),
    make(
        "git/push-rejected/git2",
        "error: failed to push some refs to",
        "failed to push some refs",
        "git",
    ),
    make(
        "culture/version-joke/any",
        "AI quotes release 6.4 of a calendar",
        r"6\.4|calendar.*release",
        "culture",
    ),
    make(
        "kubernetes/crashloop/k8s1",
        "CrashLoopBackOff: Back-off restarting failed container",
        "CrashLoopBackOff|Back-off restarting failed container",
        "kubernetes",
    ),
]


@pytest.fixture(scope="session")
def small_index() -> MatchIndex:
    return MatchIndex.build(SMALL)


@pytest.fixture(scope="session")
def deadends_records() -> list[Record]:
    if not DEADENDS.exists():
        pytest.skip("../shared corpora not present")
    from bot.ingest import load_records

    return load_records([DEADENDS])


@pytest.fixture(scope="session")
def deadends_index(deadends_records: list[Record]) -> MatchIndex:
    return MatchIndex.build(deadends_records)


def regex_matches(index: MatchIndex, line: str) -> list[str]:
    """Ids of the records whose regex fired on ``line`` pasted alone: the hits
    :meth:`MatchIndex.triage` hands the ranker, before any is weighed."""
    hits = index._hits(extract(line))
    return sorted({index.parts[hit.record].id for hit in hits})
