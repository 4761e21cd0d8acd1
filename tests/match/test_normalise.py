"""Templates: idempotent and stable under line-number, address and path noise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.fit.order import read_versions
from bot.match.normalise import template, terms, tokens, version_hints

LINE = 'File "{path}", line {n}, in forward: RuntimeError at {addr}: CUDA error'
paths = st.lists(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), min_size=2, max_size=6).map(
    lambda parts: "/" + "/".join(parts) + ".py"
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_template_is_idempotent(text: str) -> None:
    once = template(text)
    assert template(once) == once


@settings(max_examples=100, deadline=None)
@given(
    paths,
    paths,
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.integers(0, 2**48),
    st.integers(0, 2**48),
)
def test_template_ignores_paths_line_numbers_and_addresses(
    p1: str, p2: str, n1: int, n2: int, a1: int, a2: int
) -> None:
    first = template(LINE.format(path=p1, n=n1, addr=hex(a1)))
    second = template(LINE.format(path=p2, n=n2, addr=hex(a2)))
    assert first == second


def test_template_masks_variable_parts() -> None:
    line = "KeyError: 'user_42' at 0x7ffd1234 in /srv/app/main.py id 3f2b1c4e-1111-2222-3333-444455556666"
    assert template(line) == "KeyError: <q> at <hex> in <path> id <uuid>"


def test_version_hints_are_kept() -> None:
    hints = version_hints("vllm==0.4.2 on CUDA 12.1 with torch 2.3")
    assert ("vllm", "0.4.2") in hints and ("cuda", "12.1") in hints and ("torch", "2.3") in hints


@pytest.mark.parametrize(
    ("paste", "kept"),
    [
        # pip's resolver: the one it wants, then the one installed
        (
            "vllm 0.4.2 requires torch==2.3.0, but you have torch 2.1.0 which is incompatible.",
            [("vllm", "0.4.2"), ("torch", "2.1.0")],
        ),
        ("ERROR: No matching distribution found for torch==2.3.0", []),
        ("ERROR: Could not find a version that satisfies the requirement torch>=2.1", []),
        ("Requires-Python >=3.8; numpy<2.0 and pandas~=2.1 wanted", []),
        (
            "Successfully installed torch-2.1.0 and numpy 1.26.4",
            [("torch", "2.1.0"), ("numpy", "1.26.4")],
        ),
    ],
)
def test_a_version_something_asks_for_is_not_one_the_paste_ran(
    paste: str, kept: list[tuple[str, str]]
) -> None:
    assert version_hints(paste) == kept
    assert read_versions(paste) == dict(kept)


def test_tokens_split_camel_case_and_cjk() -> None:
    found = tokens("OutOfMemoryError 显存不足")
    assert "outofmemoryerror" in found and "memory" in found and "显存" in found


def test_terms_pair_neighbouring_words_across_stop_words_only() -> None:
    assert "out memory" in terms("CUDA out of memory")
    assert "out memory" not in terms("your version is out of date")
    assert "model type" in terms("has model type `qwen2_vl`")
    # a masked value or another script ends a phrase
    assert "failed <path>" not in terms("failed <path> open") and "failed open" not in terms(
        "failed <path> open"
    )
    assert "request timed" not in terms("request 超时 timed")
    # an identifier's words are a phrase: CrashLoopBackOff is "back off" like "Back-off" is
    assert "back off" in terms("CrashLoopBackOff") and "back off" in terms("Back-off restarting")


def test_chinese_words_around_an_error_bring_their_english_terms() -> None:
    found = tokens("最后报错超时，内存不足")
    assert {"timeout", "timed", "memory"} <= set(found)
    assert "超时" in found  # the Chinese bigrams stay, for Chinese record text
