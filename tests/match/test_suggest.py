"""Suggestions for a record made from a paste: the regex always compiles under errkb's RE2
options and matches its line, generalises what varies, and a domain is found."""

from __future__ import annotations

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.match.index import MatchIndex
from bot.match.regexcheck import re2_options, regex_issue
from bot.match.suggest import exception_line, suggest_domain, suggest_regex
from bot.records import Record

TRACEBACK = """Traceback (most recent call last):
  File "/srv/app/worker.py", line 88, in run
    frob.start()
frobnicate.errors.FrobnicatorOverheatError: frobnicator core temperature 512 exceeded limit 300"""


def _matches(pattern: str, line: str) -> bool:
    return (
        regex_issue(pattern) is None
        and re2.compile(pattern, re2_options()).search(line) is not None
    )


LINES = [
    (
        "frobnicate.errors.FrobnicatorOverheatError: "
        "frobnicator core temperature 512 exceeded limit 300"
    ),
    (
        "RuntimeError: CUDA out of memory. "
        "Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity)"
    ),
    "FileNotFoundError: [Errno 2] No such file or directory: '/srv/app/config.yaml'",
    "error[E0425]: cannot find value `foo` in this scope",
    'java.lang.NullPointerException: Cannot invoke "String.length()" because "s" is null',
    "ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 5432)",
    (
        "Segmentation fault at 0x7ffd5a3b2c10 in thread 140234, "
        "request 3f2a9c1e-1b2c-4d5e-8f90-123456789abc"
    ),
    "fetch https://registry.example.com/v2/app/manifests/1.4.2 failed: 502 Bad Gateway",
    "a(b)c[d]{e}|f*g+h?i^j$k\\l.m 内存不足 ١٢٣",
    "12345",
]


def test_each_suggested_regex_compiles_and_matches_its_line() -> None:
    for line in LINES:
        assert _matches(suggest_regex(line), line), (line, suggest_regex(line))


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\t"),
        min_size=1,
        max_size=400,
    ).filter(str.strip)
)
def test_any_line_gets_a_regex_that_compiles_and_matches_it(line: str) -> None:
    pattern = suggest_regex(line)
    assert _matches(pattern, line), (line, pattern)


def test_what_varies_is_generalised_and_the_rest_is_kept() -> None:
    pattern = suggest_regex(LINES[0])
    assert (
        pattern == r"frobnicate\.errors\.FrobnicatorOverheatError: "
        r"frobnicator core temperature \d+ exceeded limit"
    )
    assert _matches(pattern, LINES[0].replace("512", "9001"))
    assert not _matches(
        pattern, "frobnicate.errors.FrobnicatorUnderheatError: frobnicator core temperature 2"
    )
    paths = suggest_regex(LINES[2])
    assert _matches(
        paths, "FileNotFoundError: [Errno 2] No such file or directory: '/etc/other.yaml'"
    )
    assert "E0425" in suggest_regex(LINES[3])  # a code inside a name is the error's identity
    addresses = suggest_regex(LINES[6])
    assert _matches(
        addresses,
        "Segmentation fault at 0xdeadbeef in thread 7, request "
        "00000000-1b2c-4d5e-8f90-123456789abc",
    )


def test_a_long_line_gives_a_regex_of_its_start() -> None:
    line = "ValueError: " + " ".join(f"word{i}" for i in range(200))
    pattern = suggest_regex(line)
    assert len(pattern) < 400 and _matches(pattern, line)


def test_the_exception_line_is_the_errors_own_line() -> None:
    assert exception_line(TRACEBACK).startswith(
        "frobnicate.errors.FrobnicatorOverheatError: frobnicator core"
    )
    assert exception_line("lunch at noon?\nanyone?") == "lunch at noon?"


def test_a_record_made_from_the_suggestions_answers_the_paste_again() -> None:
    line = exception_line(TRACEBACK)
    record = Record.model_validate(
        {
            "id": "hardware/frobnicator-overheat",
            "signature": line,
            "regex": suggest_regex(line),
            "domain": "hardware",
            "root_cause": "The frobnicator runs too hot.",
        }
    )
    again = TRACEBACK.replace("512", "640").replace("line 88", "line 91")
    assert MatchIndex.build([record]).triage(again).best.record_id == record.id  # type: ignore[union-attr]


def test_the_domain_comes_from_the_closest_records_then_the_words_then_the_language() -> None:
    assert suggest_domain(TRACEBACK, [("python", 0.4), ("cuda", 0.3), ("cuda", 0.2)]) == "cuda"
    assert suggest_domain("Error: kubelet failed to pull image for pod web-1", []) == "kubernetes"
    assert suggest_domain(TRACEBACK, []) == "python"
    assert suggest_domain("something odd happened", []) is None
