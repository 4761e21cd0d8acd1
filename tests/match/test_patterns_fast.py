"""The shortcuts of the per-record regex analysis answer exactly as the long way does.

Plain alternatives (characters, escaped punctuation, ``.*``) are read with a few
regex passes instead of step by step, and a regex made of plain RE2 syntax is
told accepted without compiling it: both must agree with the long way on every
pattern they take.
"""

from __future__ import annotations

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.match import patterns
from bot.match.normalise import terms, tokens
from bot.match.regexcheck import _plainly_accepted, re2_accepts, re2_options, regex_issue

PLAIN_PIECES = [
    "a",
    "Z",
    "0",
    " ",
    "_",
    "-",
    ":",
    "]",
    "}",
    "é",
    "\n",
    "OutOfMemory",
    "x509",
    r"\.",
    r"\\",
    r"\*",
    r"\+",
    r"\ ",
    r"\]",
    r"\(",
    ".*",
    ".+",
    ".",
]
REGEX_PIECES = [
    *PLAIN_PIECES,
    "(",
    ")",
    "(?:",
    "(?i)",
    "|",
    "^",
    "$",
    "*",
    "+",
    "?",
    "{2}",
    "{1,3}",
    "{3,1}",
    "{1001}",
    "{0,}",
    "[a-z]",
    "[z-a]",
    "[^",
    "[",
    "]",
    r"\d",
    r"\W",
    r"\1",
    r"\b",
    "(?=",
    "(?<!",
    "++",
    "[]",
    "[^]",
    "{",
    "}",
    ",",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PLAIN_PIECES), max_size=20).map("".join))
def test_a_plain_alternative_is_read_as_step_by_step(pattern: str) -> None:
    assert patterns._PLAIN.fullmatch(pattern)
    assert patterns.analyse(pattern) == patterns._analyse_steps(pattern)
    assert patterns.fragments(pattern) == patterns._fragment_steps(pattern)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(REGEX_PIECES), max_size=14).map("".join))
def test_a_regex_told_accepted_without_compiling_compiles(pattern: str) -> None:
    if _plainly_accepted(pattern):
        re2.compile(pattern, re2_options())  # raises when RE2 refuses it
    assert re2_accepts(pattern) == (regex_issue(pattern) is None)


def test_record_regexes_are_accepted_without_compiling() -> None:
    for pattern in [
        r"(CUDA out of memory.*Tried to allocate|torch\.cuda\.OutOfMemoryError)",
        r"(?i)error [a-z0-9_]+ at line \d{1,5}: (?:bad|worse)\s+input",
        r"^Permission denied \(publickey\)\.?$",
    ]:
        assert _plainly_accepted(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        r"foo(?=bar)",
        r"(a)\1",
        "a{1001}",
        "a{3,1}",
        "[z-a]",
        "(a",
        "a)",
        "x**",
        "a{2}{3}",
        "[^]",
        "*a",
    ],
)
def test_what_re2_refuses_is_never_taken_as_plain(pattern: str) -> None:
    assert not _plainly_accepted(pattern)
    assert regex_issue(pattern) is not None
    assert not re2_accepts(pattern)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_tokens_are_the_terms_without_their_phrases(text: str) -> None:
    """What ``analyse`` relies on to take an alternative's words from its terms."""
    assert tokens(text) == [t for t in terms(text) if " " not in t]
