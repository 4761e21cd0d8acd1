"""Reading a long paste where its errors are: what is kept, and line numbers that stay the
paste's."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.match.excerpt import LINE_CHARS, Excerpt, excerpt
from bot.match.extract import extract

LIMIT = 100_000
NOISE = "2024-05-01 12:00:01 INFO worker step {n} ok, loss=0.31 throughput=5012 tok/s"
TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "train.py", line 12, in <module>',
    "    main()",
    '  File "train.py", line 8, in main',
    "    loss.backward()",
    "RuntimeError: CUDA error: device-side assert triggered",
]


def log(lines: int, at: int, error: list[str] = TRACEBACK) -> list[str]:
    out = [NOISE.format(n=n) for n in range(lines)]
    out[at:at] = error
    return out


def original_lines(read: Excerpt, paste: list[str]) -> list[tuple[str, str]]:
    """(kept line, the paste's line at the number the excerpt gives it), for every kept line."""
    return [(line, paste[read.line(no) - 1]) for no, line in enumerate(read.text.split("\n"), 1)]


def test_a_paste_within_the_limit_is_read_whole() -> None:
    paste = "\n".join(log(50, 25))
    read = excerpt(paste, LIMIT)
    assert read.text == paste and not read.cut and read.skipped is None
    assert read.line(7) == 7


def test_an_error_anywhere_is_kept_with_its_traceback_and_its_paste_line_number() -> None:
    for at in (3, 20_000, 39_990):
        paste = log(40_000, at)  # 3 MB
        read = excerpt("\n".join(paste), LIMIT)
        assert read.cut and len(read.text) <= LIMIT
        kept = read.text.split("\n")
        assert all(line in kept for line in TRACEBACK), at
        no = kept.index(TRACEBACK[-1]) + 1
        assert read.line(no) == at + len(TRACEBACK)  # 1-based line of the exception in the paste
        assert all(mine == theirs for mine, theirs in original_lines(read, paste))


def test_the_head_and_the_tail_are_always_read() -> None:
    paste = log(20_000, 10_000)
    kept = excerpt("\n".join(paste), LIMIT).text.split("\n")
    assert kept[0] == paste[0] and kept[-1] == paste[-1]
    assert paste[1_000] not in kept  # the middle's noise is skipped


def test_a_thousand_repeats_of_one_warning_do_not_push_out_the_exception() -> None:
    warning = "2024-05-01 12:00:{n:02d} ERROR retrying request {n} after connection reset"
    paste = [warning.format(n=n % 60) if n % 2 else NOISE.format(n=n) for n in range(30_000)]
    paste[15_000:15_000] = TRACEBACK
    read = excerpt("\n".join(paste), LIMIT)
    assert TRACEBACK[-1] in read.text.split("\n")
    kept = [(read.line(no), line) for no, line in enumerate(read.text.split("\n"), 1)]
    middle = [no for no, line in kept if "retrying request" in line and 3_000 < no < 25_000]
    # the retries' first and last are in the head and the tail; in the middle, only the
    # lines around the traceback (its context), not one window per retry
    assert middle and all(14_950 < no < 15_030 for no in middle), middle


def test_skipped_says_how_long_the_paste_was_and_how_much_was_read() -> None:
    paste = log(30_000, 100)
    read = excerpt("\n".join(paste), LIMIT)
    assert read.skipped is not None
    assert read.skipped.lines == len(paste) and read.skipped.chars == len("\n".join(paste))
    assert 0 < read.skipped.read < read.skipped.lines


def test_a_single_huge_line_is_cut_around_its_error() -> None:
    paste = "x" * 300_000 + " FATAL: out of disk space " + "y" * 300_000
    read = excerpt(paste, LIMIT)
    assert "FATAL: out of disk space" in read.text and len(read.text) <= LINE_CHARS + 10


def test_extract_reports_the_paste_s_line_numbers_through_an_excerpt() -> None:
    paste = log(40_000, 30_584)
    errors = extract(excerpt("\n".join(paste), LIMIT)).errors
    assert any(
        e.line_no == 30_585 + len(TRACEBACK) - 1 and "device-side assert" in e.text for e in errors
    )
    # and a paste handed to extract whole, over its own cap, is numbered the same way
    assert [e.line_no for e in extract("\n".join(paste)).errors] == [e.line_no for e in errors]


def test_an_excerpt_read_again_within_a_smaller_limit_keeps_the_paste_s_numbers() -> None:
    paste = log(40_000, 25_000)
    read = excerpt("\n".join(paste), 400_000).within(LIMIT)
    assert len(read.text) <= LIMIT and TRACEBACK[-1] in read.text
    assert all(mine == theirs for mine, theirs in original_lines(read, paste))


def test_five_megabytes_are_read_in_well_under_a_second() -> None:
    paste = "\n".join(log(70_000, 35_000))
    assert len(paste) > 5_000_000
    started = time.perf_counter()
    read = excerpt(paste, LIMIT)
    assert time.perf_counter() - started < 1.0
    assert TRACEBACK[-1] in read.text


LINES = st.lists(
    st.one_of(
        st.text(alphabet="abc 0123456789:", max_size=80),
        st.sampled_from(
            ["ValueError: bad", "Traceback (most recent call last):", "connection refused", ""]
        ),
    ),
    min_size=1,
    max_size=400,
)


@settings(max_examples=100, deadline=None)
@given(LINES, st.integers(min_value=200, max_value=4_000))
def test_every_kept_line_is_the_paste_s_line_at_its_number(lines: list[str], limit: int) -> None:
    read = excerpt("\n".join(lines), limit)
    assert read.cut == (len("\n".join(lines)) > limit)
    assert len(read.text) <= limit or not read.cut
    assert all(mine == theirs for mine, theirs in original_lines(read, lines))
    numbers = [read.line(no) for no in range(1, read.read_lines + 1)]
    assert numbers == sorted(set(numbers))  # in paste order, each line once
