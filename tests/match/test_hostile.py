"""Hostile input: huge, binary, many lines, regex bombs. Every triage stays fast."""

from __future__ import annotations

import time

import pytest

from bot.match.index import MatchIndex
from bot.records import Record

#: A catastrophic pattern costs seconds to hours; a linear match of these pastes a small
#: fraction of this (the figures: benchmarks/bench_faults.py).
LIMIT_S = 1.0


def timed(index: MatchIndex, text: str) -> float:
    """The CPU the matching thread spent: other processes on the machine do not count."""
    start = time.thread_time()
    index.triage(text)
    return time.thread_time() - start


HOSTILE = {
    "5 MB": "x" * 5_000_000,
    "5 MB of lines": ("INFO step 1 ok " * 8 + "\n") * 40_000,
    "binary": bytes(range(256)).decode("latin-1") * 20_000,
    "100k lines": "Traceback (most recent call last):\n"
    + 'File "a.py", line 1\n' * 100_000
    + "ValueError: x",
    "one long json line": '{"error": "' + "us er cost " * 400_000 + '"}',
    "entities and ansi": "&lt;&amp;" * 200_000 + "\x1b[31m" * 50_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_paste_is_fast_and_silent(
    small_index: MatchIndex, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert timed(small_index, HOSTILE[name]) < LIMIT_S
    assert capsys.readouterr() == ("", "")


def _bombs(records: list[Record]) -> list[str]:
    """Lines made of each regex's literal words with long gaps: worst case for backtracking."""
    from bot.match.patterns import analyse, split_alternatives

    words = []
    for record in records:
        for branch in split_alternatives(record.regex)[:1]:
            words.extend(analyse(branch).literal.split()[:-1])
    chunk = " ".join(words)
    return [(chunk + " ") * (10_000 // max(len(chunk), 1) + 1), (" a" * 5000) + chunk[:2000]]


def every_known_error(records: list[Record]) -> list[str]:
    """Pastes that hit thousands of records at once: every signature as a log line,
    every root cause, and forty signatures to a line."""
    signatures = [r.signature for r in records]
    return [
        "\n".join("ERROR " + s for s in signatures),
        "\n".join("ERROR " + r.root_cause for r in records),
        "\n".join(
            ("ERROR " + " ".join(signatures[i : i + 40]))[:1500]
            for i in range(0, len(signatures), 40)
        ),
    ]


@pytest.mark.shared
def test_regex_bombs_against_every_deadends_regex(
    deadends_index: MatchIndex, deadends_records: list[Record], capsys: pytest.CaptureFixture[str]
) -> None:
    texts = _bombs(deadends_records)
    texts += [("dataloader " * 50 + "batch " * 50 + "not " * 50) * 20, "us er cost " * 4000]
    texts += every_known_error(deadends_records)
    for text in texts + list(HOSTILE.values()):
        assert timed(deadends_index, text) < LIMIT_S
    assert capsys.readouterr() == ("", "")
