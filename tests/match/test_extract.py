"""The extractor, one paste shape at a time, plus properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.match.extract import MAX_LINES, extract


def roles(paste: str) -> dict[str, str]:
    return {line.text: line.role for line in extract(paste).lines}


def error_texts(paste: str) -> list[str]:
    return [e.text for e in extract(paste).errors]


def test_slack_escaping_fences_ansi_and_zero_width_are_undone() -> None:
    paste = "```\n\x1b[31mValueError: a &lt; b &amp;&amp; c\u200b\x1b[0m\n```"
    assert error_texts(paste) == ["ValueError: a < b && c"]


def test_python_traceback_final_line_is_the_exception_and_frames_are_frames() -> None:
    paste = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 10, in <module>\n'
        "    main()\n"
        "KeyError: 'x'"
    )
    found = roles(paste)
    assert found["KeyError: 'x'"] == "exception"
    assert found['File "train.py", line 10, in <module>'] == "frame"
    assert found["main()"] == "frame"


def test_chained_python_tracebacks_keep_both_exceptions_apart() -> None:
    paste = (
        'Traceback (most recent call last):\n  File "a.py", line 1, in f\n    g()\n'
        "KeyError: 'k'\n\nDuring handling of the above exception, another exception occurred:\n\n"
        'Traceback (most recent call last):\n  File "a.py", line 3, in h\n    f()\n'
        "RuntimeError: worker failed"
    )
    errors = extract(paste).errors
    assert [e.text for e in errors] == ["KeyError: 'k'", "RuntimeError: worker failed"]
    assert errors[0].line_no < errors[1].line_no


def test_java_caused_by_chain() -> None:
    paste = (
        'Exception in thread "main" java.lang.IllegalStateException: boom\n'
        "\tat com.x.Main.run(Main.java:10)\n"
        "Caused by: java.io.IOException: disk full\n\tat com.x.Io.write(Io.java:3)\n\t... 5 more"
    )
    found = roles(paste)
    assert found["Caused by: java.io.IOException: disk full"] == "exception"
    assert found["at com.x.Main.run(Main.java:10)"] == "frame"
    assert {e.kind for e in extract(paste).errors} == {"java"}


def test_go_panic() -> None:
    paste = (
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
        "goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d"
    )
    assert error_texts(paste)[0].startswith("panic: runtime error")
    assert extract(paste).errors[0].kind == "go"


def test_rust_error_code() -> None:
    paste = "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:2:5\n  |\n2 |     x\n  |     ^"
    assert error_texts(paste) == ["error[E0425]: cannot find value `x` in this scope"]


def test_npm_err_block_is_one_error_not_one_per_line() -> None:
    paste = "npm ERR! code ELIFECYCLE\nnpm ERR! errno 2\nnpm ERR! app@1.0.0 build: `tsc`\nnpm ERR! Exit status 2"
    assert len(extract(paste).errors) <= 2


def test_node_stack_frames() -> None:
    paste = "Error: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle (node:net:1817:16)"
    found = roles(paste)
    assert found["at Server.setupListenHandle (node:net:1817:16)"] == "frame"


def test_log_prefixes_rank_prefixes_and_compose_prefixes_are_stripped() -> None:
    paste = (
        "2024-10-20T23:44:47+0000 ERROR: connection refused\n"
        "[rank3]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error\n"
        "web-1  | exec /bin/sh: exec format error\n"
        "Jan 11 16:37:20 host nginx[3026]: nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)"
    )
    texts = error_texts(paste)
    assert "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error" in texts
    assert "exec /bin/sh: exec format error" in texts
    assert any(t.startswith("nginx: [emerg] bind()") for t in texts)


def test_python_warnings_and_jupyter_frames() -> None:
    paste = (
        "/srv/app/report.py:36: SettingWithCopyWarning:\n"
        "A value is trying to be set on a copy of a slice from a DataFrame.\n"
        "RuntimeError                              Traceback (most recent call last)\n"
        "Cell In[3], line 5\n"
        "----> 5 loop.run_until_complete(main())\n"
        "File ~/venv/lib/python3.11/asyncio/base_events.py:629, in BaseEventLoop.run_until_complete\n"
        "RuntimeError: This event loop is already running"
    )
    roles = {line.text: line.role for line in extract(paste).lines}
    message = (
        "SettingWithCopyWarning: A value is trying to be set on a copy of a slice from a DataFrame."
    )
    assert roles[message] == "exception"  # the message on the next line belongs to it
    assert roles["Cell In[3], line 5"] == "frame"
    assert roles["----> 5 loop.run_until_complete(main())"] == "frame"
    assert roles["RuntimeError: This event loop is already running"] == "exception"


def test_dotnet_stack_frames_are_frames_not_the_message() -> None:
    paste = (
        "System.InvalidOperationException:\n"
        "at Microsoft.Extensions.DependencyInjection.CallSiteFactory.CreateArgumentCallSite "
        "(Microsoft.Extensions.DependencyInjection, Version=2.1.0.0)\n"
        "at Tauchbolde.Web.Startup.Configure(IApplicationBuilder app) in /src/Startup.cs:line 42"
    )
    lines = extract(paste).lines
    assert [line.role for line in lines] == ["exception", "frame", "frame"]
    assert lines[0].text == "System.InvalidOperationException:"


def test_an_error_message_ending_in_a_question_is_still_the_error() -> None:
    paste = (
        "Any idea what is wrong?\n"
        "The connection to the server localhost:8080 was refused - did you specify the right host or port?"
    )
    assert [line.role for line in extract(paste).lines] == ["prose", "error"]


def test_a_chinese_sentence_running_into_an_english_error_is_the_error() -> None:
    paste = "配置好项目的时候，点运行就爆Could not resolve all files for configuration ':app:debugRuntimeClasspath'."
    assert [line.role for line in extract(paste).lines] == ["error"]


def test_an_exception_quoted_in_a_sentence_is_split_out() -> None:
    paste = (
        "the following error occurs:  ValueError: Shapes (None, 11) and (None, 10) are incompatible"
    )
    lines = extract(paste).lines
    assert [(line.text, line.role) for line in lines] == [
        ("the following error occurs", "prose"),
        ("ValueError: Shapes (None, 11) and (None, 10) are incompatible", "exception"),
    ]


def test_loguru_lines_are_errors_not_table_rows() -> None:
    paste = (
        "2024-08-09 07:19:19.929 | INFO     | app.pipe:run:88 - parsing page 3\n"
        "2024-08-09 07:19:19.929 | ERROR    | __main__:parse:135 - CUDA error: an illegal memory access"
        " was encountered"
    )
    assert "CUDA error: an illegal memory access was encountered" in error_texts(paste)


def test_tqdm_bars_are_dropped() -> None:
    paste = "Epoch 1: 45%|████▌     | 45/100 [00:10<00:12, 4.41it/s]\rEpoch 1: 46%|████▋| 46/100\nOSError: disk"
    assert error_texts(paste) == ["OSError: disk"]


def test_kubectl_events_and_docker_output() -> None:
    paste = (
        "Events:\n  Type     Reason   Age  From     Message\n"
        "  Warning  BackOff  4m   kubelet  Back-off restarting failed container manager\n"
        "docker: Got permission denied while trying to connect to the Docker daemon socket"
    )
    texts = error_texts(paste)
    assert any("Back-off restarting failed container" in t for t in texts)
    assert any("permission denied" in t for t in texts)


def test_cuda_nccl_cpp_log() -> None:
    paste = "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: an illegal memory access was encountered"
    assert any("illegal memory access" in t for t in error_texts(paste))


def test_question_sentences_are_prose() -> None:
    paste = (
        "How can I fix this?\nModuleNotFoundError: No module named 'vllm'\n请问这个错误怎么解决啊"
    )
    found = roles(paste)
    assert found["How can I fix this?"] == "prose"
    assert found["ModuleNotFoundError: No module named 'vllm'"] == "exception"


def test_chinese_sentence_around_an_english_error_keeps_the_error() -> None:
    paste = "但是，依旧报错Cannot re-initialize CUDA in forked subprocess"
    assert extract(paste).errors


def test_distinct_errors_keep_positions_and_repeats_collapse() -> None:
    paste = "OSError: [Errno 98] Address already in use\n" * 3 + "ValueError: bad\n"
    errors = extract(paste).errors
    assert [e.line_no for e in errors] == [1, 4]


def test_huge_input_is_capped_keeping_the_tail() -> None:
    paste = "INFO step ok\n" * 100_000 + "RuntimeError: the real cause\n"
    result = extract(paste)
    assert len(result.lines) <= MAX_LINES
    assert result.truncated
    assert result.errors[-1].text == "RuntimeError: the real cause"


def test_a_long_logs_middle_keeps_its_last_error_lines_at_their_own_numbers() -> None:
    noise = ["INFO step ok"] * 3_000
    for no in range(1_000, 2_000, 4):  # 250 error lines in the middle, more than are kept
        noise[no - 1] = f"WARNING worker {no} could not reach the store"
    noise[1_499] = "x" * 5_000 + " ConnectionRefusedError: past the cut"  # read as cut
    noise[2_399] = "x" * 10 + " PermissionError: [Errno 13] the last one"
    lines = {line.no: line.text for line in extract("\n".join(noise)).lines}
    middle = sorted(no for no in lines if 80 < no < 3_000 - 370)
    assert middle[-1] == 2_400 and "the last one" in lines[2_400]
    assert len(middle) == MAX_LINES // 4
    assert all(no % 4 == 0 for no in middle[:-1])  # the warnings, nothing between them
    assert 1_500 not in lines  # its error lies beyond what a line is read for
    assert min(middle) > 1_000  # the last ones of the middle, not its first


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3000))
def test_extract_never_crashes(text: str) -> None:
    result = extract(text)
    assert len(result.lines) <= MAX_LINES


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=4000))
def test_extract_takes_binary_garbage(data: bytes) -> None:
    extract(data.decode("utf-8", errors="replace"))
