"""Ranking on small hand-made records: which line, which literal, which ecosystem."""

from __future__ import annotations

import pytest

from bot.match.index import IndexBuildFailed, MatchIndex
from bot.match.patterns import prefilter_keys, risky_regex, split_alternatives

from .conftest import SMALL, make


def test_final_exception_line_answers_with_high_band(small_index: MatchIndex) -> None:
    paste = (
        'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    loss.backward()\n'
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    )
    result = small_index.triage(paste)
    assert result.answered
    assert result.best is not None and result.best.record_id == "python/cuda-oom/torch2"
    assert result.best.band in ("high", "medium")
    assert result.best.line.startswith("torch.cuda.OutOfMemoryError")
    assert result.best.error_index == 0


def test_weak_short_literal_hit_is_declined(small_index: MatchIndex) -> None:
    result = small_index.triage("Installed package foo 6.4 successfully, all good")
    assert not result.answered


def test_nothing_known(small_index: MatchIndex) -> None:
    result = small_index.triage("the weather is lovely today")
    assert not result.answered and result.best is None or result.best.band == "low"


def test_other_language_record_loses_to_paste_ecosystem() -> None:
    index = MatchIndex.build([
        make("java/addr-in-use/jdk", "java.net.BindException: Address already in use", "Address already in use", "java"),
        make("python/addr-in-use/py3", "OSError: [Errno 98] Address already in use", "Address already in use", "python"),
    ])  # fmt: skip
    paste = 'Traceback (most recent call last):\n  File "srv.py", line 9, in <module>\nOSError: [Errno 98] Address already in use'
    assert index.triage(paste).best.record_id == "python/addr-in-use/py3"


def test_several_errors_get_their_own_matches(small_index: MatchIndex) -> None:
    paste = "error: failed to push some refs to 'origin'\nError: listen EADDRINUSE: address already in use :::3000"
    result = small_index.triage(paste)
    answered = {m.record_id for m in result.primary()}
    assert {"git/push-rejected/git2", "node/eaddrinuse/node20"} <= answered
    assert len({m.error_index for m in result.primary()}) == 2


def test_translations_are_searched(small_index: MatchIndex) -> None:
    assert small_index.search("显存不足")[0][0] == "python/cuda-oom/torch2"


def test_ties_break_deterministically(small_index: MatchIndex) -> None:
    paste = "CrashLoopBackOff: Back-off restarting failed container"
    first = [m.record_id for m in small_index.triage(paste).matches]
    assert first == [
        m.record_id for m in MatchIndex.build(list(reversed(SMALL))).triage(paste).matches
    ]


def test_record_lookup(small_index: MatchIndex) -> None:
    assert small_index.record("java/npe/jdk17") is not None
    assert small_index.record("nope") is None


def test_regexes_re2_refuses_fall_back_to_python_re() -> None:
    index = MatchIndex.build([make("x/lookahead/a", "Error: foo bar", r"foo(?=\sbar)", "x")])
    assert index.fallback_ids == ["x/lookahead/a"]
    assert index.regex_hits("Error: foo bar") == [0]


def test_risky_regexes_are_flagged() -> None:
    assert risky_regex("(a+)+b") is not None
    assert risky_regex("dataloader.*batch.*not.*firing") is not None
    assert risky_regex(r"foo(?=bar)") is not None
    assert risky_regex("CUDA out of memory|OutOfMemoryError.*CUDA") is None


def test_prefilter_keys_are_required_literals() -> None:
    assert split_alternatives("(?i)(?:cache miss|no cache.*found)") == [
        "cache miss",
        "no cache.*found",
    ]
    assert prefilter_keys("OSError.*Address already in use") == ["address already in use"]
    assert prefilter_keys("(uk|britain).{0,40}(call 999)") == ["call 999"]
    assert prefilter_keys("(uk|britain).{0,40}") == ["britain", "uk"]


def test_a_set_that_fails_to_compile_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.match.index as index_module

    monkeypatch.setattr(index_module, "SET_MAX_MEM", 1 << 10)
    with pytest.raises(IndexBuildFailed):
        MatchIndex.build(SMALL)
