"""Ranking on small hand-made records: which line, which literal, which ecosystem."""

from __future__ import annotations

import re

import pytest

from bot.match.extract import extract
from bot.match.index import MatchIndex
from bot.match.patterns import non_capturing, prefilter_keys, risky_regex, split_alternatives
from bot.records import Record

from .conftest import SMALL, make, regex_matches


def test_final_exception_line_answers_with_high_band(small_index: MatchIndex) -> None:
    paste = (
        'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    '
        "loss.backward()\n"
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
    index = MatchIndex.build(
        [
            make(
                "java/addr-in-use/jdk",
                "java.net.BindException: Address already in use",
                "Address already in use",
                "java",
            ),
            make(
                "python/addr-in-use/py3",
                "OSError: [Errno 98] Address already in use",
                "Address already in use",
                "python",
            ),
        ]
    )
    paste = (
        'Traceback (most recent call last):\n  File "srv.py", line 9, in <module>\nOSError: '
        "[Errno 98] Address already in use"
    )
    assert index.triage(paste).best.record_id == "python/addr-in-use/py3"


def test_several_errors_get_their_own_matches(small_index: MatchIndex) -> None:
    """Two services' errors in one log: the earlier one is answered too, although the paste
    ends in the other (as the paste's answer, its record would leave that one unexplained)."""
    paste = (
        "Error: listen EADDRINUSE: address already in use :::3000\n"
        "panic: runtime error: invalid memory address or nil pointer dereference"
    )
    result = small_index.triage(paste)
    answered = {m.record_id for m in result.primary()}
    assert {"go/nil-pointer/go1", "node/eaddrinuse/node20"} <= answered
    assert len({m.error_index for m in result.primary()}) == 2
    as_the_paste = next(m for m in result.matches if m.record_id == "node/eaddrinuse/node20")
    as_its_error = next(m for m in result.primary() if m.record_id == "node/eaddrinuse/node20")
    assert as_the_paste.score < as_its_error.score
    assert as_the_paste.band != "high"


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


def test_capturing_groups_become_non_capturing_and_match_the_same() -> None:
    cases = {
        r"(CUDA|cuda) out of (memory)": "RuntimeError: CUDA out of memory",
        r"\(errno (\d+)\)": "failed (errno 13)",
        r"[(]x(?:y|z)(?P<name>w)[)]": "(xzw)",
        r"a[()|]b(c)": "a(bc",
    }
    for pattern, line in cases.items():
        rewritten = non_capturing(pattern)
        assert re.compile(rewritten).groups == (1 if "?P<" in pattern else 0)
        assert bool(re.search(rewritten, line)) and bool(re.search(pattern, line))
    assert non_capturing(r"\(a\)[(]") == r"\(a\)[(]"


def test_the_paste_version_picks_between_records_that_differ_only_by_version() -> None:
    """Variants of one error fold into one answer: the paste's version chooses which."""
    index = MatchIndex.build(
        [
            make(
                "docker/oci-create/docker24",
                "OCI runtime create failed: unable to start container process",
                "OCI runtime create failed",
                "docker",
                versions=[{"version": "docker >=24,<25"}],
            ),
            make(
                "docker/oci-create/docker27",
                "OCI runtime create failed: unable to start container process",
                "OCI runtime create failed",
                "docker",
                versions=[{"version": "docker >=27,<28"}],
            ),
        ]
    )
    error = (
        "docker: Error response from daemon: OCI runtime "
        "create failed: unable to start container process"
    )
    for version, expected in (("24.0.7", "docker24"), ("27.1.1", "docker27")):
        best = index.triage(f"$ docker --version\nDocker version {version}\n{error}").best
        assert best is not None and best.record_id.endswith(expected)
        other = "docker27" if expected == "docker24" else "docker24"
        assert best.variants == (f"docker/oci-create/{other}",)  # named, not a rival answer


@pytest.mark.slow
def test_index_agrees_with_python_re_on_every_deadends_regex(
    deadends_records: list[Record], deadends_index: MatchIndex
) -> None:
    """The literal prefilter and the RE2 confirmation lose no hit and add none: the records
    a paste's candidates carry a regex hit for are those whose regex Python's ``re`` finds
    in the paste's lines, as extraction cleaned them."""
    patterns = [re.compile(r.regex, re.IGNORECASE) for r in deadends_records]
    lines = [r.signature for r in deadends_records[::5]]
    lines += [r.root_cause for r in deadends_records[::25]]
    for line in lines:
        texts = [kept.text for kept in extract(line).lines]
        expected = sorted(
            record.id
            for record, pattern in zip(deadends_records, patterns, strict=True)
            if any(pattern.search(text) for text in texts)
        )
        assert regex_matches(deadends_index, line) == expected, line


def test_literal_prefilter_is_case_insensitive_beyond_ascii() -> None:
    index = MatchIndex.build(
        [make("x/segfault/ru", "Ошибка сегментирования", "Ошибка сегментирования", "x")]
    )
    shouted = "ОШИБКА СЕГМЕНТИРОВАНИЯ (стек памяти сброшен на диск)"
    assert regex_matches(index, shouted) == ["x/segfault/ru"]
    assert regex_matches(index, "segmentation fault") == []


def test_quoted_names_tell_a_specific_record_from_a_generic_one() -> None:
    index = MatchIndex.build(
        [
            make(
                "python/module-no-attribute/py3",
                "AttributeError: module 'X' has no attribute 'Y'",
                r"AttributeError: module '(\w+)' has no attribute '(\w+)'",
                "python",
            ),
            make(
                "tensorflow/tf1-session/tf2",
                "AttributeError: module 'tensorflow' has no attribute 'Session'",
                r"has no attribute.*Session|module.*tensorflow.*no attribute",
                "tensorflow",
            ),
        ]
    )
    paste = (
        'Traceback (most recent call last):\n  File "train.py", line 4, in <module>\n'
        "    sess = tf.Session()\nAttributeError: module 'tensorflow' has no attribute 'Session'"
    )
    best = index.triage(paste).best
    assert best is not None and best.record_id == "tensorflow/tf1-session/tf2"


def test_tool_words_place_a_paste_in_its_domain() -> None:
    index = MatchIndex.build(
        [
            make(
                "kubernetes/crashloop/k8s1",
                "CrashLoopBackOff: Back-off restarting failed container",
                "CrashLoopBackOff",
                "kubernetes",
            ),
        ]
    )
    with_tool = index.triage(
        "Warning  BackOff  4m  kubelet  Back-off restarting failed container app"
    )
    without = index.triage("Warning  BackOff  4m  agent  Back-off restarting failed container app")
    assert with_tool.best is not None and without.best is not None
    named = dict(with_tool.best.features)
    unnamed = dict(without.best.features)
    assert named["env"] > 0 and named["absent"] == 0
    assert unnamed["env"] == 0 and unnamed["absent"] == 1
    assert with_tool.best.score > without.best.score


def test_a_line_that_says_nothing_specific_explains_nothing(small_index: MatchIndex) -> None:
    result = small_index.triage("I ran the job again\n==> get this error\nany ideas?")
    assert not result.answered
    assert all(dict(m.features)["explained"] < 0.5 for m in result.matches)


def test_a_broad_regex_hit_the_record_text_does_not_support_is_not_an_answer() -> None:
    index = MatchIndex.build(
        [
            make(
                "kafka/transaction-timeout/kafka3",
                "org.apache.kafka.common.errors.TimeoutException: "
                "Timeout expired while awaiting InitProducerId",
                r"transaction.*timeout|Timeout expired.*InitProducerId",
                "kafka",
            ),
            make(
                "database/mysql-lock-wait/mysql8",
                "ERROR 1205 (HY000): Lock wait timeout exceeded; try restarting transaction",
                r"Lock wait timeout exceeded",
                "database",
            ),
        ]
    )
    paste = (
        "Caused by: com.mysql.cj.jdbc.exceptions.MySQLTransactionRollbackException: "
        "Lock wait timeout exceeded; try restarting transaction"
    )
    result = index.triage(paste)
    assert result.best is not None and result.best.record_id == "database/mysql-lock-wait/mysql8"
    kafka = next(m for m in result.matches if m.record_id.startswith("kafka/"))
    # its regex fired, but its own text explains little of the line
    assert dict(kafka.features)["explained"] < 0.2 and kafka.band == "low"


def test_the_decisive_line_is_the_chain_root_else_the_last_exception() -> None:
    from bot.match.rank import decisive_line, important_lines

    paste = (
        "Failed to import from vllm._C with ImportError('libcudart.so.12: cannot open')\n"
        "Traceback (most recent call last):\n"
        '  File "run.py", line 3, in <module>\n'
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0"
    )
    extraction = extract(paste)
    line = decisive_line(extraction, important_lines(extraction))
    assert extraction.lines[line].text.startswith("ValueError: Bfloat16")


#: A warning that quotes an exception, then the error the paste ends in, and a record of each.
WARNING_RECORDS = [
    make(
        "python/importerror-libcudart/py3",
        "ImportError: libcudart.so.12: cannot open shared object file",
        "libcudart.so.12: cannot open shared object file",
        "python",
    ),
    make(
        "vllm/bf16-unsupported-gpu/any",
        "ValueError: Bfloat16 is only supported on GPUs with compute capability 8.0",
        "Bfloat16 is only supported on GPUs",
        "vllm",
    ),
]
WARNING_PASTE = (
    "Failed to import from vllm._C with ImportError('libcudart.so.12: cannot open "
    "shared object file: No such file or directory')\n"
    "Traceback (most recent call last):\n"
    '  File "run.py", line 3, in <module>\n'
    "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0"
)


def test_a_record_of_an_earlier_line_leaves_the_decisive_line_unexplained() -> None:
    index = MatchIndex.build(WARNING_RECORDS)
    paste = WARNING_PASTE
    alone = "ImportError: libcudart.so.12: cannot open shared object file: No such file"
    from bot.match import features as F

    names = list(F.NAMES)
    ids, _, values = index.feature_rows(paste)
    found = dict(zip(ids, values[:, names.index("elsewhere")], strict=True))
    ids, _, own = index.feature_rows(alone)
    alone_found = dict(zip(ids, own[:, names.index("elsewhere")], strict=True))
    assert found["python/importerror-libcudart/py3"] > 0.3
    assert found["vllm/bf16-unsupported-gpu/any"] == 0.0
    assert alone_found["python/importerror-libcudart/py3"] == 0.0


def test_an_earlier_error_is_judged_as_its_own_error_but_a_warning_before_one_is_not_lifted() -> (
    None
):
    """Two separate errors: the earlier one's record answers it although the paste ends in
    the other. A warning that quotes an exception before the error that decides: its
    record stays below an answer, for the error and for the paste."""
    index = MatchIndex.build(WARNING_RECORDS)
    paste = WARNING_PASTE
    result = index.triage(paste)
    assert [m.record_id for m in result.primary()] == ["vllm/bf16-unsupported-gpu/any"]
    warned = dict(result.per_error)[0][0]
    assert warned.record_id == "python/importerror-libcudart/py3"
    assert warned.band == "low"
